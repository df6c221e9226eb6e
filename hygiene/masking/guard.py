"""The stream guard: what the process writes to ``sys.stdout`` / ``sys.stderr``, masked.

Output that never goes through ``logging`` leaks too: ``print``, the traceback of an uncaught
exception (``sys.excepthook``), of an exception that ends a thread (``threading.excepthook``),
``sys.unraisablehook``'s report, ``http.client``'s ``debuglevel`` dump, ``http.server``'s
request log, debuggers. Each of these writes to ``sys.stdout`` or ``sys.stderr`` as it finds
them when it runs, so replacing both with a :class:`GuardedText` covers them all.

Lines are not delayed: every complete line is masked and written through at once; a partial
line waits for its newline or the next ``flush()`` (a secret may go on in the next write), and
never grows past ``_MAX_PENDING`` (past it, the part before a cut is masked with look-ahead, as
``hygiene mask`` does). Binary writes through ``.buffer`` are masked line by line the same way.

Not covered: writes to the file descriptors themselves (``os.write(1, ...)``, child
processes, ``faulthandler``): pipe those through ``hygiene mask``.
"""

from __future__ import annotations

import threading
from typing import Any, BinaryIO, Final, TextIO

from hygiene.masking.lines import mask_text
from hygiene.masking.stream import _KEEP, mask_block, mask_long_line

_MAX_PENDING: Final = 1 << 16


class GuardedBinary:
    """A binary stream (``sys.stdout.buffer``) whose lines are masked on the way through."""

    def __init__(self, raw: BinaryIO, before: Any = None) -> None:
        self._raw = raw
        self._pending = b""
        self._lock = threading.RLock()
        self._before = before  # flushes the text layer first, so output keeps its order

    def write(self, data: bytes | bytearray | memoryview) -> int:
        chunk = bytes(data)
        with self._lock:
            if self._before is not None:
                self._before()
            pending = self._pending + chunk if self._pending else chunk
            cut = pending.rfind(b"\n") + 1
            if cut:
                self._raw.write(mask_block(pending[:cut]))
            elif len(pending) > _MAX_PENDING:
                out, cut, runs_on = mask_long_line(pending, _MAX_PENDING - _KEEP)
                if runs_on and len(pending) < 2 * _MAX_PENDING:
                    cut = 0  # a value runs to the end of what was written: wait for its end
                else:
                    self._raw.write(out)
            self._pending = pending[cut:]
        return len(chunk)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._raw.write(mask_block(self._pending))
                self._pending = b""
            self._raw.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class GuardedText:
    """A text stream (``sys.stdout``, ``sys.stderr``) whose lines are masked on the way."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream
        self._pending = ""
        self._lock = threading.RLock()
        raw = getattr(stream, "buffer", None)
        self._buffer = GuardedBinary(raw, self._flush_pending) if raw is not None else None

    @property
    def buffer(self) -> Any:
        return self._buffer if self._buffer is not None else self.wrapped.buffer

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            return self.wrapped.write(text)  # the stream's own TypeError
        with self._lock:
            pending = self._pending + text if self._pending else text
            cut = pending.rfind("\n") + 1
            if cut:
                self.wrapped.write(mask_text(pending[:cut]))
            elif len(pending) > _MAX_PENDING:
                cut = self._write_long(pending)
            self._pending = pending[cut:]
        return len(text)

    def _write_long(self, pending: str) -> int:
        data = pending.encode("utf-8", "surrogatepass")
        out, used, runs_on = mask_long_line(data, _MAX_PENDING - _KEEP)
        if runs_on and len(data) < 2 * _MAX_PENDING:
            return 0  # a value runs to the end of what was written: wait for its end
        done = data[:used].decode("utf-8", "surrogatepass")
        self.wrapped.write(out.decode("utf-8", "surrogatepass"))
        return len(done)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def _flush_pending(self) -> None:
        with self._lock:
            if self._pending:
                self.wrapped.write(mask_text(self._pending))
                self._pending = ""

    def flush(self) -> None:
        self._flush_pending()
        self.wrapped.flush()

    def close(self) -> None:
        self.flush()
        self.wrapped.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    def __repr__(self) -> str:
        return f"<GuardedText {self.wrapped!r}>"
