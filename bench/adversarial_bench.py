"""Adversarial inputs: needles that never complete a secret, side by side with ripgrep.

    python bench/adversarial_bench.py               # 40 MB per input, 3 runs each
    python bench/adversarial_bench.py --mb 4 --runs 1   # smoke run

Each input repeats one needle (a keyword, a PAT prefix too short to be one, a quoted empty
key, a base64 prefix) until it is ``--mb`` megabytes: every needle makes the scanner run an
anchored match, none completes a secret. The goal (issue 10): at least 50 MB/s on each, with
memory flat in input size. Prints, per input, the median wall and CPU time (user + system) of
``hygiene scan`` with MB/s for each, ``rg`` with the pattern bench/scan_bench.py uses (wall
and CPU), the wall-time ratio, and hygiene's peak RSS at half and at full size (flat memory:
the two are about equal). On a shared machine the CPU figures are the steadier ones.

Inputs are written under bench/.corpus/adversarial/ (git-ignored).
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / ".corpus" / "adversarial"
RG_PATTERN = r"pat_AIC_[A-Za-z0-9_-]{8,}|(?i:authorization|access[_-]?token)"
_SCRIPT = Path(sys.executable).with_name("hygiene")
HYGIENE = [
    str(_SCRIPT) if _SCRIPT.exists() else sys.executable,
    *([] if _SCRIPT.exists() else ["-m", "hygiene"]),
    "scan",
]
MB = 1 << 20
PREFIX = "pat" + "_AIC_"  # split so this file holds no needle-shaped literal


def _b64_prefixes() -> bytes:
    # The three alignments of the PAT prefix in base64, each followed by a short tail.
    out = []
    for pad in (b"", b"x", b"xy"):
        encoded = base64.b64encode(pad + PREFIX.encode() + b"ab")
        out.append(encoded[: len(encoded) - 2])
    return b" ".join(out) + b"\n"


# name -> the unit repeated to fill the input
INPUTS: dict[str, bytes] = {
    "authorization": b"Authorization: ",
    "access_token": b"access_token=",
    "short_pat": (PREFIX + "short ").encode(),
    "quoted_empty_key": b'"access_token": ""\n',
    "quoted_empty_key_spaced": b'{"access_token": "", "x": 1}\n',
    "glued_pat_prefix": PREFIX.encode(),
    "base64_prefixes": _b64_prefixes(),
    "bearer_words": b"Authorization: Bearer Authorization: Bearer ",
}


def build(name: str, size: int) -> Path:
    """The input ``name`` at ``size`` bytes (cached)."""
    path = CORPUS / f"{name}-{size}.txt"
    if not path.exists() or path.stat().st_size != size:
        CORPUS.mkdir(parents=True, exist_ok=True)
        unit = INPUTS[name]
        block = unit * (MB // len(unit) + 1)
        with open(path, "wb") as out:
            written = 0
            while written < size:
                piece = block[: size - written]
                out.write(piece)
                written += len(piece)
    return path


def timed(argv: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and the child's peak RSS in KiB."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{argv[0]} failed ({code}) on {argv[-1]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def median_run(argv: list[str], runs: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds over ``runs``, and the largest peak RSS."""
    results = [timed(argv) for _ in range(runs)]
    return (
        statistics.median(r[0] for r in results),
        statistics.median(r[1] for r in results),
        max(r[2] for r in results),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=40, help="size of each input (MB)")
    parser.add_argument("--runs", type=int, default=3, help="runs per tool and input")
    parser.add_argument("--only", nargs="*", choices=sorted(INPUTS), help="inputs to run")
    args = parser.parse_args()
    rg = shutil.which("rg")
    size = args.mb * MB
    print(
        f"{'input':24} {'wall s':>7} {'MB/s':>6} {'cpu s':>6} {'MB/s':>6} {'rg s':>6} "
        f"{'rg cpu':>6} {'ratio':>6} {'RSS half':>8} {'RSS full':>8}"
    )
    for name in args.only or INPUTS:
        path = build(name, size)
        ours, cpu, rss_full = median_run([*HYGIENE, "--no-config", str(path)], args.runs)
        half = str(build(name, size // 2))
        rss_half = median_run([*HYGIENE, "--no-config", half], 1)[2]
        rg_wall, rg_cpu = 0.0, 0.0
        if rg:
            rg_wall, rg_cpu, _ = median_run([rg, "-c", RG_PATTERN, str(path)], args.runs)
        ratio = f"{ours / rg_wall:6.1f}" if rg_wall else "   n/a"
        print(
            f"{name:24} {ours:7.2f} {size / MB / ours:6.1f} {cpu:6.2f} {size / MB / cpu:6.1f} "
            f"{rg_wall:6.2f} {rg_cpu:6.2f} {ratio} {rss_half // 1024:>6}MB {rss_full // 1024:>6}MB",
            flush=True,
        )


if __name__ == "__main__":
    main()
