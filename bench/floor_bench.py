"""How fast ``hygiene scan`` could be at best, beside ripgrep: the floor under the speed goal.

    python bench/floor_bench.py            # the corpora of scan_bench.py (built there)
    python bench/floor_bench.py --runs 9
    python bench/floor_bench.py --quick    # smoke run: 3 runs

#10 asks for at most 2x ripgrep's wall time on scan_bench's two corpora. This measures, in
one run and side by side with ``rg -uuu``, what no implementation on this interpreter and
these libraries can go below, with every Python step of the scan left out:

* start-up: an interpreter that imports nothing but ``hyperscan`` (the scan's own imports,
  click and the package, come on top);
* the C work the output needs, in two processes (the machine's cores) each given half of
  the bytes, timed from the moment the workers exist: the scanner's own Hyperscan finder
  (the rules' needles and the decoders' literals, one pass, one call per MiB or per small
  file), the newlines counted (``bytes.count``: every finding has a line number) and, for
  the tree, the members of its zip files inflated (the decoders read archives).

floor = start-up + that C work. Where the floor is above 2x ripgrep, the goal cannot be met
by this design, however little Python remains; only a compiled scanning core could (SIMD
line counting, threads sharing one address space instead of processes).
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
from pathlib import Path

from hygiene.scan.decoders import finder_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scan_bench import CORPUS, HYGIENE, RG_PATTERN

CHUNK = 1 << 20
Job = tuple[str, int, int]  # a file, and the byte range of it to scan


def _median_wall(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def _halves(path: Path) -> list[list[Job]]:
    if path.is_file():
        size = path.stat().st_size
        return [[(str(path), 0, size // 2)], [(str(path), size // 2, size)]]
    files = sorted(
        ((p.stat().st_size, str(p)) for p in path.rglob("*") if p.is_file()), reverse=True
    )
    halves: list[list[Job]] = [[], []]
    loads = [0, 0]
    for size, name in files:  # largest first, each to the lighter half
        i = loads.index(min(loads))
        halves[i].append((name, 0, size))
        loads[i] += size
    return halves


def _c_floor(path: Path, runs: int) -> float:
    halves = _halves(path)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_c_work, halves)  # warm: page cache, databases compiled in each worker
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            pool.map(_c_work, halves, chunksize=1)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


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
    start_up = _median_wall([sys.executable, "-c", "import hyperscan"], args.runs)
    print(
        f"cores {os.cpu_count()}, load {os.getloadavg()[0]:.2f}; start-up importing only "
        f"hyperscan: {start_up * 1000:.0f} ms (median of {args.runs})"
    )
    for label, path in corpora:
        rg = _median_wall(["rg", "-uuu", "-c", RG_PATTERN, str(path)], args.runs)
        ours = _median_wall([*HYGIENE, str(path)], args.runs)
        c_work = _c_floor(path, args.runs)
        floor = start_up + c_work
        verdict = "above the goal: unreachable" if floor > 2 * rg else "below the goal"
        print(
            f"{label}: rg -uuu {rg:.3f} s, goal (2x) {2 * rg:.3f} s | floor {floor:.3f} s "
            f"= start-up {start_up:.3f} + C work on 2 cores {c_work:.3f} ({floor / rg:.1f}x rg, "
            f"{verdict}) | hygiene scan {ours:.3f} s ({ours / rg:.1f}x rg, "
            f"{ours / floor:.1f}x the floor)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
