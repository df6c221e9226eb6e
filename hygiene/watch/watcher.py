"""The watch loop: poll every followed stream, scan what was appended, report each new leak
once and, with a responder, act on it on a thread pool that never blocks the reading.

:meth:`Watcher.run` returns when ``stop`` is set (SIGTERM, SIGINT) or when every followed
stream has ended (standard input closed, no files or folders): in-flight actions then get
``drain_timeout`` seconds to finish before the responder logs the watcher's session out.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from hygiene.detection import AIC_PAT, PAT_PREFIX, Secret, masked_form
from hygiene.revoke.plan import UNRESOLVED, Result
from hygiene.scan.matcher import Hit
from hygiene.watch.actions import ACTION_QUEUE, ACTION_WORKERS, Actions, Leak
from hygiene.watch.appended import AppendScanner
from hygiene.watch.events import LOGOUT, REVOKE, Event
from hygiene.watch.folder import Folder
from hygiene.watch.follow import Piece
from hygiene.watch.seen import DEFERRED, REPORT, Position, Record, Seen
from hygiene.watch.seen import REVOKE as MODE_REVOKE

POLL_INTERVAL = 0.1
LIST_INTERVAL = 1.0  # folders listed again, and positions recorded, at most this often
DRAIN_TIMEOUT = 10.0
QUEUED = "queued"  # recorded when an action is queued: a stop before it ran leaves it open


class Follower(Protocol):
    busy: bool

    def poll(self) -> list[Piece]: ...

    def position(self, held: int) -> Position | None: ...

    def close(self) -> None: ...


class Actor(Protocol):
    def triage(self, fingerprint: str, type_id: str) -> Result | None: ...

    def generation(self) -> int: ...

    def act(self, secret: Secret, where: str) -> Result: ...

    def revoke(self, fingerprint: str) -> Result: ...


@dataclass
class Stream:
    """One followed stream: what it is shown as, how it is read, how far it is scanned."""

    display: str
    follower: Follower
    scanner: AppendScanner = field(default_factory=AppendScanner.new)
    ended: bool = False
    is_file: bool = True
    key: str | None = None  # its position is kept under this key (with --state)


def _quiet(_message: str) -> None:
    """No notices."""


@dataclass
class Watcher:
    """Follows ``streams`` and calls ``emit`` (from any thread) once per new leak; ``notice``
    gets what the user should know besides (a full action queue)."""

    streams: list[Stream]
    seen: Seen
    emit: Callable[[Event], None]
    actor: Actor | None = None
    poll_interval: float = POLL_INTERVAL
    clock: Callable[[], float] = time.monotonic
    notice: Callable[[str], None] = _quiet
    queue_limit: int = ACTION_QUEUE
    state_name: str = "<state>"
    folders: Sequence[Folder] = ()
    folder_key: Callable[[str], str | None] = lambda _path: None
    _listed_at: float | None = None
    _actions: Actions | None = None
    _generation: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._actions = Actions(self._act, self.queue_limit)

    def run(self, stop: threading.Event, drain_timeout: float = DRAIN_TIMEOUT) -> None:
        """Watch until ``stop`` is set or every stream has ended; then let actions finish."""
        try:
            while not stop.is_set() and not self._all_ended():
                busy = self.step()
                if not busy:
                    stop.wait(self.poll_interval)
        finally:
            self.finish(drain_timeout)

    def _all_ended(self) -> bool:
        return not self.folders and all(s.ended and not s.is_file for s in self.streams)

    def _every_second(self) -> None:
        """New files in the followed folders; each file's position, kept for a restart."""
        now = self.clock()
        if self._listed_at is not None and now - self._listed_at < LIST_INTERVAL:
            return
        self._listed_at = now
        for folder in self.folders:
            for path, follower in folder.discover():
                self.streams.append(Stream(path, follower, key=self.folder_key(path)))
            if folder.gone:
                self._drop({id(f) for f in folder.gone})
        self.save_positions()

    def _drop(self, gone: set[int]) -> None:
        """Deleted files of a folder: what is left of each is read and scanned, then closed."""
        kept = []
        for stream in self.streams:
            if id(stream.follower) not in gone:
                kept.append(stream)
                continue
            read_at = self.clock()
            for piece in [*stream.follower.poll(), Piece(b"", ended=True)]:
                self._scan(stream, piece, read_at)
            stream.follower.close()
        self.streams[:] = kept

    def save_positions(self) -> None:
        """Record where each file stands, up to what was scanned (a partial last line is
        read again by a restart, whole)."""
        for stream in self.streams:
            if stream.key is None:
                continue
            position = stream.follower.position(len(stream.scanner.held))
            if position is not None:
                self.seen.place(stream.key, position)

    def step(self) -> bool:
        """One poll of every stream; True when a stream has more waiting already."""
        self._retry_from_state()
        self._every_second()
        for stream in self.streams:
            pieces = stream.follower.poll()
            read_at = self.clock()
            for piece in pieces:
                self._scan(stream, piece, read_at)
        assert self._actions is not None  # noqa: S101 - made in __post_init__
        self._actions.refill()
        self.seen.sync()
        return any(s.follower.busy for s in self.streams)

    def _scan(self, stream: Stream, piece: Piece, read_at: float) -> None:
        if piece.first_line is not None:
            stream.scanner.line = piece.first_line
        hits = stream.scanner.push(piece.data) if piece.data else []
        if piece.ended:
            hits += stream.scanner.flush()
            stream.scanner = AppendScanner(stream.scanner.finder)
            stream.ended = not stream.is_file
        for hit in hits:
            self._found(hit, stream.display, read_at)

    def _found(self, hit: Hit, path: str, read_at: float) -> None:
        secret = hit.secret
        fp = secret.fingerprint
        assert self._actions is not None  # noqa: S101 - made in __post_init__
        with self._lock:
            if self._actions.busy_with(fp) or self.seen.settled(fp, self.actor is not None):
                return
            event = Event(fp, secret.type_id, secret.masked, path, hit.line, hit.column)
            if self.actor is None:
                self._record(event, REPORT)
                self.emit(event)
                return
            leak = Leak(event, secret, read_at)
            quick = self.actor.triage(fp, secret.type_id)
            if quick is not None:
                self._settled(leak, quick)
            else:
                self._offer(leak)

    def _offer(self, leak: Leak) -> None:
        assert self._actions is not None  # noqa: S101 - made in __post_init__
        if self._actions.offer(leak):
            self._record(leak.event, MODE_REVOKE, QUEUED)
            return
        self._record(leak.event, MODE_REVOKE, DEFERRED)
        if self._actions.deferred == 1:
            self.notice("the action queue is full: leaks are deferred (recorded, acted on in turn)")

    def _retry_from_state(self) -> None:
        """PATs left open in the state (only reported, unresolved, failed, deferred) are acted
        on by fingerprint: at start, and again for unresolved ones when the inventory changes."""
        if self.actor is None:
            return
        generation = self.actor.generation()
        if generation == self._generation:
            return
        first, self._generation = self._generation is None, generation
        assert self._actions is not None  # noqa: S101 - made in __post_init__
        with self._lock:
            for record in self.seen.unsettled():
                if record.type not in (AIC_PAT, "") or self._actions.busy_with(record.fingerprint):
                    continue
                if not first and record.status != UNRESOLVED:
                    continue
                if self.actor.triage(record.fingerprint, AIC_PAT) is not None:
                    continue  # still not in the inventory: nothing new to say
                masked = record.masked or masked_form(PAT_PREFIX)
                event = Event(record.fingerprint, AIC_PAT, masked, self.state_name, 0, 0)
                self._offer(Leak(event, None, self.clock()))

    def _settled(self, leak: Leak, result: Result) -> None:
        """An answer without an action (a PAT the inventory does not know): said once, not
        again while it stays the same."""
        before = self.seen.get(leak.fingerprint)
        if result.status == UNRESOLVED and before is not None and before.status == UNRESOLVED:
            return
        self._done(leak, result)

    def _act(self, leak: Leak) -> None:
        assert self.actor is not None  # noqa: S101 - only queued with an actor
        secret = leak.secret
        where = f"{leak.event.path}:{leak.event.line}"
        try:
            if secret is None:
                result = self.actor.revoke(leak.fingerprint)
            else:
                result = self.actor.act(secret, where)
        except Exception as exc:  # one leak's failure never stops the watch
            result = Result(None, leak.fingerprint, "failed", None, type(exc).__name__)
        with self._lock:
            self._done(leak, result)

    def _done(self, leak: Leak, result: Result) -> None:
        action = REVOKE if leak.event.type == AIC_PAT else LOGOUT
        done = dataclasses.replace(
            leak.event,
            action=action,
            status=result.status,
            token_id=result.token_id,
            http_status=result.http_status,
            error=result.error,
            latency=self.clock() - leak.read_at,
        )
        self._record(done, MODE_REVOKE)
        self.emit(done)

    def _record(self, event: Event, mode: str, status: str | None = None) -> None:
        status = status or event.status
        self.seen.record(Record(event.fingerprint, status, mode, event.type, event.masked))

    def finish(self, drain_timeout: float) -> None:
        """Let in-flight actions finish (bounded), say what was deferred, release the streams."""
        assert self._actions is not None  # noqa: S101 - made in __post_init__
        self._actions.finish(drain_timeout)
        if self._actions.deferred:
            self.notice(
                f"{self._actions.deferred} leak(s) found the action queue full and were deferred;"
                f" {self._actions.waiting() + self._actions.overflow} not acted on yet"
                " (recorded as deferred: a --revoke run with the same --state acts on them)"
            )
        self.save_positions()
        self.seen.sync()
        for stream in self.streams:
            stream.follower.close()


__all__ = [
    "ACTION_WORKERS",
    "DRAIN_TIMEOUT",
    "LIST_INTERVAL",
    "POLL_INTERVAL",
    "QUEUED",
    "Stream",
    "Watcher",
]
