"""Benchmark ``hygiene scan --history`` against ``git log -p --all | rg`` on a 5,000-commit repo.

    python bench/history_bench.py [--commits N] [--runs N]

The repository is built under bench/.corpus/history-repo (git-ignored) with ``git fast-import``:
each commit edits a few lines of one of 100 files; a few commits add a token (some of them
removed again later, which must still be found).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parent / ".corpus" / "history-repo"
RG_PATTERN = r"pat_AIC_[A-Za-z0-9_-]{8,}|(?i:authorization|access[_-]?token)"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _token(rng: random.Random) -> str:
    return "pat_AIC_" + "".join(rng.choice(ALPHABET) for _ in range(32))


def _blob(text: str) -> bytes:
    data = text.encode()
    return b"data %d\n%s\n" % (len(data), data)


def fast_import_stream(commits: int, rng: random.Random) -> tuple[bytes, int]:
    """The fast-import input for ``commits`` commits and how many tokens it plants."""
    files = {f"src/mod{i:02d}.py": [f"value_{i}_{j} = {j}" for j in range(60)] for i in range(100)}
    out, planted = [], 0
    for n in range(1, commits + 1):
        path = rng.choice(sorted(files))
        lines = files[path]
        for _ in range(3):
            lines[rng.randrange(len(lines))] = f"value_{n}_{rng.getrandbits(32):08x} = {n}"
        if n % (commits // 10) == 0:
            lines[rng.randrange(len(lines))] = f'TOKEN = "{_token(rng)}"'
            planted += 1
        out.append(
            f"commit refs/heads/main\nmark :{n}\n"
            f"committer Bench <bench@example.invalid> {1_700_000_000 + n} +0000\n".encode()
        )
        out.append(_blob(f"change {n}"))
        if n > 1:
            out.append(f"from :{n - 1}\n".encode())
        out.append(f"M 100644 inline {path}\n".encode() + _blob("\n".join(lines)))
    return b"".join(out), planted


def build(commits: int) -> int:
    if REPO_DIR.exists():
        shutil.rmtree(REPO_DIR)
    REPO_DIR.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=REPO_DIR, check=True)
    stream, planted = fast_import_stream(commits, random.Random(5))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=REPO_DIR, input=stream, check=True)
    return planted


def timed(cmd: list[str], runs: int) -> tuple[float, bytes]:
    times, out = [], b""
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(cmd, cwd=REPO_DIR, capture_output=True, check=False).stdout
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="500 commits, 3 runs")
    args = parser.parse_args()
    if args.quick:
        args.commits, args.runs = 500, 3
    planted = build(args.commits)
    ours, out = timed(
        [sys.executable, "-m", "hygiene", "scan", "--history", "--format", "json"], args.runs
    )
    found = len(json.loads(out)["findings"])
    pipeline = f"git log -p --all | rg -c '{RG_PATTERN}'"
    theirs, rg_out = timed(["bash", "-o", "pipefail", "-c", pipeline], args.runs)
    print(f"{args.commits} commits, {planted} tokens planted (median of {args.runs})")
    print(f"  hygiene scan --history {ours:.3f} s ({found} findings)")
    print(f"  git log -p --all | rg  {theirs:.3f} s ({rg_out.decode().strip()} matching lines)")
    print(f"  ratio {ours / theirs:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
