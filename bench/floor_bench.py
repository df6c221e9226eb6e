"""How fast ``hygiene scan`` could be at best, beside ripgrep: the floor under the speed goal.

    python bench/floor_bench.py            # the corpora of scan_bench.py (built there)
    python bench/floor_bench.py --runs 9
    python bench/floor_bench.py --quick    # smoke run: 3 runs

#10 asks for at most 2x ripgrep's wall time on scan_bench's two corpora. This measures, in
one run and side by side with ``rg -uuu``, what no implementation on this interpreter and
these libraries can go below, with every Python step of the scan left out:

* start-up: an interpreter that imports nothing but ``hyperscan`` (the scan's own imports,
  click and the package, come on top);
* the C work the output needs, in one process per core, each given an equal share of the
  bytes, timed from the moment the workers exist: the scanner's own Hyperscan finder
  (the rules' needles and the decoders' literals, one pass, one call per MiB or per small
  file), the newlines counted (``bytes.count``: every finding has a line number) and, for
  the tree, the members of its zip files inflated (the decoders read archives).

floor = start-up + that C work. Where the floor is above 2x ripgrep, the goal cannot be met
by this design, however little Python remains; only a compiled scanning core could (SIMD
line counting, one pass that finds the keywords and counts the lines, no interpreter start
before it).
"""

from __future__ import annotations

import argparse
import mmap
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from hygiene.scan.decoders import finder_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scan_bench import CORPUS, HYGIENE, RG_PATTERN, timed

CHUNK = 1 << 20
Job = tuple[str, int, int]  # a file, and the byte range of it to scan


def _run(cmd: list[str]) -> None:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def _c_work(jobs: list[Job]) -> int:
    """Worker: the Hyperscan pass, the newline count and the inflating of ``jobs``."""
    finder = finder_for(None)  # the scanner's own: needles and the decoders' literals
    newlines = 0
    for path, start, end in jobs:
        if path.endswith((".zip", ".whl", ".jar")):
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    data = archive.read(info)
                    finder.find(data, len(data))
                    newlines += data.count(b"\n")
            continue
        if end - start < CHUNK:  # a small file: one read costs less than a mapping
            with open(path, "rb", buffering=0) as f:
                f.seek(start)
                data = f.read(end - start)
            finder.find(data, len(data))
            newlines += data.count(b"\n")
            continue
        with (
            open(path, "rb", buffering=0) as raw,
            mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ) as m,
        ):
            for at in range(start, end, CHUNK):
                piece = m[at : min(at + CHUNK, end)]
                finder.find(piece, len(piece))
                newlines += piece.count(b"\n")
    return newlines


def _shares(path: Path, n: int) -> list[list[Job]]:
    """The bytes of ``path`` in ``n`` shares of about equal size (a file: ``n`` ranges)."""
    if path.is_file():
        size = path.stat().st_size
        return [[(str(path), size * i // n, size * (i + 1) // n)] for i in range(n)]
    files = sorted(
        ((p.stat().st_size, str(p)) for p in path.rglob("*") if p.is_file()), reverse=True
    )
    shares: list[list[Job]] = [[] for _ in range(n)]
    loads = [0] * n
    for size, name in files:  # largest first, each to the lightest share
        i = loads.index(min(loads))
        shares[i].append((name, 0, size))
        loads[i] += size
    return shares


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _measure(path: Path, runs: int, workers: int) -> tuple[float, float, float]:
    """Medians of ``rg -uuu``, ``hygiene scan`` and the C work, one of each per round
    (interleaved: the machine's speed drifts)."""
    shares = _shares(path, workers)
    rg_cmd = ["rg", "-uuu", "-c", RG_PATTERN, str(path)]
    ours_cmd = [*HYGIENE, str(path)]
    times: list[list[float]] = [[], [], []]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        pool.map(_c_work, shares)  # warm: page cache, databases compiled in each worker
        for _ in range(runs):
            times[0].append(_timed(lambda: _run(rg_cmd)))
            times[1].append(_timed(lambda: _run(ours_cmd)))
            times[2].append(_timed(lambda: pool.map(_c_work, shares, chunksize=1)))
    rg, ours, c_work = (statistics.median(t) for t in times)
    return rg, ours, c_work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 runs (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.runs = 3
    corpora = [("stdlib copy", CORPUS / "stdlib"), ("service log", CORPUS / "service.log")]
    missing = [str(p) for _, p in corpora if not p.exists()]
    if missing:
        print(f"build the corpora first (python bench/scan_bench.py): missing {missing}")
        return 2
    workers = os.cpu_count() or 1
    start_up, _ = timed([sys.executable, "-c", "import hyperscan"], args.runs)
    print(
        f"cores {workers}, load {os.getloadavg()[0]:.2f}; start-up importing only "
        f"hyperscan: {start_up * 1000:.0f} ms (median of {args.runs})"
    )
    for label, path in corpora:
        rg, ours, c_work = _measure(path, args.runs, workers)
        floor = start_up + c_work
        verdict = "above the goal: unreachable" if floor > 2 * rg else "below the goal"
        print(
            f"{label}: rg -uuu {rg:.3f} s, goal (2x) {2 * rg:.3f} s | floor {floor:.3f} s "
            f"= start-up {start_up:.3f} + C work on {workers} cores {c_work:.3f} ({floor / rg:.1f}x rg, "
            f"{verdict}) | hygiene scan {ours:.3f} s ({ours / rg:.1f}x rg, "
            f"{ours / floor:.1f}x the floor)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
