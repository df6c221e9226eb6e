"""The watch loop: poll every followed stream, scan what was appended, report each new leak
once and, with a responder, act on it on a thread pool that never blocks the reading.

:meth:`Watcher.run` returns when ``stop`` is set (SIGTERM, SIGINT) or when every followed
stream has ended (standard input closed, no files): in-flight actions then get
``drain_timeout`` seconds to finish before the responder logs the watcher's session out.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Protocol

from hygiene.detection import AIC_PAT, Secret
from hygiene.revoke.plan import Result
from hygiene.scan.matcher import Hit
from hygiene.watch.appended import AppendScanner
from hygiene.watch.events import LOGOUT, REVOKE, Event
from hygiene.watch.follow import Piece
from hygiene.watch.seen import Seen

POLL_INTERVAL = 0.1
DRAIN_TIMEOUT = 10.0
ACTION_WORKERS = 4


class Follower(Protocol):
    busy: bool

    def poll(self) -> list[Piece]: ...

    def close(self) -> None: ...


class Actor(Protocol):
    def act(self, secret: Secret, where: str) -> Result: ...


@dataclass
class Stream:
    """One followed stream: what it is shown as, how it is read, how far it is scanned."""

    display: str
    follower: Follower
    scanner: AppendScanner = field(default_factory=AppendScanner.new)
    ended: bool = False
    is_file: bool = True


@dataclass
class Watcher:
    """Follows ``streams`` and calls ``emit`` (from any thread) once per new leak."""

    streams: Sequence[Stream]
    seen: Seen
    emit: Callable[[Event], None]
    actor: Actor | None = None
    poll_interval: float = POLL_INTERVAL
    clock: Callable[[], float] = time.monotonic
    _pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(ACTION_WORKERS, "hygiene-watch-act")
    )
    _pending: dict[str, Future[None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

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
        return all(s.ended and not s.is_file for s in self.streams)

    def step(self) -> bool:
        """One poll of every stream; True when a stream has more waiting already."""
        for stream in self.streams:
            pieces = stream.follower.poll()
            read_at = self.clock()
            for piece in pieces:
                self._scan(stream, piece, read_at)
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
        with self._lock:
            if self.seen.settled(fp) or fp in self._pending:
                return
            event = Event(fp, secret.type_id, secret.masked, path, hit.line, hit.column)
            if self.actor is None:
                self.seen.record(fp, event.status)
                self.emit(event)
                return
            self._pending[fp] = self._pool.submit(self._act, secret, event, read_at)

    def _act(self, secret: Secret, event: Event, read_at: float) -> None:
        assert self.actor is not None  # noqa: S101 - only submitted with an actor
        action = REVOKE if secret.type_id == AIC_PAT else LOGOUT
        where = f"{event.path}:{event.line}"
        try:
            result = self.actor.act(secret, where)
        except Exception as exc:  # one leak's failure never stops the watch
            result = Result(None, secret.fingerprint, "failed", None, type(exc).__name__)
        done = dataclasses.replace(
            event,
            action=action,
            status=result.status,
            token_id=result.token_id,
            http_status=result.http_status,
            error=result.error,
            latency=self.clock() - read_at,
        )
        with self._lock:
            self.seen.record(done.fingerprint, done.status)
            self._pending.pop(done.fingerprint, None)
        self.emit(done)

    def finish(self, drain_timeout: float) -> None:
        """Let in-flight actions finish (bounded), then release the streams."""
        with self._lock:
            pending = list(self._pending.values())
        wait(pending, timeout=drain_timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for stream in self.streams:
            stream.follower.close()


__all__ = ["ACTION_WORKERS", "DRAIN_TIMEOUT", "POLL_INTERVAL", "Stream", "Watcher"]
