"""``revoke-leaked`` as a plain function: gather, resolve, confirm, revoke, log out, record."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import click

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config, Prompt, load_config
from hygiene.errors import EXIT_FINDINGS, InputError, UsageError
from hygiene.inventory import REVOKED as STATE_REVOKED
from hygiene.inventory import default_path, open_inventory
from hygiene.revoke.output import exit_status, render_json, render_text, summary_line
from hygiene.revoke.plan import NOT_FOUND, REVOKED, WOULD_REVOKE, Plan, Result, make_plan
from hygiene.revoke.run import revoke_all
from hygiene.revoke.sources import Finding, check_token_id, load_report, parse_ids


@dataclass(frozen=True)
class RevokeOptions:
    """What the user asked for (the command line, minus anything secret)."""

    reports: tuple[Path, ...] = ()
    token_ids: tuple[str, ...] = ()
    ids_from: str | None = None  # a file, or "-" for standard input
    dry_run: bool = False
    fmt: str = "text"
    yes: bool = False


@dataclass
class Console:
    """The command's I/O, injected: streams, whether they are terminals, how to ask."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    interactive: bool = False  # standard input is a terminal: confirm, prompt for a password
    progress: bool = False  # standard error is a terminal: show a progress bar
    confirm: Callable[[str], bool] = lambda _question: True
    prompt: Prompt | None = None


MakeClient = Callable[[Config], ControlPlaneClient]


def gather(opts: RevokeOptions, stdin: TextIO) -> tuple[list[Finding], list[str]]:
    """Findings of every report and every token id given, validated."""
    findings = [f for report in opts.reports for f in load_report(report)]
    ids = [check_token_id(tid) for tid in opts.token_ids]
    if opts.ids_from == "-":
        ids += parse_ids(stdin, "<stdin>")
    elif opts.ids_from is not None:
        try:
            text = Path(opts.ids_from).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read --ids-from {opts.ids_from}: {exc}") from None
        ids += parse_ids(text.splitlines(), opts.ids_from)
    return findings, ids


@contextlib.contextmanager
def _progress(console: Console, total: int) -> Iterator[Callable[[Result], None]]:
    if not console.progress or total < 2:
        yield lambda _result: None
        return
    with click.progressbar(length=total, label="Revoking", file=console.stderr) as bar:
        yield lambda _result: bar.update(1)


def _show(results: list[Result], opts: RevokeOptions, console: Console) -> int:
    if opts.fmt == "json":
        print(render_json(results, opts.dry_run), file=console.stdout)
    elif results:
        print(render_text(results), file=console.stdout)
    print(f"revoke-leaked: {summary_line(results, opts.dry_run)}", file=console.stderr)
    return exit_status(results)


def _revoke(plan: Plan, config: Config, console: Console, make_client: MakeClient) -> list[Result]:
    with make_client(config) as client, _progress(console, len(plan.targets)) as tick:
        return revoke_all(client, plan.targets, on_done=tick)


def revoke_leaked(
    opts: RevokeOptions,
    env: Mapping[str, str],
    console: Console,
    make_client: MakeClient = ControlPlaneClient,
) -> int:
    """Run ``revoke-leaked``; returns the exit status (errors raise HygieneError)."""
    findings, ids = gather(opts, console.stdin)
    if not opts.reports and not ids:
        raise UsageError("nothing to revoke: give a REPORT, --token-id or --ids-from")
    inventory_path = default_path(env)
    with open_inventory(inventory_path, create=False) as inventory:
        plan = make_plan(findings, ids, inventory)
    if opts.dry_run:
        would = [Result(t.token_id, t.fingerprint, WOULD_REVOKE) for t in plan.targets]
        return _show(would + plan.unresolved, opts, console)
    config = load_config(env, prompt=console.prompt) if plan.targets else None
    if config is not None and console.interactive and not opts.yes:
        question = f"Revoke {len(plan.targets)} token(s) at {config.base_url}?"
        if not console.confirm(question):
            print("revoke-leaked: nothing revoked", file=console.stderr)
            return EXIT_FINDINGS
    results = _revoke(plan, config, console, make_client) if config is not None else []
    done = [r.token_id for r in results if r.status in (REVOKED, NOT_FOUND) and r.token_id]
    if done:
        with open_inventory(inventory_path, create=False) as inventory:
            inventory.mark(done, STATE_REVOKED)
    return _show(results + plan.unresolved, opts, console)


__all__ = ["Console", "RevokeOptions", "gather", "revoke_leaked"]
