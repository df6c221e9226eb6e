"""The gate for long texts: whether any hint of a secret is in it, in one Hyperscan pass.

``mask()`` runs on every log record, and most hold no hint. On short texts a few substring
searches of the lowercased text decide that fastest; on a 1 KB text those searches cost about
6 µs (each multi-character search is a pass of its own), and one caseless Hyperscan pass
about 1 µs. Where the ``hyperscan`` wheel is missing, :func:`has_hint` returns ``None`` and
``mask()`` uses its substring gate.

The hints are the core's rule table's (:func:`hygiene.ruletable.gate_hints`), each a literal
every match of its rule holds, searched in any case: a text it passes as clean holds no secret
``mask()`` would find.
"""

from __future__ import annotations

import re
import threading
from typing import Final

from hygiene.hyperscan_db import CASELESS, SINGLEMATCH, compile_all
from hygiene.ruletable import gate_hints

# Every rule's hints in any case (the PAT rules' `pat_aic_`, not the short texts' `AIC`).
_HINTS: Final = gate_hints(cased=False)[0]
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
    compiled = compile_all(
        [re.escape(h).encode() for h in _HINTS], [CASELESS | SINGLEMATCH] * len(_HINTS)
    )
    if compiled is None:  # no wheel for this platform, or it does not load
        return False
    # Held per thread as plain values: this runs on every log record, where even the helper's
    # one call more would show (records are masked on whichever thread logs them, and the
    # helper's scratch is this thread's).
    _LOCAL.hyperscan = (compiled.db, compiled.scratch(), compiled.terminated)
    return True
