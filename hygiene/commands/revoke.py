"""``hygiene revoke-leaked`` / ``revoke-leaked``: revoke leaked PATs, log out leaked sessions."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hygiene.api.config import tty_prompt
from hygiene.revoke import Console, RevokeOptions, revoke_leaked


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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format on stdout.",
)
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
    """Revoke leaked PATs: REPORT files (`hygiene scan --format json` reports or
    detect-secrets baselines) resolved through the token inventory, or token ids; with
    --scan, also log out leaked session tokens (statuses logged_out / not_live).

    A report holds no token values, so its bearer-token findings stay unresolved: --scan the
    files that hold them instead (nothing is written to disk or a pipe on the way).

    Credentials come from AIC_EMAIL/AIC_PASSWORD (prompted without echo on a terminal) or
    AIC_TOKEN; the service from AIC_BASE_URL (leaked session tokens are sent there and nowhere
    else; logging them out needs no credentials). Exit 0 when every item ended revoked,
    not_found, logged_out or not_live, 1 otherwise, 2 on usage or authentication errors.
    """
    interactive = sys.stdin.isatty()
    console = Console(
        interactive=interactive,
        progress=sys.stderr.isatty(),
        confirm=_confirm,
        prompt=tty_prompt(interactive),
    )
    opts = RevokeOptions(reports, token_ids, ids_from, dry_run, fmt, yes, scan)
    return revoke_leaked(opts, os.environ, console)
