"""Scan what a request names and return one :class:`~hygiene.scan.findings.ScanResult`.

The one function other parts call (``hygiene scan``, ``revoke-leaked --scan``, ``--verify``):
``run_scan(ScanRequest(paths=("src",), keep_secrets=True))``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import BinaryIO

from hygiene.errors import UsageError
from hygiene.progress import ScanProgress
from hygiene.scan.findings import ScanResult
from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.matcher.allowlines import Searcher
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE
from hygiene.scan.scancontext import Notice, ScanContext
from hygiene.scan.sources.files import Excluder, check_usage, collect_paths
from hygiene.scan.sources.one_file import scan_stream
from hygiene.scan.sources.runner import merge, scan_targets
from hygiene.scan.sources.tracked import skipped_note, tracked_files

STDIN = "-"
STDIN_DISPLAY = "<stdin>"


@dataclass(frozen=True)
class ScanRequest:
    """What to scan. ``keep_secrets`` keeps each detection's token in memory for the caller
    (and the scan in this process); without it, big scans may use worker processes."""

    paths: tuple[str, ...] = ()
    staged: bool = False
    all_files: bool = False
    history: bool = False
    # With ``history``: leave out what these revisions reach (one, or several; ``A..B`` is
    # ``refs=("B",)`` and since ``A``).
    since: str | tuple[str, ...] | None = None
    excludes: tuple[str, ...] = ()
    keep_secrets: bool = False
    chunk_size: int = DEFAULT_CHUNK_SIZE
    limits: DecodeLimits = field(default_factory=DecodeLimits)
    # The settings' line allowlist (bytes patterns, searched near findings only).
    allow_lines: tuple[Searcher[bytes], ...] = ()
    # Whether inline markers (`hygiene: allow`, `pragma: allowlist secret`) hide their line's
    # findings: yes in tracked source (detect-secrets' convention), no in logs, where anyone
    # who gets a line written (a User-Agent, a query string) could write a marker.
    markers: bool = True
    # Told (one line) when the scan waits, e.g. for a writer to open a FIFO named as a path.
    on_wait: Notice | None = field(default=None, compare=False)
    # Told of each file, chunk, commit or blob scanned (counts only), e.g. to show progress.
    progress: ScanProgress | None = field(default=None, compare=False)
    # With ``history``: scan what these revisions reach instead of every ref; add the reflogs.
    refs: tuple[str, ...] = ()
    reflog: bool = False

    @property
    def since_revisions(self) -> tuple[str, ...]:
        """``since`` as a tuple (empty when not given)."""
        if self.since is None:
            return ()
        return (self.since,) if isinstance(self.since, str) else tuple(self.since)

    def context(self) -> ScanContext:
        """How this request's sources read every input (built once, see
        :class:`~hygiene.scan.scancontext.ScanContext`)."""
        return ScanContext(
            chunk_size=self.chunk_size,
            limits=self.limits,
            allow=AllowLines(self.allow_lines, self.markers),
            keep_secrets=self.keep_secrets,
            excludes=self.excludes,
            on_wait=self.on_wait,
            progress=self.progress,
        )


def run_scan(request: ScanRequest, stdin: BinaryIO | None = None) -> ScanResult:
    """Scan the request's source; usage and git errors raise, unreadable files are listed in
    the result's ``errors``."""
    check_usage(request.paths, request.staged, request.all_files, request.history)
    for name, given in (("since", request.since is not None), ("ref", bool(request.refs))):
        if given and not request.history:
            raise UsageError(f"{{{name}}} needs {{history}}", options=(name, "history"))
    if request.reflog and not request.history:
        raise UsageError("{reflog} needs {history}", options=("reflog", "history"))
    ctx = request.context()
    if request.staged:
        from hygiene.scan.sources.staged import scan_staged

        return scan_staged(ctx)
    if request.history:
        return _scan_history(request, ctx)
    if request.all_files:
        targets, skipped = tracked_files(Excluder(request.excludes))
        listed = ScanResult(notes=[skipped_note(skipped)] if skipped else [])
    else:
        paths = [p for p in request.paths or (".",) if p != STDIN]
        targets, errors = collect_paths(paths, Excluder(request.excludes))
        listed = ScanResult(errors=errors)
    streams = STDIN in request.paths or any(t.stream for t in targets)
    if request.progress is not None and not streams:  # a stream's size says nothing
        request.progress.expect(len(targets), sum(t.size for t in targets))
    # The listing's lines first, then what the files hold, then standard input.
    parts = [listed, scan_targets(targets, ctx)]
    if STDIN in request.paths:
        parts.append(_scan_stdin(stdin or sys.stdin.buffer, ctx))
    return merge(parts)


def _scan_history(request: ScanRequest, ctx: ScanContext) -> ScanResult:
    from hygiene.gitcmd import stop_all
    from hygiene.scan.sources.history import scan_history
    from hygiene.scan.sources.scope import resolve

    scope = resolve(request.refs, request.since_revisions, request.reflog)
    try:
        return scan_history(ctx, scope)
    finally:
        stop_all()  # a git an interrupt left between its start and its `with` block


def _scan_stdin(stream: BinaryIO, ctx: ScanContext) -> ScanResult:
    started = time.perf_counter()
    result = scan_stream(stream, STDIN_DISPLAY, ctx)
    if ctx.progress is not None:
        ctx.progress.file_done(result.bytes, len(result.detections))
    result.seconds = time.perf_counter() - started
    return result
