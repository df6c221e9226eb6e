"""A real pseudo-terminal for tests of what a person at a terminal sees and answers.

The child runs in its own session with the terminal as its controlling one (``/dev/tty``), as
a shell gives it; standard input may be the terminal or a pipe (``--ids-from -``).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence


class Terminal:
    """``argv`` running on a new pseudo-terminal; :meth:`expect` reads until text appears."""

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], *, stdin: bytes | None = None
    ) -> None:
        self._master, slave = pty.openpty()
        self.seen = b""
        self.proc = subprocess.Popen(
            list(argv),
            stdin=slave if stdin is None else subprocess.PIPE,
            stdout=slave,
            stderr=slave,
            env=dict(env),
            start_new_session=True,
            # The new session's controlling terminal: what getpass opens as /dev/tty.
            preexec_fn=lambda: fcntl.ioctl(1, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        if stdin is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(stdin)
            self.proc.stdin.close()

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Read until ``text`` has appeared; everything seen so far, decoded."""
        deadline = time.monotonic() + timeout
        while text.encode() not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{text!r} never appeared; seen: {self.seen!r}")
        return self.seen.decode(errors="replace")

    def send(self, text: str) -> None:
        os.write(self._master, text.encode())

    def finish(self, timeout: float = 60.0) -> tuple[int, str]:
        """Wait for the exit; the exit status and everything the terminal showed."""
        deadline = time.monotonic() + timeout
        while self._read(max(0.0, deadline - time.monotonic())):
            pass
        code = self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self._master)
        return code, self.seen.decode(errors="replace")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self._master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self._master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        self.seen += chunk
        return bool(chunk)
