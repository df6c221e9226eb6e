"""Baselines: ``{"version": 1, "fingerprints": ["sha256:..."]}``, a sorted list, nothing
positional (so lines can move and merges do not conflict)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hygiene.atomic import write_atomically
from hygiene.errors import InputError
from hygiene.fingerprints import FINGERPRINT_PATTERN
from hygiene.safefile import read_input_text

BASELINE_VERSION = 1
_FINGERPRINT = re.compile(FINGERPRINT_PATTERN)


def load_baseline(path: str) -> frozenset[str]:
    """The fingerprints listed in the baseline at ``path``; anything malformed is an error."""
    import json  # here, as in render_baseline: a scan without a baseline never needs it

    # A regular file of bounded size (a baseline swapped for /dev/zero, a FIFO or a huge file
    # is an exit-2 error naming it, never a hang).
    text = read_input_text(path, "baseline")
    try:
        doc = json.loads(text)
    except ValueError:
        raise InputError(f"baseline {path}: not valid JSON") from None
    if not isinstance(doc, dict) or doc.get("version") != BASELINE_VERSION:
        raise InputError(f'baseline {path}: expected {{"version": 1, "fingerprints": [...]}}')
    prints = doc.get("fingerprints")
    if not isinstance(prints, list) or not all(
        isinstance(p, str) and _FINGERPRINT.fullmatch(p) for p in prints
    ):
        raise InputError(
            f'baseline {path}: "fingerprints" must be a list of sha256:<hex> or scrypt:<hex>'
        )
    return frozenset(prints)


def render_baseline(fingerprints: Iterable[str]) -> str:
    """The baseline document for ``fingerprints`` (sorted, deduplicated)."""
    doc = {"version": BASELINE_VERSION, "fingerprints": sorted(set(fingerprints))}
    import json

    return json.dumps(doc, indent=2) + "\n"


def write_baseline(path: str, fingerprints: Iterable[str]) -> None:
    """Write the baseline atomically (a reader never sees half a file)."""
    write_atomically(path, render_baseline(fingerprints))
