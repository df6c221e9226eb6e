"""``revoke-leaked`` as a plain function: gather, scan, resolve, confirm, revoke, log out leaked
sessions, record. It returns an :class:`Outcome`; showing it is the command layer's job."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import (
    Config,
    Prompt,
    ask_password,
    read_config,
    read_deadline,
    service_url,
)
from hygiene.errors import HygieneError, UsageError, one_line
from hygiene.inventory import REVOKED as STATE_REVOKED
from hygiene.inventory import Inventory, Location, default_location, open_inventory
from hygiene.progress import ShowItems, ShowScan, no_items, no_scan
from hygiene.revoke.guide import inventory_note, question
from hygiene.revoke.inputs import Leak, check_token_id, load_report, parse_ids, read_ids
from hygiene.revoke.plan import (
    ALREADY_REVOKED,
    FAILED,
    NOT_FOUND,
    REVOKED,
    SETTLED,
    WOULD_LOG_OUT,
    WOULD_REVOKE,
    Plan,
    Result,
    make_plan,
)
from hygiene.revoke.run import revoke_all
from hygiene.revoke.scanned import STDIN, Scanned, scan_paths
from hygiene.revoke.sessions import (
    SessionTarget,
    learn_shape,
    log_out_all,
    service_shape,
    split_foreign,
    unproven,
)
from hygiene.stopping import StopRequest, run_bounded

# make_client(config, sleep=...): the sleep ends a worker's waits at once on a stop request.
MakeClient = Callable[..., ControlPlaneClient]
LOGOUT_BOUND = 15.0  # seconds the closing logout may take, retries included


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
    progress: ShowItems = no_items  # revoking, logging out: counts as answers arrive
    scan_progress: ShowScan = no_scan  # --scan
    stop: StopRequest = field(default_factory=StopRequest)  # set by the command's signals


@dataclass
class Outcome:
    """What the run did: one result per id, finding or session; files ``--scan`` could not read;
    ``declined`` when the user answered no (then nothing was sent)."""

    results: list[Result] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dry_run: bool = False
    declined: bool = False
    logout_error: str | None = None  # the closing logout failed (results still stand)
    notes: list[str] = field(default_factory=list)  # guidance, e.g. an empty inventory
    signum: int | None = None  # the run was stopped by this signal (what was sent is here)


def gather(opts: RevokeOptions, stdin: TextIO) -> tuple[list[Leak], list[str]]:
    """Leaks named by every report and every token id given, validated."""
    leaks = [leak for report in opts.reports for leak in load_report(report)]
    ids = [check_token_id(tid) for tid in opts.token_ids]
    if opts.ids_from == STDIN:
        ids += parse_ids(stdin, "<stdin>")
    elif opts.ids_from is not None:
        ids += read_ids(opts.ids_from)
    return leaks, ids


@dataclass
class Recorder:
    """Marks confirmed revocations in the inventory as they arrive: one transaction for each
    burst of answers (never more than the answers already in), so a kill loses at most what
    was in flight."""

    inventory: Inventory
    errors: list[str]
    pending: list[str] = field(default_factory=list)

    def add(self, result: Result) -> None:
        if result.status in (REVOKED, NOT_FOUND) and result.token_id:
            self.pending.append(result.token_id)

    def flush(self) -> None:
        done, self.pending = self.pending, []
        if not done:
            return
        try:
            self.inventory.mark(done, STATE_REVOKED)
        except (sqlite3.Error, HygieneError) as exc:
            self.errors.append(
                f"inventory: {len(done)} revoked token(s) could not be recorded "
                f"({', '.join(done[:3])}{'…' if len(done) > 3 else ''}): {exc}"
            )


def close_bounded(client: ControlPlaneClient, *, quiet: bool = False) -> str | None:
    """Log out and close within :data:`LOGOUT_BOUND`; the error message, if it failed."""
    try:
        run_bounded(lambda: client.close(quiet=quiet), LOGOUT_BOUND, "logout")
    except TimeoutError as exc:
        return f"{exc}; the session expires by itself"
    except HygieneError as exc:
        text = one_line(str(exc))
        return text if text.startswith("logout") else f"logout: {text}"
    return None


def _revoke(
    plan: Plan, config: Config, talk: Interaction, make_client: MakeClient, inventory_path: Location
) -> Outcome:
    outcome = Outcome()
    with open_inventory(inventory_path, create=False) as inventory:
        client = make_client(config, sleep=talk.stop.sleep)
        try:
            recorder = Recorder(inventory, outcome.errors)
            with talk.progress("revoking", len(plan.targets)) as progress:

                def done(result: Result) -> None:
                    recorder.add(result)
                    progress.item(failed=result.status not in SETTLED)

                outcome.results = revoke_all(
                    client,
                    plan.targets,
                    on_done=done,
                    on_drained=recorder.flush,
                    stop=talk.stop,
                )
        except BaseException:
            close_bounded(client, quiet=True)  # another error is already on its way
            raise
        outcome.logout_error = close_bounded(client)
    return outcome


def _log_out(
    sessions: list[SessionTarget], base_url: str, talk: Interaction, deadline: float | None
) -> list[Result]:
    if talk.stop.is_set():
        return [s.result(FAILED, None, "CANCELLED") for s in sessions]
    with talk.progress("logging out", len(sessions)) as progress:

        def done(result: Result) -> None:
            progress.item(failed=result.status not in SETTLED)

        return log_out_all(sessions, base_url, on_done=done, stop=talk.stop, deadline=deadline)


def _collect(
    opts: RevokeOptions, env: Mapping[str, str], stdin: TextIO, progress: ShowScan = no_scan
) -> tuple[Plan, Scanned]:
    if not (opts.reports or opts.token_ids or opts.ids_from or opts.scan):
        fields = ("reports", "token_ids", "ids_from", "scan")
        message = "nothing to revoke: give a {reports}, {token_ids}, {ids_from} or {scan}"
        raise UsageError(message, options=fields)
    if opts.ids_from == STDIN and STDIN in opts.scan:
        message = "standard input can feed {ids_from} - or {scan} -, not both"
        raise UsageError(message, options=("ids_from", "scan"))
    leaks, ids = gather(opts, stdin)
    if opts.scan:
        with progress("scanning") as counts:
            scanned = scan_paths(opts.scan, stdin, counts)
    else:
        scanned = Scanned()
    location = default_location(env)
    with open_inventory(location, create=False) as inventory:
        plan = make_plan([*leaks, *scanned.pats], ids, inventory)
        plan.note = inventory_note(location, inventory, plan)
    return plan, scanned


def _split(
    sessions: list[SessionTarget], env: Mapping[str, str]
) -> tuple[list[SessionTarget], list[Result]]:
    """The sessions that may be the service's, and the others as ``foreign`` results.

    The service's host comes from ``AIC_BASE_URL`` as written (a dry run needs no valid one:
    without it every JWT naming an issuer is foreign), its sessions' shape from ``AIC_TOKEN``.
    """
    url = env.get("AIC_BASE_URL", "").strip() or None
    shape = service_shape(env.get("AIC_TOKEN", "").strip() or None)
    return split_foreign(sessions, url, shape)


def _narrowed(
    sessions: list[SessionTarget], base_url: str, config: Config | None, env: Mapping[str, str]
) -> tuple[list[SessionTarget], list[Result], bool]:
    """Without ``AIC_TOKEN``, learn the service's session shape from a login of our own (the
    credentials given, never a new prompt) and set aside the sessions of another shape.

    Nothing is learned (the static rules alone hold) without credentials, or when the login
    does not work; the shape only narrows what is sent, it never widens it.
    """
    token = env.get("AIC_TOKEN", "").strip()
    if token:  # its shape, if a session's, is applied already; no login
        return sessions, [], service_shape(token) is not None
    email = config.email if config is not None else env.get("AIC_EMAIL", "").strip()
    password = config.password if config is not None else env.get("AIC_PASSWORD")
    if not email or not password:
        return sessions, [], False
    shape = learn_shape(base_url, email, password, deadline=read_deadline(env))
    if shape is None:
        return sessions, [], False
    return (*split_foreign(sessions, base_url, shape), True)


def _dry_run(
    plan: Plan, sessions: list[SessionTarget], foreign: list[Result], errors: list[str]
) -> Outcome:
    would = [
        Result(
            t.token_id, t.fingerprint, ALREADY_REVOKED if t.state == STATE_REVOKED else WOULD_REVOKE
        )
        for t in plan.targets
    ]
    would += [s.result(WOULD_LOG_OUT) for s in sessions]
    notes = [plan.note] if plan.note else []
    return Outcome([*would, *foreign, *plan.unresolved], errors, dry_run=True, notes=notes)


def revoke_leaked(
    opts: RevokeOptions,
    env: Mapping[str, str],
    talk: Interaction,
    make_client: MakeClient = ControlPlaneClient,
) -> Outcome:
    """Run ``revoke-leaked``; errors that stop the whole run raise HygieneError.

    Until the first request is sent a stop request raises Interrupted; from then on the run
    is shielded: it stops sending, lets requests in flight finish, logs out and returns what
    happened with ``signum`` set.
    """
    plan, scanned = _collect(opts, env, talk.stdin, talk.scan_progress)
    # Only what may be the service's own session is ever sent to it; the rest is reported.
    sessions, foreign = _split(scanned.sessions, env)
    if opts.dry_run:
        return _dry_run(plan, sessions, foreign, scanned.errors)
    # Everything is checked before the question, the password asked after it (as gh does):
    # a declined run never asked for one.
    config = read_config(env, can_ask=talk.prompt is not None) if plan.targets else None
    base_url = config.base_url if config is not None else service_url(env) if sessions else ""
    asking = bool(base_url) and talk.interactive and not opts.yes
    notes = [plan.note] if plan.note else []
    if asking and not talk.confirm(question(plan, sessions, base_url)):
        return Outcome(foreign, declined=True, notes=notes)
    talk.stop.check()
    if config is not None:
        config = ask_password(config, talk.prompt)
        talk.stop.check()
    with talk.stop.shield():
        outcome = Outcome(errors=list(scanned.errors), notes=notes)
        if config is not None:
            done = _revoke(plan, config, talk, make_client, default_location(env))
            outcome.results, outcome.logout_error = done.results, done.logout_error
            outcome.errors += done.errors
        shaped = False
        if sessions and not talk.stop.is_set():
            sessions, unlike, shaped = _narrowed(sessions, base_url, config, env)
            foreign += unlike
        if sessions:
            done_out = _log_out(sessions, base_url, talk, read_deadline(env))
            outcome.results += done_out if shaped else [unproven(r) for r in done_out]
        outcome.results += [*foreign, *plan.unresolved]
        outcome.signum = talk.stop.signum
    return outcome


__all__ = [
    "LOGOUT_BOUND",
    "Interaction",
    "Outcome",
    "RevokeOptions",
    "close_bounded",
    "gather",
    "revoke_leaked",
]
