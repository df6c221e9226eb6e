"""Find: the byte scanner and everything around it (sources, baselines, reports).

Callers in the same process use :func:`run_scan`; each :class:`Detection` of the result pairs a
printable :class:`Finding` with its :class:`~hygiene.detection.Secret` (``keep_secrets=True``).
"""

from __future__ import annotations

from hygiene.scan.findings import Detection, Finding, ScanResult
from hygiene.scan.request import ScanRequest, run_scan

__all__ = ["Detection", "Finding", "ScanRequest", "ScanResult", "run_scan"]
