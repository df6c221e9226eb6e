"""Stopping a command cleanly: a stop request the command layer sets from its signal handlers,
and the domain reads.

The command layer owns the signals (``hygiene/commands/signals.py``); the domain only sees a
:class:`StopRequest`: it checks :meth:`StopRequest.is_set` between steps, marks the threads
whose pending waits must end at once (:meth:`StopRequest.worker`, then every
:meth:`StopRequest.sleep` in them raises :class:`~hygiene.errors.Interrupted`: a request
waiting for its rate-limit slot or for a retry is never sent), and runs the parts that must
not be cut short (a request in flight, printing a new token's value, the closing logout)
inside :meth:`StopRequest.shield`. :func:`run_bounded` bounds a step in time (the logout).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from hygiene.errors import Interrupted

T = TypeVar("T")


class StopRequest:
    """Set once a stop was asked for (by a signal); thread-safe."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._shields = 0
        self.signum: int | None = None  # the first signal received
        self.count = 0  # how many stop requests arrived (a second Ctrl-C: hurry)

    def request(self, signum: int) -> bool:
        """Ask to stop; True when the caller may interrupt the main thread now (no shield)."""
        with self._lock:
            self.count += 1
            if self.signum is None:
                self.signum = signum
            self._event.set()
            return self._shields == 0

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a stop request; True when there is one."""
        return self._event.wait(timeout)

    @property
    def name(self) -> str:
        """The signal's name (``SIGINT``), or ``stop`` when set without a signal."""
        if self.signum is None:
            return "stop"
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    def error(self, message: str = "interrupted") -> Interrupted:
        """The exception that ends the command with ``128 + signal`` (130 without one)."""
        return Interrupted(self.signum or signal.SIGINT, f"{message} ({self.name})")

    def check(self) -> None:
        """Raise :class:`~hygiene.errors.Interrupted` when a stop was asked for."""
        if self.is_set():
            raise self.error()

    @contextlib.contextmanager
    def shield(self) -> Iterator[None]:
        """A part that must run to its end: signals only set the request meanwhile."""
        with self._lock:
            self._shields += 1
        try:
            yield
        finally:
            with self._lock:
                self._shields -= 1

    @contextlib.contextmanager
    def worker(self) -> Iterator[None]:
        """Mark this thread: its :meth:`sleep` calls end with Interrupted once stopped."""
        self._local.worker = True
        try:
            yield
        finally:
            self._local.worker = False

    def sleep(self, seconds: float) -> None:
        """A sleep to give a client: in a worker thread it ends early (raising) on a stop."""
        if not getattr(self._local, "worker", False):
            time.sleep(seconds)
            return
        if self._event.is_set() or self._event.wait(seconds):
            raise self.error("stopped while waiting to send")


def run_bounded(func: Callable[[], T], seconds: float, name: str) -> T:
    """Run ``func`` in a helper thread and wait at most ``seconds`` for it.

    Its exception is raised here; when it takes longer, :class:`TimeoutError` (the thread is a
    daemon: it cannot keep the process alive).
    """
    values: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            values.append(func())
        except BaseException as exc:  # handed to the waiting thread
            errors.append(exc)

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise TimeoutError(f"{name}: no answer within {seconds:g} s")
    if errors:
        raise errors[0]
    return values[0]


__all__ = ["StopRequest", "run_bounded"]
