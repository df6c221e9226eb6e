"""Benchmark ``hygiene scan`` with every decoder on, side by side with ripgrep and with the
scanner before the decoders (the same tree at ``--baseline-rev``), in one run.

    python bench/decoders_bench.py            # 104 MB stdlib copy, 256 MB log, 40 MB inputs
    python bench/decoders_bench.py --quick    # small corpora, fewer runs
    python bench/decoders_bench.py --bombs    # 1M-member archives vs gitleaks, kingfisher

Reports medians and ratios on the bench corpora (goal: at most 2x ripgrep's wall time),
throughput on adversarial inputs made of needles that never complete a secret (goal: at least
50 MB/s each, 40 MB), and peak RSS against input size, plain and compressed (goal: flat).
Both hygiene trees run as ``python -m hygiene scan`` from source (PYTHONPATH), so start-up
costs the same; ripgrep runs as ``rg -uuu -c`` (binary files searched whole, as hygiene does).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scan_bench as sb

REPO = sb.REPO
MB = sb.MB
# What each adversarial input repeats: needles that never complete a secret. The keyword ones
# (the matcher's, not the decoders') run with --keywords: before the matcher's fix for them they
# crawl (measured here: `access_token=` repeated, 1 MB in 30 s, with or without decoders).
KEYWORDS = {
    "Authorization: ": b"Authorization: ",
    "access_token=": b"access_token=",
    "pat_AIC_short ": b"pat_AIC_short ",
    '"access_token": "", ': b'"access_token": "", ',
}
ADVERSARIAL = {
    "base64 prefix run (cGF0X0FJQ1...)": b"cGF0X0FJQ1",
    "base64 prefix lines": b"token: cGF0X0FJQ1\n",
    "base64 prefix, MIME lines": b"cGF0X0FJQ1cGF0X0FJQ1cGF0X0FJQ1cGF0X0FJQ1\r\n",
    "base64 of UTF-16 prefix": b"cABhAHQAXwBBAEkAQwBfA",
    "base64 of base64 prefix": b"Y0dGMFgwRkpRM",
    "UTF-16 prefix": "pat_AIC_ ".encode("utf-16-le"),
    "name/value pairs": b'{"name": "Authorization", "value": ""},\n',
}


def baseline_tree(rev: str, dest: Path) -> Path:
    """The package as it was at ``rev``, extracted (no worktree, no checkout)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "hygiene"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def hygiene_cmd(tree: Path) -> list[str]:
    return ["env", f"PYTHONPATH={tree}", sys.executable, "-m", "hygiene", "scan"]


def ratio_line(label: str, path: Path, new: list[str], old: list[str], runs: int) -> None:
    (ours, before, rg), _ = sb.timed_side_by_side(
        [[*new, str(path)], [*old, str(path)], ["rg", "-uuu", "-c", sb.RG_PATTERN, str(path)]],
        runs,
    )
    mb = sb.size_of(path) / MB
    print(
        f"{label} ({mb:.0f} MB, median of {runs}): decoders on {ours:.3f} s | "
        f"before decoders {before:.3f} s | rg -uuu {rg:.3f} s || "
        f"on/rg {ours / rg:.2f}x, before/rg {before / rg:.2f}x, on/before {ours / before:.2f}x"
    )


def adversarial(
    dest: Path, size: int, new: list[str], old: list[str], runs: int, inputs: dict[str, bytes]
) -> None:
    print(f"adversarial inputs ({size // MB} MB each, median of {runs}), MB/s:")
    for label, unit in inputs.items():
        path = dest / "adversarial.bin"
        path.write_bytes(unit * (size // len(unit)))
        (ours, before, rg), (proc, _, _) = sb.timed_side_by_side(
            [[*new, str(path)], [*old, str(path)], ["rg", "-uuu", "-c", sb.RG_PATTERN, str(path)]],
            runs,
        )
        mb = size / MB
        flag = "" if mb / ours >= 50 else "  (below 50 MB/s)"
        print(
            f"  {label:36} decoders on {mb / ours:7.0f} | before {mb / before:7.0f} | "
            f"rg {mb / rg:7.0f}  (exit {proc.returncode}){flag}"
        )
        path.unlink()


def hook_alone(size: int) -> None:
    """The decoders' own cost: their hook over 64 KiB chunks in this process, without the
    matcher (whose cost on such inputs the `before` column shows)."""
    sys.path.insert(0, str(REPO))
    from hygiene.scan.decoders.embedded import embedded_secrets

    print(f"decoder hook alone, in process ({size // MB} MB each, best of 3), MB/s:")
    for label, unit in ADVERSARIAL.items():
        data = unit * (size // len(unit))
        chunks = [data[i : i + (64 << 10)] for i in range(0, len(data), 64 << 10)]
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for chunk in chunks:
                embedded_secrets(chunk, len(chunk))
            best = min(best, time.perf_counter() - started)
        print(f"  {label:36} {size / MB / best:7.0f}")


def memory(dest: Path, rng: random.Random, sizes: tuple[int, ...], new: list[str]) -> None:
    for size in sizes:
        log = dest / f"rss_{size}.log"
        sb.build_log(log, size * MB, rng)
        gz = dest / f"rss_{size}.log.gz"
        with log.open("rb") as src, gzip.open(gz, "wb", compresslevel=1) as out:
            while block := src.read(MB):
                out.write(block)
        zipped = dest / f"rss_{size}.zip"
        with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.write(log, "logs/service.log")
        rss = [sb.peak_rss_kb([*new, str(p)]) // 1024 for p in (log, gz, zipped)]
        print(
            f"peak RSS, {size} MB log: plain {rss[0]} MB, gzip {rss[1]} MB, zip member {rss[2]} MB"
        )
        for p in (log, gz, zipped):
            p.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small corpora, fewer runs")
    parser.add_argument(
        "--baseline-rev", default="bdf1214", help="the tree before the decoders (a git rev)"
    )
    parser.add_argument("--keywords", action="store_true", help="also the keyword inputs")
    parser.add_argument(
        "--bombs", action="store_true", help="only the million-member archives (bench/bombs.py)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --bombs: rounds (median)")
    parser.add_argument(
        "--timeout", type=float, default=900, help="with --bombs: seconds before a run is stopped"
    )
    args = parser.parse_args()
    if args.bombs:
        import bombs  # the peers' binaries and exports: only this mode needs them

        bombs.run(args.rounds, args.timeout)
        return 0
    runs = 3 if args.quick else 5
    rng = random.Random(2026)
    sb.CORPUS.mkdir(parents=True, exist_ok=True)
    stdlib, log = sb.CORPUS / "stdlib", sb.CORPUS / "service.log"
    sb.build_stdlib(stdlib, rng, 8 * MB if args.quick else None)
    sb.build_log(log, (16 if args.quick else 256) * MB, rng)
    print(
        f"cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} "
        f"(other work on the machine slows every figure); baseline {args.baseline_rev}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        old = hygiene_cmd(baseline_tree(args.baseline_rev, Path(tmp)))
        new = hygiene_cmd(REPO)
        started = time.perf_counter()
        ratio_line("stdlib copy", stdlib, new, old, runs)
        ratio_line("service log", log, new, old, runs)
        inputs = {**(KEYWORDS if args.keywords else {}), **ADVERSARIAL}
        adversarial(Path(tmp), (8 if args.quick else 40) * MB, new, old, runs, inputs)
        hook_alone((8 if args.quick else 40) * MB)
        memory(Path(tmp), rng, (16, 64) if args.quick else (64, 256), new)
        print(f"(bench ran {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
