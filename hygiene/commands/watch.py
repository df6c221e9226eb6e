"""``hygiene watch PATH... [--revoke]``: follow live logs and deal with each new leak once.

Unattended by design: it never prompts (credentials come from ``AIC_EMAIL``/``AIC_PASSWORD``
or ``AIC_TOKEN``), stops cleanly on SIGTERM or SIGINT (exit 0), and exits 2 only when it cannot
start (no service configured for ``--revoke``, refused credentials, an unreadable state file).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from hygiene.commands.options import text_or_json
from hygiene.errors import EXIT_OK, ApiError, one_line
from hygiene.watch import Event, FileFollower, Responder, Seen, Stream, StreamFollower, Watcher
from hygiene.watch.folder import MAX_FILES, Folder, is_folder
from hygiene.watch.seen import path_key

PROG = "hygiene watch"


def _printer(fmt: str) -> Callable[[Event], None]:
    lock = threading.Lock()

    def emit(event: Event) -> None:
        line = event.as_json() if fmt == "json" else event.as_text()
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    return emit


def _notice(message: str) -> None:
    click.echo(f"{PROG}: {message}", err=True)


def _refused(path: str, reason: str) -> None:
    _notice(f"{click.format_filename(path)}: {reason}")


def _streams(paths: tuple[str, ...], from_start: bool, seen: Seen) -> list[Stream]:
    streams = []
    for path in paths:
        if path == "-":
            follower = StreamFollower(functools.partial(os.read, sys.stdin.fileno()))
            streams.append(Stream("<stdin>", follower, is_file=False))
        elif not is_folder(path):
            key = _key(seen, path)
            resume = seen.position(key) if key is not None else None
            file = FileFollower(path, from_start, resume=resume, on_refused=_refused)
            streams.append(Stream(path, file, key=key))
    return streams


def _key(seen: Seen, path: str) -> str | None:
    """A followed file's position is kept only with --state."""
    return path_key(path) if seen.path is not None else None


def _open_files_allowed() -> int:
    """How many folder files can be held open: the soft RLIMIT_NOFILE raised toward
    MAX_FILES (each followed file keeps a descriptor), less a margin for everything else."""
    import resource

    margin = 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    infinite = resource.RLIM_INFINITY
    want = MAX_FILES + margin
    if soft != infinite and soft < want:
        soft = want if hard == infinite else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return MAX_FILES if soft == infinite else max(1, min(MAX_FILES, soft - margin))


def _folders(paths: tuple[str, ...], from_start: bool, seen: Seen) -> list[Folder]:
    folders: list[Folder] = []
    limit = 0
    for path in paths:
        if path == "-" or not is_folder(path):
            continue
        limit = limit or _open_files_allowed()
        key = _key(seen, path)
        known = key is not None and seen.position(key) is not None
        if key is not None:
            with contextlib.suppress(OSError):  # gone since: listed as empty, waited on
                info = os.stat(path)
                seen.place(key, (info.st_dev, info.st_ino, 0))  # followed: a restart knows it
        folders.append(
            Folder(
                path,
                from_start,
                known,
                lambda p: seen.position(path_key(p)) if seen.path is not None else None,
                _refused,
                _notice,
                max(1, limit // (len(paths))),
            )
        )
    return folders


def _started(streams: list[Stream], folders: list[Folder], seen: Seen) -> list[Stream]:
    """Take every starting point now (folders listed, files' ends): what is appended from
    here on is read, however long the watcher takes to reach the service."""
    for folder in folders:
        for path, follower in folder.discover():
            streams.append(Stream(path, follower, key=_key(seen, path)))
    for stream in streams:
        if isinstance(stream.follower, FileFollower):
            stream.follower.prime()
    return streams


@contextmanager
def _stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    def handler(_signum: int, _frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _responder() -> Responder:
    from hygiene.api.config import load_config
    from hygiene.inventory import default_location

    responder = Responder(load_config(os.environ), default_location(os.environ))
    try:
        responder.check()
    except ApiError as exc:
        # Not fatal: the service may come back; each leak's event says what happened.
        click.echo(f"{PROG}: warning: {one_line(str(exc))}; acting on leaks anyway", err=True)
    return responder


@click.command(name="watch")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--revoke",
    is_flag=True,
    help="Revoke leaked PATs and log leaked sessions out (AIC_BASE_URL, credentials: see above).",
)
@text_or_json("text: one line an event; json: one JSON object a line.")
@click.option(
    "--state",
    type=click.Path(dir_okay=False, path_type=Path),
    help=(
        "Keep what was seen and done here (fingerprints only, appended): a restart acts on"
        " nothing twice, and --revoke acts on what earlier runs only reported or left open."
    ),
)
@click.option("--from-start", is_flag=True, help="Read files from their beginning, not their end.")
def command(
    paths: tuple[str, ...], revoke: bool, fmt: str, state: Path | None, from_start: bool
) -> int:
    """Follow PATHs (- is standard input) as `tail -F` does; report each new leak once.

    With --revoke, act without asking: a PAT is resolved through the token inventory and
    revoked (statuses revoked, not_found, unresolved, failed), a leaked session token is logged
    out with itself (logged_out, not_live, failed). Exit 0 after SIGTERM or SIGINT, or when
    standard input ends; 2 when it cannot start.

    --revoke reads the environment, never a prompt: the service from AIC_BASE_URL (leaked
    session tokens are sent there and nowhere else), credentials from AIC_EMAIL and
    AIC_PASSWORD or AIC_TOKEN, the organization from AIC_ORG_ID (default: your active one), and
    the token inventory from HYGIENE_INVENTORY (a SQLite file, default the per-user one, or a
    postgresql:// URL).

    A folder is followed recursively: files created in it later are read from their start.
    With --state, a restart resumes each file where the last run stopped.

    Only regular files are read: a path swapped for a symlink, FIFO or device is not followed
    (said once on stderr) until it is a regular file again; a path that is a symlink at start
    is followed to the file it names then, and no other.
    """
    seen = Seen.load(state)
    try:
        # The starting points are taken before the service is reached (a login may retry for
        # seconds): a leak written meanwhile is read, not skipped.
        folders = _folders(paths, from_start, seen)
        streams = _started(_streams(paths, from_start, seen), folders, seen)
        responder = _responder() if revoke else None
        stop = threading.Event()
        watcher = Watcher(streams, seen, _printer(fmt), responder, folders=folders)
        watcher.folder_key = functools.partial(_key, seen)
        watcher.notice, watcher.state_name = _notice, str(state or "<state>")
        try:
            with _stopped_by_signals(stop):
                # Said once the handlers are in place: a SIGTERM right after it stops cleanly.
                files = sum(1 for s in watcher.streams if s.is_file)
                _notice(
                    f"following {len(paths)} path(s) ({files} file(s)); stop with Ctrl-C or SIGTERM"
                )
                watcher.run(stop)
        finally:
            if responder is not None:
                responder.close()
    finally:
        seen.close()
    click.echo(f"{PROG}: stopped", err=True)
    return EXIT_OK
