"""``revoke-leaked`` as a plain function: gather, scan, resolve, confirm, revoke, log out leaked
sessions, record."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import click

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config, Prompt, check_base_url, load_config
from hygiene.errors import EXIT_FINDINGS, InputError, UsageError, one_line
from hygiene.inventory import REVOKED as STATE_REVOKED
from hygiene.inventory import default_path, open_inventory
from hygiene.revoke.output import exit_status, render_json, render_text, summary_line
from hygiene.revoke.plan import (
    NOT_FOUND,
    REVOKED,
    WOULD_LOG_OUT,
    WOULD_REVOKE,
    Plan,
    Result,
    make_plan,
)
from hygiene.revoke.run import revoke_all
from hygiene.revoke.scanned import STDIN, Scanned, scan_paths
from hygiene.revoke.sessions import SessionTarget, log_out_all
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
    scan: tuple[str, ...] = ()  # --scan: files, folders or "-" scanned in this process


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
def _progress(
    console: Console, total: int, label: str = "Revoking"
) -> Iterator[Callable[[Result], None]]:
    if not console.progress or total < 2:
        yield lambda _result: None
        return
    with click.progressbar(length=total, label=label, file=console.stderr) as bar:
        yield lambda _result: bar.update(1)


def _show(results: list[Result], opts: RevokeOptions, console: Console, errors: list[str]) -> int:
    if opts.fmt == "json":
        print(render_json(results, opts.dry_run), file=console.stdout)
    elif results:
        print(render_text(results), file=console.stdout)
    for error in errors:  # files --scan could not read: the run is incomplete
        print(f"revoke-leaked: {one_line(error)}", file=console.stderr)
    print(f"revoke-leaked: {summary_line(results, opts.dry_run)}", file=console.stderr)
    return max(exit_status(results), EXIT_FINDINGS if errors else 0)


def _record(inventory_path: Path, results: list[Result]) -> None:
    done = [r.token_id for r in results if r.status in (REVOKED, NOT_FOUND) and r.token_id]
    if done:
        with open_inventory(inventory_path, create=False) as inventory:
            inventory.mark(done, STATE_REVOKED)


def _revoke(
    plan: Plan, config: Config, console: Console, make_client: MakeClient, inventory_path: Path
) -> list[Result]:
    arrived: list[Result] = []

    def done(result: Result, tick: Callable[[Result], None]) -> None:
        arrived.append(result)
        tick(result)

    try:
        with make_client(config) as client, _progress(console, len(plan.targets)) as tick:
            return revoke_all(client, plan.targets, on_done=lambda r: done(r, tick))
    finally:
        # Also when the run stops partway (AUTH_FAILED, Ctrl-C): what was revoked is recorded.
        _record(inventory_path, arrived)


def _log_out(sessions: list[SessionTarget], base_url: str, console: Console) -> list[Result]:
    with _progress(console, len(sessions), "Logging out") as tick:
        return log_out_all(sessions, base_url, on_done=tick)


def _question(plan: Plan, sessions: list[SessionTarget], base_url: str) -> str:
    pats, logouts = len(plan.targets), len(sessions)
    if not logouts:
        return f"Revoke {pats} token(s) at {base_url}?"
    if not pats:
        return f"Log out {logouts} leaked session(s) at {base_url}?"
    return f"Revoke {pats} token(s) and log out {logouts} leaked session(s) at {base_url}?"


def _base_url(env: Mapping[str, str]) -> str:
    """Where leaked sessions are logged out: ``AIC_BASE_URL`` and nowhere else."""
    url = env.get("AIC_BASE_URL", "").strip()
    if not url:
        raise UsageError("AIC_BASE_URL is not set (the control plane's address)")
    return check_base_url(url, env.get("AIC_ALLOW_HTTP", "") == "1")


def _collect(opts: RevokeOptions, env: Mapping[str, str], console: Console) -> tuple[Plan, Scanned]:
    if not (opts.reports or opts.token_ids or opts.ids_from or opts.scan):
        raise UsageError("nothing to revoke: give a REPORT, --token-id, --ids-from or --scan")
    if opts.ids_from == STDIN and STDIN in opts.scan:
        raise UsageError("standard input can feed --ids-from - or --scan -, not both")
    findings, ids = gather(opts, console.stdin)
    scanned = scan_paths(opts.scan, console.stdin)
    with open_inventory(default_path(env), create=False) as inventory:
        return make_plan([*findings, *scanned.pats], ids, inventory), scanned


def revoke_leaked(
    opts: RevokeOptions,
    env: Mapping[str, str],
    console: Console,
    make_client: MakeClient = ControlPlaneClient,
) -> int:
    """Run ``revoke-leaked``; returns the exit status (errors raise HygieneError)."""
    plan, scanned = _collect(opts, env, console)
    sessions = scanned.sessions
    if opts.dry_run:
        would = [Result(t.token_id, t.fingerprint, WOULD_REVOKE) for t in plan.targets]
        would += [s.result(WOULD_LOG_OUT) for s in sessions]
        return _show(would + plan.unresolved, opts, console, scanned.errors)
    config = load_config(env, prompt=console.prompt) if plan.targets else None
    base_url = config.base_url if config is not None else _base_url(env) if sessions else ""
    asking = bool(base_url) and console.interactive and not opts.yes
    if asking and not console.confirm(_question(plan, sessions, base_url)):
        print("revoke-leaked: nothing revoked", file=console.stderr)
        return EXIT_FINDINGS
    results = []
    if config is not None:
        results += _revoke(plan, config, console, make_client, default_path(env))
    if sessions:
        results += _log_out(sessions, base_url, console)
    return _show(results + plan.unresolved, opts, console, scanned.errors)


__all__ = ["Console", "RevokeOptions", "gather", "revoke_leaked"]
