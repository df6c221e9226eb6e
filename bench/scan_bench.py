"""Benchmark ``hygiene scan`` against ripgrep and detect-secrets (only the AIC plugin).

    python bench/scan_bench.py            # full run: ~100 MB stdlib copy, 256 MB log
    python bench/scan_bench.py --quick    # smoke run: small corpora, fewer repetitions

Corpora are built under bench/.corpus/ (git-ignored) with planted tokens: a copy of this
interpreter's standard library (site-packages and __pycache__ left out) and a generated
service log. Prints medians, ratios, the 10-file hook run and peak RSS per log size.
detect-secrets is timed on smaller slices and its time per MB extrapolated (it says so).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / ".corpus"
PLUGIN = REPO / "plugins" / "aic_tokens.py"
RG_PATTERN = r"pat_AIC_[A-Za-z0-9_-]{8,}|(?i:authorization|access[_-]?token)"
HYGIENE = [sys.executable, "-m", "hygiene", "scan"]
MB = 1 << 20


def new_pat(rng: random.Random) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "pat_AIC_" + "".join(rng.choice(alphabet) for _ in range(32))


def new_session(rng: random.Random) -> str:
    return "eyJ" + new_pat(rng)[8:] + "." + new_pat(rng)[8:20]


def build_stdlib(dest: Path, rng: random.Random, limit: int | None) -> int:
    """Copy the stdlib (up to ``limit`` bytes) and plant one token per 200 files."""
    if dest.exists():
        shutil.rmtree(dest)
    src = Path(sysconfig.get_paths()["stdlib"])
    copied = planted = 0
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
        for name in sorted(files):
            path = Path(root) / name
            if not path.is_file() or (limit and copied > limit):
                continue
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            copied += target.stat().st_size
            if rng.random() < 1 / 200:
                with target.open("ab") as f:
                    f.write(f'\nLEAKED = "{new_pat(rng)}"\n'.encode())
                planted += 1
    return planted


def _log_pool(rng: random.Random) -> list[str]:
    paths = ["/api/v1/org/memberships", "/api/v1/auth/login", "/api/v1/sessions", "/healthz"]
    pool = []
    for i in range(4096):
        pool.append(
            f"2026-11-22T01:{i % 60:02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z "
            f"INFO svc=pam-gateway req={rng.getrandbits(64):016x} method=GET "
            f"path={rng.choice(paths)} status={rng.choice([200, 200, 204, 401, 429])} "
            f"dur_ms={rng.randrange(1, 900)} user=u{rng.randrange(10_000)}\n"
        )
    pool.append("2026-11-22T01:00:00.000Z DEBUG authorization check passed for role=reader\n")
    return pool


def build_log(path: Path, size: int, rng: random.Random) -> int:
    """A service log of ``size`` bytes with a PAT and a bearer header in every MB."""
    pool = _log_pool(rng)
    planted = written = 0
    with path.open("w") as f:
        while written < size:
            block = "".join(rng.choices(pool, k=MB // 150))
            block += f"2026-11-22T02:00:00Z WARN retry url=https://pam/x?token={new_pat(rng)}\n"
            block += f"2026-11-22T02:00:01Z DEBUG headers={{'Authorization': 'Bearer {new_session(rng)}'}}\n"  # noqa: E501
            f.write(block)
            written += len(block)
            planted += 2
    return planted


def timed(cmd: list[str], runs: int) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    times = []
    proc = None
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    assert proc is not None
    return statistics.median(times), proc


def peak_rss_kb(cmd: list[str]) -> int:
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, check=True)
    return int(out.stdout)


def ds_command(target: Path) -> list[str]:
    listed = subprocess.run(
        ["detect-secrets", "scan", "--list-all-plugins"], capture_output=True, check=True, text=True
    ).stdout.split()
    disabled = [
        a for name in listed if name != "AicTokenDetector" for a in ("--disable-plugin", name)
    ]
    return [
        "detect-secrets",
        "scan",
        "--all-files",
        "--plugin",
        str(PLUGIN),
        *disabled,
        "--disable-filter",
        "detect_secrets.filters.heuristic.is_indirect_reference",
        str(target),
    ]


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def count_hygiene(path: Path) -> int:
    out = subprocess.run(
        [*HYGIENE, "--format", "json", str(path)], capture_output=True, check=False
    )
    return len(json.loads(out.stdout)["findings"])


def compare(label: str, path: Path, runs: int) -> float:
    """Median wall times of hygiene scan, rg -uu (binary files: rg stops at the first NUL)
    and rg -uuu (binary files searched whole, as hygiene does)."""
    ours, _ = timed([*HYGIENE, str(path)], runs)
    rg2, _ = timed(["rg", "-uu", "-c", RG_PATTERN, str(path)], runs)
    rg3, _ = timed(["rg", "-uuu", "-c", RG_PATTERN, str(path)], runs)
    mb = size_of(path) / MB
    print(f"{label}: {mb:.0f} MB, {count_hygiene(path)} findings (median of {runs})")
    print(
        f"  hygiene scan {ours:.3f} s | rg -uu {rg2:.3f} s: {ours / rg2:.1f}x"
        f" | rg -uuu {rg3:.3f} s: {ours / rg3:.1f}x"
    )
    return ours / mb


def detect_secrets_slice(label: str, path: Path, ours_per_mb: float, runs: int) -> None:
    mb = size_of(path) / MB
    ds, proc = timed(ds_command(path), runs)
    found = sum(len(v) for v in json.loads(proc.stdout or b"{}").get("results", {}).values())
    ours, _ = timed([*HYGIENE, str(path)], max(runs, 3))
    print(
        f"{label} slice {mb:.0f} MB: detect-secrets (AIC plugin only) median {ds:.2f} s "
        f"({found} found), hygiene scan {ours:.3f} s: {ds / ours:.0f}x on the slice; "
        f"per MB {ds / mb:.3f} s vs {ours_per_mb:.4f} s extrapolated: {ds / mb / ours_per_mb:.0f}x"
    )


def slice_of(src: Path, dest: Path, limit: int) -> Path:
    if dest.exists():
        shutil.rmtree(dest) if dest.is_dir() else dest.unlink()
    if src.is_file():
        with src.open("rb") as f:
            dest.write_bytes(f.read(limit))
        return dest
    copied = 0
    # Text files only: detect-secrets skips files that are not UTF-8 (and so takes no time).
    for path in sorted(p for p in src.rglob("*") if p.is_file() and p.stat().st_size < 4 * MB):
        if copied > limit:
            break
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        copied += path.stat().st_size
    return dest


def hook_run(stdlib: Path, runs: int) -> None:
    files = sorted(str(p) for p in stdlib.rglob("*.py"))[:10]
    ours, _ = timed([*HYGIENE, *files], runs)
    bare, _ = timed([sys.executable, "-c", "pass"], runs)
    print(
        f"10 files (a hook run): hygiene scan median {ours * 1000:.0f} ms wall; "
        f"the bare interpreter start here: {bare * 1000:.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small corpora, fewer runs")
    args = parser.parse_args()
    runs = 3 if args.quick else 5
    rng = random.Random(2026)
    CORPUS.mkdir(parents=True, exist_ok=True)
    stdlib, log = CORPUS / "stdlib", CORPUS / "service.log"
    t0 = time.perf_counter()
    planted_std = build_stdlib(stdlib, rng, 8 * MB if args.quick else None)
    planted_log = build_log(log, (16 if args.quick else 256) * MB, rng)
    print(
        f"corpora built in {time.perf_counter() - t0:.1f} s "
        f"(planted: {planted_std} in stdlib, {planted_log} in log); cores: {os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.2f} (other work on the machine slows every figure)"
    )
    std_per_mb = compare("stdlib copy", stdlib, runs)
    log_per_mb = compare("service log", log, runs)
    hook_run(stdlib, runs)
    ds_runs, ds_mb = (1, 2) if args.quick else (3, 30)
    detect_secrets_slice(
        "stdlib", slice_of(stdlib, CORPUS / "ds_stdlib", ds_mb * MB), std_per_mb, ds_runs
    )
    detect_secrets_slice(
        "log", slice_of(log, CORPUS / "ds.log", ds_mb * MB // 2), log_per_mb, ds_runs
    )
    for size in (16, 64) if args.quick else (64, 256):
        path = CORPUS / f"rss_{size}.log"
        build_log(path, size * MB, rng)
        rss = peak_rss_kb([*HYGIENE, str(path)]) // 1024
        print(f"peak RSS, hygiene scan of a {size} MB log: {rss} MB (largest single process)")
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
