"""The sources: files and ``--exclude`` (``files``), gzip, the git index (``staged``), git
history (``history``: its ``scope``, the ``objects`` listed, the ``blobs`` read in batches, in
workers past a size by ``blobpool``, and their ``attribution``), and the runs over files, serial (``runner``, ``one_file``) and in worker
processes (``parallel``). Each reads as the scan's one
:class:`~hygiene.scan.scancontext.ScanContext` says, turns what it reads into hits of the
matcher and returns them as a :class:`~hygiene.scan.findings.ScanResult` (merged by the
caller with :meth:`~hygiene.scan.findings.ScanResult.add`).

Only the sources every scan needs are imported here; ``staged``, ``history`` and ``parallel``
start git or worker processes and are imported where they are used, so a pre-commit run over
a few files never pays for them.
"""

from __future__ import annotations

from hygiene.scan.sources.files import Excluder, FileTarget, collect_paths
from hygiene.scan.sources.runner import merge, scan_targets
from hygiene.scan.sources.tracked import tracked_files

__all__ = ["Excluder", "FileTarget", "collect_paths", "merge", "scan_targets", "tracked_files"]
