"""The gate for long texts: whether any hint of a secret is in it, in one Hyperscan pass.

``mask()`` runs on every log record, and most hold no hint. On short texts a few substring
searches of the lowercased text decide that fastest; on a 1 KB text those searches cost about
6 µs (each multi-character search is a pass of its own), and one caseless Hyperscan pass
about 1 µs. Where the ``hyperscan`` wheel is missing, :func:`has_hint` returns ``None`` and
``mask()`` uses its substring gate.

The hints are a superset of what the rules need (``pat_aic_`` in any case, ``@`` alone), so a
text it passes as clean holds no secret ``mask()`` would find.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any, Final

from hygiene.masking.context import CONTEXT_HINTS
from hygiene.masking.keys import KEY_HINTS

_HINTS: Final = (
    *KEY_HINTS,
    "pat_aic_",
    "pat%5faic%5f",
    "bearer",
    "basic",
    "@",
    "\x1b",
    *CONTEXT_HINTS,
)
_LOCAL: Final = threading.local()


def has_hint(text: str) -> bool | None:
    """Whether ``text`` holds a hint; ``None`` when Hyperscan is not there to tell."""
    try:
        db, scratch, terminated = _LOCAL.hyperscan
    except AttributeError:
        if not _load():
            return None
        db, scratch, terminated = _LOCAL.hyperscan
    try:
        db.scan(text.encode("utf-8", "surrogatepass"), match_event_handler=_stop, scratch=scratch)
    except terminated:
        return True
    return False


def _stop(_id: int, _start: int, _end: int, _flags: int, _context: object) -> bool:
    return True  # the first hint answers the question: end the scan


def _load() -> bool:
    try:
        import hyperscan

        db = _database()
        # A scratch space per thread: records are masked on whichever thread logs them.
        _LOCAL.hyperscan = (db, hyperscan.Scratch(db), hyperscan.ScanTerminated)
    except Exception:  # no wheel for this platform, or it does not load
        return False
    return True


@functools.cache
def _database() -> Any:
    import hyperscan

    flags = hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[re.escape(h).encode() for h in _HINTS],
        ids=list(range(len(_HINTS))),
        elements=len(_HINTS),
        flags=[flags] * len(_HINTS),
    )
    return db
