"""``hygiene revoke-leaked`` / ``revoke-leaked``: revoke leaked PATs, log out leaked sessions.

The run itself is :func:`hygiene.revoke.revoke_leaked`; this module owns the terminal: the
confirmation question, the password prompt, the progress bar and what is printed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import click

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Prompt, tty_prompt
from hygiene.commands.lines import error_text
from hygiene.commands.options import text_or_json
from hygiene.commands.progress import item_bar, scan_bar
from hygiene.commands.signals import trapped
from hygiene.commands.terminal import can_prompt
from hygiene.errors import EXIT_ERROR, EXIT_FINDINGS, one_line
from hygiene.progress import no_items, no_scan
from hygiene.revoke import Interaction, Outcome, RevokeOptions
from hygiene.revoke import revoke_leaked as run_revoke
from hygiene.revoke.flow import MakeClient
from hygiene.revoke.output import (
    exit_status,
    interrupted_line,
    render_json,
    render_text,
    summary_line,
)
from hygiene.revoke.plan import Result
from hygiene.stopping import StopRequest

PROG = "revoke-leaked"


@dataclass
class Console:
    """The command's terminal, injected: streams, whether they are terminals, how to ask."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    interactive: bool = False  # standard input is a terminal: confirm, prompt for a password
    progress: bool = False  # standard error is a terminal: show a progress bar
    confirm: Callable[[str], bool] = lambda _question: True
    prompt: Prompt | None = None


def _interaction(console: Console, stop: StopRequest) -> Interaction:
    return Interaction(
        stdin=console.stdin,
        interactive=console.interactive,
        confirm=console.confirm,
        prompt=console.prompt,
        progress=item_bar(console.stderr) if console.progress else no_items,
        scan_progress=scan_bar(console.stderr) if console.progress else no_scan,
        stop=stop,
    )


def show(outcome: Outcome, fmt: str, console: Console) -> int:
    """Print the outcome (results on stdout, errors and a summary on stderr); the exit status."""
    for note in outcome.notes:  # guidance first: it explains the results below
        print(f"{PROG}: {one_line(note)}", file=console.stderr)
    if outcome.declined:
        print(f"{PROG}: nothing revoked", file=console.stderr)
        return EXIT_FINDINGS
    results: list[Result] = outcome.results
    if fmt == "json":
        print(render_json(results, outcome.dry_run), file=console.stdout)
    elif results:
        print(render_text(results), file=console.stdout)
    for error in outcome.errors:  # files --scan could not read, rows not recorded: incomplete
        print(f"{PROG}: {one_line(error)}", file=console.stderr)
    print(f"{PROG}: {summary_line(results, outcome.dry_run)}", file=console.stderr)
    status = max(exit_status(results), EXIT_FINDINGS if outcome.errors else 0)
    if outcome.logout_error is not None:
        # The results above stand; the session may still be alive: an error, exit 2.
        print(error_text(outcome.logout_error), file=console.stderr)
        status = EXIT_ERROR
    if outcome.signum is not None:
        print(f"{PROG}: {interrupted_line(results, outcome.signum)}", file=console.stderr)
        status = 128 + outcome.signum
    return status


def revoke_leaked(
    opts: RevokeOptions,
    env: Mapping[str, str],
    console: Console,
    *,
    fmt: str = "text",
    make_client: MakeClient = ControlPlaneClient,
    stop: StopRequest | None = None,
) -> int:
    """Run ``revoke-leaked`` against ``env`` on ``console``; the exit status."""
    talk = _interaction(console, stop if stop is not None else StopRequest())
    return show(run_revoke(opts, env, talk, make_client), fmt, console)


def _confirm(question: str) -> bool:
    return click.confirm(question, default=False, err=True)


# The same help options whether run as `revoke-leaked` or under the `hygiene` group.
@click.command(name="revoke-leaked", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("reports", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--token-id",
    "token_ids",
    multiple=True,
    metavar="ID",
    help="Revoke this token id (repeatable).",
)
@click.option(
    "--ids-from",
    metavar="FILE|-",
    help="Read token ids from FILE (or standard input), one per line.",
)
@click.option(
    "--scan",
    "scan",
    multiple=True,
    metavar="PATH",
    help="Scan PATH (file, folder, - for stdin) in this process and act on what is "
    "found: PATs through the inventory, live leaked session tokens by logging "
    "out with them (repeatable).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Resolve and list what would be revoked or logged out; send nothing.",
)
@text_or_json("Output format on stdout.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation on a terminal.")
def command(
    reports: tuple[Path, ...],
    token_ids: tuple[str, ...],
    ids_from: str | None,
    scan: tuple[str, ...],
    dry_run: bool,
    fmt: str,
    yes: bool,
) -> int:
    """Revoke leaked PATs: REPORT files (`hygiene scan --format json` or `--format sarif`
    reports, or detect-secrets baselines) resolved through the token inventory (HYGIENE_INVENTORY:
    a SQLite file, default the per-user one, or a postgresql:// URL), or token ids; with --scan,
    also log out leaked session tokens (statuses logged_out / not_live).

    A report holds no token values, so its bearer-token findings stay unresolved: --scan the
    files that hold them instead (nothing is written to disk or a pipe on the way).

    Credentials come from AIC_EMAIL/AIC_PASSWORD (prompted without echo on a terminal) or
    AIC_TOKEN; the service from AIC_BASE_URL (leaked session tokens are sent there and nowhere
    else; logging them out needs no credentials). Each token is revoked in its own
    organization (recorded by `hygiene tokens create`); not_found counts only there.

    Ctrl-C or SIGTERM: nothing new is sent, requests in flight finish, what happened is printed
    and recorded, the session is logged out, exit 130 / 143.

    Exit 0 when every item ended revoked, not_found, logged_out or not_live, 1 otherwise, 2 on
    usage or authentication errors or when the closing logout failed (results still printed).
    """
    interactive = sys.stdin.isatty()
    console = Console(
        interactive=interactive,
        progress=sys.stderr.isatty(),
        confirm=_confirm,
        prompt=tty_prompt(can_prompt()),
    )
    opts = RevokeOptions(reports, token_ids, ids_from, dry_run, yes, scan)
    with trapped(PROG) as stop:
        return revoke_leaked(opts, os.environ, console, fmt=fmt, stop=stop)
