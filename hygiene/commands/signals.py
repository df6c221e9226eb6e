"""SIGINT and SIGTERM for the commands that talk to the service.

While :func:`trapped` is active, a signal sets the command's
:class:`~hygiene.stopping.StopRequest`. Outside the domain's shielded parts it also raises
:class:`~hygiene.errors.Interrupted` at once (nothing was sent yet, nothing to wait for);
inside them (requests in flight, a new token's value being printed, the closing logout) it only
asks the run to stop and says so on standard error, and the command ends by itself with
``128 + signal`` (130 for SIGINT, 143 for SIGTERM). Further signals never cut the logout short:
the logout is bounded in time instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from hygiene.commands.progress import erase_first
from hygiene.stopping import StopRequest

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _say(text: str) -> None:
    # os.write, not print: a handler may run while the main thread is inside print().
    with contextlib.suppress(OSError):
        os.write(2, (erase_first() + text).encode("utf-8", "replace"))


@contextlib.contextmanager
def trapped(prog: str, stop: StopRequest | None = None) -> Iterator[StopRequest]:
    """Route SIGINT and SIGTERM to a stop request for the duration of the block."""
    stop = stop if stop is not None else StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop  # only the main thread can own signal handlers (tests run commands inline)
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        if stop.request(signum):
            raise stop.error()
        if stop.count == 1:
            _say(
                f"{prog}: {stop.name}: stopping: no new requests; waiting for those in flight, "
                "then logging out\n"
            )
        else:
            _say(f"{prog}: still stopping: logging out first (bounded in time)\n")

    previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


__all__ = ["SIGNALS", "trapped"]
