"""A real pseudo-terminal for tests of what a person at a terminal sees and types.

The child runs with the terminal as its standard streams and controlling terminal
(``/dev/tty``, where ``getpass`` asks), as a shell starts it; its standard input may instead be
a pipe carrying data (``revoke-leaked --ids-from -``).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.helpers import SAFETY_TIMEOUT

COLUMNS = 160


class Screen:
    """A process on a pseudo-terminal of :data:`COLUMNS` columns; everything it writes."""

    def __init__(
        self,
        args: Sequence[str],
        env: dict[str, str],
        cwd: Path,
        *,
        stdin: bytes | None = None,
    ) -> None:
        piped = os.pipe() if stdin is not None else None
        self.pid, self.master = pty.fork()
        if self.pid == 0:  # the child: the terminal is its stdin, stdout, stderr and ctty
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, COLUMNS, 0, 0))
                if piped is not None:
                    os.dup2(piped[0], 0)
                    os.close(piped[1])
                os.chdir(cwd)
                os.execve(args[0], list(args), env)  # noqa: S606 - our own script, no shell
            finally:
                os._exit(127)
        if piped is not None and stdin is not None:
            os.close(piped[0])
            os.write(piped[1], stdin)  # small: fits the pipe's buffer
            os.close(piped[1])
        self.data = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                piece = os.read(self.master, 65536)
            except OSError:  # EIO: the child closed the terminal
                return
            if not piece:
                return
            self.data += piece

    @property
    def text(self) -> str:
        return bytes(self.data).decode("utf-8", "replace")

    def wait_for(self, condition: Callable[[str], bool], timeout: float = SAFETY_TIMEOUT) -> None:
        """Until ``condition(screen)``; past ``timeout`` (a hang, never a verdict) it fails."""
        deadline = time.monotonic() + timeout
        while not condition(self.text):
            assert time.monotonic() < deadline, f"never happened; screen: {self.text[-500:]!r}"
            time.sleep(0.02)

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def finish(self, timeout: float = SAFETY_TIMEOUT) -> int:
        """Wait for the exit (kill it past ``timeout``); its exit status."""
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(f"did not end; screen: {self.text[-500:]!r}")
            time.sleep(0.02)
        self._reader.join(5)
        os.close(self.master)
        return os.waitstatus_to_exitcode(status)
