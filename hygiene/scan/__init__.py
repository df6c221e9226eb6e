"""Find: the byte scanner and everything around it (sources, baselines, reports).

Callers in the same process use :func:`run_scan`; each :class:`Detection` of the result pairs a
printable :class:`Finding` with its :class:`~hygiene.detection.Secret` (``keep_secrets=True``).
"""

from __future__ import annotations

import typing

if typing.TYPE_CHECKING:
    from hygiene.scan.findings import Detection, Finding, ScanResult
    from hygiene.scan.request import ScanRequest, run_scan


def __getattr__(name: str) -> object:
    # Loaded on first use: `hygiene mask` reads the decoders (hygiene.scan.decoders), whose
    # import runs this package first, and needs none of the sources a scan runs through (a
    # tenth of its start-up where Python compiles the sources).
    if name in ("Detection", "Finding", "ScanResult"):
        from hygiene.scan import findings

        value: object = getattr(findings, name)
    elif name in ("ScanRequest", "run_scan"):
        from hygiene.scan import request

        value = getattr(request, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # (looked up once)
    return value


__all__ = ["Detection", "Finding", "ScanRequest", "ScanResult", "run_scan"]
