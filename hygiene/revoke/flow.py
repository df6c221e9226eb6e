"""``revoke-leaked`` as a plain function: gather, scan, resolve, confirm, revoke, log out leaked
sessions, record. It returns an :class:`Outcome`; showing it is the command layer's job."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config, Prompt, load_config, read_deadline, service_url
from hygiene.errors import InputError, UsageError
from hygiene.inventory import REVOKED as STATE_REVOKED
from hygiene.inventory import default_path, open_inventory
from hygiene.revoke.inputs import Leak, check_token_id, load_report, parse_ids
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

Tick = Callable[[Result], None]
# progress(label, total): a context in which tick(result) is called once per result.
Progress = Callable[[str, int], contextlib.AbstractContextManager[Tick]]
MakeClient = Callable[[Config], ControlPlaneClient]


@contextlib.contextmanager
def no_progress(_label: str, _total: int) -> Iterator[Tick]:
    """A :data:`Progress` that shows nothing."""
    yield lambda _result: None


@dataclass(frozen=True)
class RevokeOptions:
    """What the user asked for (minus anything secret, and minus how to show it)."""

    reports: tuple[Path, ...] = ()
    token_ids: tuple[str, ...] = ()
    ids_from: str | None = None  # a file, or "-" for standard input
    dry_run: bool = False
    yes: bool = False
    scan: tuple[str, ...] = ()  # files, folders or "-" scanned in this process


@dataclass
class Interaction:
    """How the run reaches the user, supplied by the command layer."""

    stdin: TextIO  # what `--ids-from -` and `--scan -` read
    interactive: bool = False  # a person can answer: confirm, prompt for a password
    confirm: Callable[[str], bool] = lambda _question: True
    prompt: Prompt | None = None
    progress: Progress = no_progress


@dataclass
class Outcome:
    """What the run did: one result per id, finding or session; files ``--scan`` could not read;
    ``declined`` when the user answered no (then nothing was sent)."""

    results: list[Result] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dry_run: bool = False
    declined: bool = False


def gather(opts: RevokeOptions, stdin: TextIO) -> tuple[list[Leak], list[str]]:
    """Leaks named by every report and every token id given, validated."""
    leaks = [leak for report in opts.reports for leak in load_report(report)]
    ids = [check_token_id(tid) for tid in opts.token_ids]
    if opts.ids_from == STDIN:
        ids += parse_ids(stdin, "<stdin>")
    elif opts.ids_from is not None:
        try:
            text = Path(opts.ids_from).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            message = f"cannot read {{ids_from}} {opts.ids_from}: {exc}"
            raise InputError(message, options=("ids_from",)) from None
        ids += parse_ids(text.splitlines(), opts.ids_from)
    return leaks, ids


def _record(inventory_path: Path, results: list[Result]) -> None:
    done = [r.token_id for r in results if r.status in (REVOKED, NOT_FOUND) and r.token_id]
    if done:
        with open_inventory(inventory_path, create=False) as inventory:
            inventory.mark(done, STATE_REVOKED)


def _revoke(
    plan: Plan, config: Config, talk: Interaction, make_client: MakeClient, inventory: Path
) -> list[Result]:
    arrived: list[Result] = []
    try:
        with make_client(config) as client, talk.progress("Revoking", len(plan.targets)) as tick:

            def done(result: Result) -> None:
                arrived.append(result)
                tick(result)

            return revoke_all(client, plan.targets, on_done=done)
    finally:
        # Also when the run stops partway (AUTH_FAILED, Ctrl-C): what was revoked is recorded.
        _record(inventory, arrived)


def _log_out(
    sessions: list[SessionTarget], base_url: str, talk: Interaction, deadline: float | None
) -> list[Result]:
    with talk.progress("Logging out", len(sessions)) as tick:
        return log_out_all(sessions, base_url, on_done=tick, deadline=deadline)


def _question(plan: Plan, sessions: list[SessionTarget], base_url: str) -> str:
    pats, logouts = len(plan.targets), len(sessions)
    if not logouts:
        return f"Revoke {pats} token(s) at {base_url}?"
    if not pats:
        return f"Log out {logouts} leaked session(s) at {base_url}?"
    return f"Revoke {pats} token(s) and log out {logouts} leaked session(s) at {base_url}?"


def _collect(opts: RevokeOptions, env: Mapping[str, str], stdin: TextIO) -> tuple[Plan, Scanned]:
    if not (opts.reports or opts.token_ids or opts.ids_from or opts.scan):
        fields = ("reports", "token_ids", "ids_from", "scan")
        message = "nothing to revoke: give a {reports}, {token_ids}, {ids_from} or {scan}"
        raise UsageError(message, options=fields)
    if opts.ids_from == STDIN and STDIN in opts.scan:
        message = "standard input can feed {ids_from} - or {scan} -, not both"
        raise UsageError(message, options=("ids_from", "scan"))
    leaks, ids = gather(opts, stdin)
    scanned = scan_paths(opts.scan, stdin)
    with open_inventory(default_path(env), create=False) as inventory:
        return make_plan([*leaks, *scanned.pats], ids, inventory), scanned


def revoke_leaked(
    opts: RevokeOptions,
    env: Mapping[str, str],
    talk: Interaction,
    make_client: MakeClient = ControlPlaneClient,
) -> Outcome:
    """Run ``revoke-leaked``; errors that stop the whole run raise HygieneError."""
    plan, scanned = _collect(opts, env, talk.stdin)
    sessions = scanned.sessions
    if opts.dry_run:
        would = [Result(t.token_id, t.fingerprint, WOULD_REVOKE) for t in plan.targets]
        would += [s.result(WOULD_LOG_OUT) for s in sessions]
        return Outcome(would + plan.unresolved, scanned.errors, dry_run=True)
    config = load_config(env, prompt=talk.prompt) if plan.targets else None
    base_url = config.base_url if config is not None else service_url(env) if sessions else ""
    asking = bool(base_url) and talk.interactive and not opts.yes
    if asking and not talk.confirm(_question(plan, sessions, base_url)):
        return Outcome(declined=True)
    results = []
    if config is not None:
        results += _revoke(plan, config, talk, make_client, default_path(env))
    if sessions:
        results += _log_out(sessions, base_url, talk, read_deadline(env))
    return Outcome(results + plan.unresolved, scanned.errors)


__all__ = [
    "Interaction",
    "Outcome",
    "Progress",
    "RevokeOptions",
    "gather",
    "no_progress",
    "revoke_leaked",
]
