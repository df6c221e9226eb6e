"""Benchmark ``hygiene scan`` against ripgrep and detect-secrets (only the AIC plugin).

    python bench/scan_bench.py            # full run: ~100 MB stdlib copy, 256 MB log
    python bench/scan_bench.py --quick    # smoke run: small corpora, fewer repetitions

It times the ``hygiene`` command installed beside the interpreter that runs it (else
``python -m hygiene``): for the figures users see, run it from a fresh virtual environment
(``python -m venv /tmp/v && /tmp/v/bin/pip install . && /tmp/v/bin/python bench/scan_bench.py``);
a development environment's editable-install hooks add start-up time to every run.

Corpora are built under bench/.corpus/ (git-ignored) with planted tokens: a copy of this
interpreter's standard library (site-packages and __pycache__ left out) and a generated
service log. Prints medians, ratios, the 10-file hook run and peak RSS per log size.
detect-secrets runs on the whole stdlib copy (the same input) and on a small and a large
slice of text of each corpus, whose difference gives each tool's cost per extra megabyte
(start-up left out of both).
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
_SCRIPT = Path(sys.executable).with_name("hygiene")
HYGIENE = [
    str(_SCRIPT) if _SCRIPT.exists() else sys.executable,
    *([] if _SCRIPT.exists() else ["-m", "hygiene"]),
    "scan",
]
_DS = Path(sys.executable).with_name("detect-secrets")
DETECT_SECRETS = str(_DS) if _DS.exists() else "detect-secrets"
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
            block += f"2026-11-22T02:00:01Z DEBUG headers={{'Authorization': 'Bearer {new_session(rng)}'}}\n"
            f.write(block)
            written += len(block)
            planted += 2
    return planted


def timed(cmd: list[str], runs: int) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    (median,), (proc,) = timed_side_by_side([cmd], runs)
    return median, proc


def timed_side_by_side(
    cmds: list[list[str]], runs: int
) -> tuple[list[float], list[subprocess.CompletedProcess[bytes]]]:
    """Median wall time of each command, their runs interleaved (so drift in the machine's
    load weighs on all of them alike), and each one's last result."""
    times: list[list[float]] = [[] for _ in cmds]
    procs: list[subprocess.CompletedProcess[bytes]] = []
    for _ in range(runs):
        procs = []
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            procs.append(subprocess.run(cmd, capture_output=True, check=False))
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times], procs


def peak_rss_kb(cmd: list[str]) -> int:
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, check=True)
    return int(out.stdout)


def ds_command(target: Path) -> list[str]:
    listed = subprocess.run(
        [DETECT_SECRETS, "scan", "--list-all-plugins"], capture_output=True, check=True, text=True
    ).stdout.split()
    disabled = [
        a for name in listed if name != "AicTokenDetector" for a in ("--disable-plugin", name)
    ]
    return [
        DETECT_SECRETS,
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


def compare(label: str, path: Path, runs: int) -> None:
    """Median wall times of hygiene scan, rg -uu (binary files: rg stops at the first NUL)
    and rg -uuu (binary files searched whole, as hygiene does)."""
    (ours, rg2, rg3), _ = timed_side_by_side(
        [
            [*HYGIENE, str(path)],
            ["rg", "-uu", "-c", RG_PATTERN, str(path)],
            ["rg", "-uuu", "-c", RG_PATTERN, str(path)],
        ],
        runs,
    )
    mb = size_of(path) / MB
    print(f"{label}: {mb:.0f} MB, {count_hygiene(path)} findings (median of {runs})")
    print(
        f"  hygiene scan {ours:.3f} s | rg -uu {rg2:.3f} s: {ours / rg2:.1f}x"
        f" | rg -uuu {rg3:.3f} s: {ours / rg3:.1f}x"
    )


def _ds_found(proc: subprocess.CompletedProcess[bytes]) -> int:
    return sum(len(v) for v in json.loads(proc.stdout or b"{}").get("results", {}).values())


def detect_secrets_same_input(label: str, path: Path, runs: int) -> None:
    """Both tools on exactly the same input, wall time as a user sees it."""
    (ds, ours), (proc, _) = timed_side_by_side([ds_command(path), [*HYGIENE, str(path)]], runs)
    print(
        f"{label} ({size_of(path) / MB:.0f} MB), same input: detect-secrets (AIC plugin only) "
        f"median {ds:.2f} s ({_ds_found(proc)} found; it skips files that are not UTF-8), "
        f"hygiene scan {ours:.3f} s ({count_hygiene(path)} found): {ds / ours:.0f}x"
    )


def detect_secrets_per_mb(label: str, small: Path, big: Path, runs: int) -> None:
    """Each tool's cost per extra megabyte: the difference between a big and a small slice."""
    extra_mb = (size_of(big) - size_of(small)) / MB
    (ds_small, ds_big), (_, proc) = timed_side_by_side([ds_command(small), ds_command(big)], runs)
    (ours_small, ours_big), _ = timed_side_by_side(
        [[*HYGIENE, str(small)], [*HYGIENE, str(big)]], max(runs, 9)
    )
    ds_mb, ours_mb = (ds_big - ds_small) / extra_mb, (ours_big - ours_small) / extra_mb
    print(
        f"{label} slices {size_of(small) / MB:.0f} and {size_of(big) / MB:.0f} MB: "
        f"detect-secrets {ds_small:.2f} / {ds_big:.2f} s ({_ds_found(proc)} found), "
        f"hygiene scan {ours_small:.3f} / {ours_big:.3f} s; per extra MB "
        f"{ds_mb * 1000:.0f} ms vs {ours_mb * 1000:.2f} ms: {ds_mb / ours_mb:.0f}x; "
        f"on the big slice {ds_big / ours_big:.0f}x"
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
    compare("stdlib copy", stdlib, runs)
    compare("service log", log, runs)
    hook_run(stdlib, runs)
    ds_runs, small, big = (1, 1, 4) if args.quick else (3, 8, 40)
    detect_secrets_same_input("stdlib copy", stdlib, ds_runs)
    for label, corpus in (("stdlib text", stdlib), ("log", log)):
        name = corpus.name
        detect_secrets_per_mb(
            label,
            slice_of(corpus, CORPUS / f"ds_small_{name}", small * MB),
            slice_of(corpus, CORPUS / f"ds_big_{name}", big * MB),
            ds_runs,
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
