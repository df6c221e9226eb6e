"""Two ``hygiene`` builds and ripgrep on the scan_bench corpora, interleaved in one run.

    python bench/versus_bench.py --other /tmp/main-venv/bin/hygiene        # 7 runs each
    python bench/versus_bench.py --other OLD --runs 3 --quick              # small corpora

For a change meant to be faster: install the old and the new build each in a fresh virtual
environment (``pip install .``: an editable install adds start-up time), run this with the new
one's interpreter and ``--other`` naming the old one's ``hygiene``. Every round runs the three
commands one after the other (drift in the machine's load weighs on all alike); it prints, per
input, the median wall time and the median CPU time (user + system, worker processes included)
of each, and each one's ratio to ``rg -uuu`` (binary files searched whole, as hygiene does).
Inputs: an empty folder (start-up), the stdlib copy and the service log of bench/scan_bench.py
(built there, under bench/.corpus/), and ten files as a pre-commit hook passes them. On a
shared machine the CPU figures are the steadier ones; the load average is printed with each.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scan_bench as sb  # the corpora and the ripgrep pattern are scan_bench's


def _run(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the process and its children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def compare(label: str, commands: list[list[str]], runs: int) -> None:
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for i, argv in enumerate(commands):
            wall, cpu = _run(argv)
            walls[i].append(wall)
            cpus[i].append(cpu)
    wall = [statistics.median(w) for w in walls]
    cpu = [statistics.median(c) for c in cpus]
    names = ("this", "other", "rg -uuu")
    cells = [
        f"{n} {w:.3f} s ({w / wall[-1]:.1f}x), cpu {c:.3f} s ({c / cpu[-1]:.1f}x)"
        for n, w, c in zip(names, wall, cpu, strict=True)
    ]
    print(f"{label} (median of {runs}, load {os.getloadavg()[0]:.2f}): " + " | ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other build's hygiene executable")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small corpora")
    args = parser.parse_args()
    rng = random.Random(2026)
    sb.CORPUS.mkdir(parents=True, exist_ok=True)
    stdlib, log = sb.CORPUS / "stdlib", sb.CORPUS / "service.log"
    sb.build_stdlib(stdlib, rng, 8 * sb.MB if args.quick else None)
    sb.build_log(log, (16 if args.quick else 256) * sb.MB, rng)
    this = [*sb.HYGIENE, "--no-config"]
    other = [args.other, "scan", "--no-config"]
    hook = sorted(str(p) for p in stdlib.rglob("*.py"))[:10]
    with tempfile.TemporaryDirectory() as empty:
        for label, paths in (
            ("empty folder", [empty]),
            ("stdlib copy", [str(stdlib)]),
            ("service log", [str(log)]),
            ("10 files (a hook run)", hook),
        ):
            rg = ["rg", "-uuu", "-c", sb.RG_PATTERN, *paths]
            compare(label, [[*this, *paths], [*other, *paths], rg], args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
