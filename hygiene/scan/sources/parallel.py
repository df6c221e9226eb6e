"""Scanning many bytes in worker processes.

Big files are split into newline-aligned byte ranges (so every range starts at a line start
and no match crosses a range boundary), small files are grouped into batches. Each worker
returns findings with line numbers counted from its range's start and the number of newlines
it read; the parent fixes line numbers up by prefix sums. Only findings cross the process
boundary, never a token.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hygiene.progress import ScanProgress
from hygiene.scan.decoders import finder_for, sniff
from hygiene.scan.decoders.layers import HEAD_SIZE, scanner_for
from hygiene.scan.findings import Finding, ScanResult, detection_for
from hygiene.scan.matcher.linecount import fd_recount
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget, open_file
from hygiene.scan.sources.one_file import scan_target

# A file's byte range whose newlines are to be counted: the file, start, end.
_Job = tuple[FileTarget, int, int]
Mapper = Callable[[Callable[[_Job], int], list[_Job]], list[int]]

RANGE_SIZE = 32 << 20
BATCH_SIZE = 4 << 20
# How far past a split point we look for a newline before giving the split up.
_ALIGN_LIMIT = 1 << 20
_ALIGN_BLOCK = 64 << 10


@dataclass(frozen=True)
class Unit:
    """A piece of work: whole files, or bytes ``start:end`` of one file (``is_range``)."""

    targets: tuple[FileTarget, ...]
    start: int = -1
    end: int = -1
    part: int = 0

    @property
    def is_range(self) -> bool:
        return self.start >= 0

    @property
    def size(self) -> int:
        return self.end - self.start if self.is_range else sum(t.size for t in self.targets)


@dataclass
class UnitResult:
    unit: Unit
    findings: list[Finding]
    errors: list[str]
    files: int
    bytes: int
    newlines: int | None  # of a range; None: not counted (yet)
    skipped: int = 0  # parts the decoders skipped (ScanResult.skipped)
    suppressed: Counter[str] = dataclasses.field(default_factory=Counter)


def _next_line_start(target: FileTarget, offset: int) -> int | None:
    # Text has a newline within a few bytes: read small blocks, not the whole limit.
    with open_file(target) as f:
        f.seek(offset)
        for start in range(offset, offset + _ALIGN_LIMIT, _ALIGN_BLOCK):
            block = f.read(_ALIGN_BLOCK)
            nl = block.find(b"\n")
            if nl != -1:
                return start + nl + 1
            if len(block) < _ALIGN_BLOCK:
                return None
    return None


def split_file(target: FileTarget, range_size: int = RANGE_SIZE) -> list[Unit]:
    """``target`` as newline-aligned ranges of about ``range_size`` bytes."""
    bounds = [0]
    for guess in range(range_size, target.size, range_size):
        if guess <= bounds[-1]:
            continue
        aligned = _next_line_start(target, guess)
        if aligned is not None and bounds[-1] < aligned < target.size:
            bounds.append(aligned)
    bounds.append(target.size)
    return [Unit((target,), a, b, i) for i, (a, b) in enumerate(itertools.pairwise(bounds))]


def _decoded_whole(target: FileTarget) -> bool:
    """Whether a decoder reads the file as a whole (an archive, compressed, UTF-16): it is then
    not split into ranges."""
    try:
        with open_file(target) as f:
            return sniff(f.read(HEAD_SIZE)) is not None
    except OSError:
        return False


def plan(targets: Sequence[FileTarget], range_size: int = RANGE_SIZE) -> list[Unit]:
    """Work units: big plain files split, the rest batched."""
    units: list[Unit] = []
    batch: list[FileTarget] = []
    batch_bytes = 0
    for target in targets:
        if target.size > range_size and not _decoded_whole(target):
            units.extend(split_file(target, range_size))
            continue
        batch.append(target)
        batch_bytes += target.size
        if batch_bytes >= BATCH_SIZE:
            units.append(Unit(tuple(batch)))
            batch, batch_bytes = [], 0
    if batch:
        units.append(Unit(tuple(batch)))
    # Largest first, so no worker is left with a big range at the end.
    units.sort(key=lambda u: -u.size)
    return units


def _range_reader(f: object, remaining: int) -> Callable[[int], bytes]:
    read: Callable[[int], bytes] = f.read  # type: ignore[attr-defined]

    def bounded(n: int) -> bytes:
        nonlocal remaining
        piece = read(min(n, remaining)) if remaining > 0 else b""
        remaining -= len(piece)
        return piece

    return bounded


def count_range(args: _Job) -> int:
    """Worker entry point: the newlines of bytes ``start:end`` of a file."""
    target, start, end = args
    with open_file(target) as f:
        return fd_recount(f)(start, end)


def _scan_range(unit: Unit, ctx: ScanContext) -> UnitResult:
    target = unit.targets[0]
    # Lines are counted only once a secret shows up: a range without one (most of a big
    # binary) is counted later, and only if a range after it needs the count.
    scanner = scanner_for(ctx.using(finder_for(unit.size)))
    findings: list[Finding] = []
    errors: list[str] = []
    try:
        with open_file(target) as f:
            whole = fd_recount(f)

            def recount(start: int, stop: int) -> int:
                return whole(unit.start + start, unit.start + stop)

            f.seek(unit.start)
            hits = scanner.scan(_range_reader(f, unit.end - unit.start), recount)
            findings.extend(detection_for(hit, target.display).finding for hit in hits)
    except OSError as exc:
        errors.append(f"{target.display}: {exc.strerror or exc}")
    files = 1 if unit.part == 0 and not errors else 0
    newlines = scanner.newlines if scanner.counted_all else None
    return UnitResult(
        unit, findings, errors, files, scanner.bytes_read, newlines, suppressed=scanner.suppressed
    )


def _scan_batch(unit: Unit, ctx: ScanContext) -> UnitResult:
    result = ScanResult()
    each = ctx.using(finder_for(unit.size))
    for target in unit.targets:
        result.add(scan_target(target, each))
    findings = [d.finding for d in result.detections]
    return UnitResult(
        unit, findings, result.errors, result.files, result.bytes, 0, result.skipped,
        result.suppressed,
    )  # fmt: skip


def run_unit(args: tuple[Unit, ScanContext]) -> UnitResult:
    """Worker entry point (module level, so it pickles): a unit, and how to read it (the
    context's picklable part, :meth:`~hygiene.scan.scancontext.ScanContext.for_workers`)."""
    unit, ctx = args
    if unit.is_range:
        return _scan_range(unit, ctx)
    return _scan_batch(unit, ctx)


# In a worker process: how to read every unit (set once, when the worker starts).
_WORKER_CONTEXT: list[ScanContext] = []


def _start_worker(ctx: ScanContext) -> None:
    """Worker initializer: the context's picklable part, sent once per worker; the signal
    handlers a fork inherited from the command put back to the defaults. The pool ends its
    workers with SIGTERM, even after the last unit: a handler that raises would print a
    traceback from each idle worker. A worker holds no git and writes nothing, so SIGTERM
    simply ends it; SIGINT (Ctrl-C reaches the whole process group) is the parent's to act
    on."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_CONTEXT[:] = [ctx]


def _run_in_worker(unit: Unit) -> UnitResult:
    return run_unit((unit, _WORKER_CONTEXT[0]))


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _ranges_by_file(done: list[UnitResult]) -> list[list[UnitResult]]:
    ranges: dict[str, list[UnitResult]] = {}
    for r in done:
        if r.unit.is_range:
            ranges.setdefault(r.unit.targets[0].fspath, []).append(r)
    for parts in ranges.values():
        parts.sort(key=lambda r: r.unit.part)
    return list(ranges.values())


def _count_missing(files: list[list[UnitResult]], mapper: Mapper) -> None:
    """Count the newlines of the ranges that were not counted but precede a range with
    findings (whose line numbers need them), through ``mapper`` (a pool's ``map``)."""
    missing: list[UnitResult] = []
    for parts in files:
        last = max((i for i, r in enumerate(parts) if r.findings), default=-1)
        missing += [r for r in parts[:last] if r.newlines is None]
    jobs = [(r.unit.targets[0], r.unit.start, r.unit.end) for r in missing]
    for r, newlines in zip(missing, mapper(count_range, jobs), strict=True):
        r.newlines = newlines


def _run(units: list[Unit], workers: int, ctx: ScanContext) -> list[UnitResult]:
    if len(units) == 1:
        done = [run_unit((units[0], ctx.for_workers()))]
        _tell(ctx.progress, done[0])
        _count_missing(_ranges_by_file(done), _serial_map)
        return done
    count = min(workers, len(units))
    with _context().Pool(count, _start_worker, (ctx.for_workers(),)) as pool:
        done = []
        for r in pool.imap_unordered(_run_in_worker, units):
            done.append(r)
            _tell(ctx.progress, r)
        _count_missing(_ranges_by_file(done), pool.map)
    return done


def _tell(progress: ScanProgress | None, r: UnitResult) -> None:
    # A unit is the finest grain the parent sees (at most RANGE_SIZE bytes).
    if progress is not None:
        progress.add(files=r.files, nbytes=r.bytes, findings=len(r.findings))


def _serial_map(fn: Callable[[_Job], int], work: list[_Job]) -> list[int]:
    return [fn(job) for job in work]


def scan_parallel(
    targets: Sequence[FileTarget],
    ctx: ScanContext,
    workers: int,
    range_size: int | None = None,
) -> ScanResult:
    """Scan ``targets`` in ``workers`` processes; findings only (no secrets). ``ctx.progress``
    hears of each unit as it comes back."""
    if range_size is None:
        # About four units per worker, so that no worker finishes long before the others.
        total = sum(t.size for t in targets)
        range_size = max(BATCH_SIZE, min(RANGE_SIZE, total // (workers * 4) + 1))
    return _merged(_run(plan(targets, range_size), workers, ctx))


def _merged(done: list[UnitResult]) -> ScanResult:
    """The units' results as one, each range's line numbers shifted by the newlines before it."""
    result = ScanResult()
    for r in done:
        result.files += r.files
        result.bytes += r.bytes
        result.skipped += r.skipped
        result.suppressed.update(r.suppressed)
        result.errors += [e for e in r.errors if e not in result.errors]
        if not r.unit.is_range:
            result.findings_only += r.findings
    for parts in _ranges_by_file(done):
        offset = 0
        for r in parts:
            shifted = [dataclasses.replace(f, line=f.line + offset) for f in r.findings]
            result.findings_only += shifted
            offset += r.newlines or 0  # None only after the last range with findings
    return result


__all__ = ["plan", "scan_parallel", "split_file"]
