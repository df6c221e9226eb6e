"""Hyperscan, loaded one way for every part that uses it (the scanner's needle finder, the
decoders' needles, the masking gate and the ``hygiene mask`` stream).

The ``hyperscan`` wheel is optional in practice: it exists for the mainstream platforms only,
and its import costs milliseconds a pre-commit run over a few files never needs. So it is
imported here, on first use, and its absence (or a wheel that does not load) is an answer,
``None``, never an error: each caller then has its pure-Python way. A database is compiled
once per process for each set of expressions (compiling costs a millisecond, a scan a few
microseconds); a scratch space, which one scan at a time may use, is kept per thread and per
database (records are masked on whichever thread logs them).

This module imports nothing of the package: the scanner and the masking both stand on it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import hyperscan

# Hyperscan's own flag values (hs_compile.h), so that callers name them without importing
# the wheel: in any case; report each expression once per scan.
CASELESS = 1
SINGLEMATCH = 8

# Hyperscan's callback: expression id, start, end, flags, context; True ends the scan.
OnMatch = Callable[[int, int, int, int, object], "bool | None"]


class Compiled:
    """One compiled database and its per-thread scratch spaces."""

    def __init__(self, db: hyperscan.Database, terminated: type[Exception]) -> None:
        self.db = db
        # What a scan raises when a callback ended it (the wheel's ScanTerminated).
        self.terminated = terminated
        self._local = threading.local()

    def scratch(self) -> hyperscan.Scratch:
        """This thread's scratch space for this database (made on first use)."""
        space: hyperscan.Scratch | None = getattr(self._local, "space", None)
        if space is None:
            import hyperscan

            space = self._local.space = hyperscan.Scratch(self.db)
        return space

    def scan(self, data: bytes | memoryview, on_match: OnMatch) -> bool:
        """Scan ``data``, calling ``on_match`` for each match; True when a callback ended the
        scan early (by returning True)."""
        try:
            # The wheel reads any buffer; its stubs say str or bytes.
            self.db.scan(data, match_event_handler=on_match, scratch=self.scratch())  # type: ignore[type-var]
        except self.terminated:
            return True
        return False


def literal(text: bytes) -> bytes:
    """``text`` as an expression matching exactly its bytes: every byte as ``\\xHH``
    (Hyperscan reads an expression as a C string, so a NUL would end it)."""
    return b"".join(b"\\x%02x" % byte for byte in text)


@functools.cache
def compiled(expressions: tuple[bytes, ...], flags: tuple[int, ...]) -> Compiled | None:
    """``expressions`` (ids: their indexes) with their ``flags`` (:data:`CASELESS`,
    :data:`SINGLEMATCH`, or'ed) in one block-mode database, compiled once per process; None
    where the wheel is missing or fails to load or compile (the caller's Python way then
    answers)."""
    return compile_new(expressions, flags)


def compile_new(expressions: Sequence[bytes], flags: Sequence[int]) -> Compiled | None:
    """:func:`compiled`, compiled at each call and kept by no one here: for sets that vary
    with the input, which the caller keeps a bounded number of."""
    try:
        import hyperscan

        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(
            expressions=list(expressions),
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=list(flags),
        )
    except Exception:  # no wheel for this platform, or it does not load
        return None
    return Compiled(db, hyperscan.ScanTerminated)


def compile_all(expressions: Sequence[bytes], flags: Sequence[int]) -> Compiled | None:
    """:func:`compiled` for any sequences (made tuples, so the cache can key them)."""
    return compiled(tuple(expressions), tuple(flags))


__all__ = [
    "CASELESS",
    "SINGLEMATCH",
    "Compiled",
    "OnMatch",
    "compile_all",
    "compile_new",
    "compiled",
    "literal",
]
