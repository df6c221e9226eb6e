"""Benchmark ``hygiene watch``: how fast a leaked PAT dies, and whether a busy log is kept up with.

    python bench/watch_bench.py            # 200 leaks; a clean log growing at 100 MB/s for 10 s
    python bench/watch_bench.py --quick    # 50 leaks; 4 s of growth
    python bench/watch_bench.py --flood    # only 3: 20,000 unknown PATs, then one real leak

1. Latency: ``hygiene watch app.log --revoke`` (the installed command, a real process) follows a
   log while this script appends one line holding a leaked PAT at a time (each recorded in the
   inventory first) and times the moment the line is written to the moment the stand-in receives
   the DELETE for it. Goal: median at most 0.3 s, worst at most 1 s.
2. Lag: a writer appends clean log lines at 100 MB/s while ``hygiene watch`` (no --revoke)
   follows; every 0.25 s a line with an unknown PAT is written and the time until its event
   appears on the watcher's stdout is its lag. Goal: lag under 1 s all along (not falling
   behind).
3. Flood: ``hygiene watch app.log --revoke`` (with and without ``--state``) follows a log that
   receives 20,000 lines, each with a PAT the inventory does not know, then one line with a
   leaked PAT that it does. Per round: unknown PATs handled per second (their events on stdout
   over the time until the last one), and seconds from the flood's first write to the stand-in's
   DELETE of the real leak. Median of the rounds; goal: the real leak dies within seconds, and
   time grows linearly with the flood.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from hygiene.inventory import open_inventory
from hygiene.testing import ControlPlane
from hygiene.testing.server import RecordedRequest

LINE = b"2026-11-22T10:00:00.000Z INFO  request handled path=/api/v1/safes status=200 ms=12\n"


def _hygiene() -> str:
    return str(Path(sys.executable).with_name("hygiene"))


def _watch(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [_hygiene(), "watch", "--format", "json", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    proc.stderr.readline()  # "following N path(s)": it is reading
    return proc


def _drain(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    for _ in proc.stdout:
        pass


def _new_pat() -> str:
    return "pat_AIC_" + secrets.token_urlsafe(24)


def latency(count: int, folder: Path) -> list[float]:
    """Seconds from writing a leaked PAT's line to its DELETE at the stand-in, per leak."""
    deletes: dict[str, float] = {}
    with ControlPlane() as plane:
        original = plane.record

        def record(request: RecordedRequest) -> None:
            if request.method == "DELETE":
                deletes[request.path.rsplit("/", 1)[-1]] = time.monotonic()
            original(request)

        plane.record = record  # type: ignore[method-assign]
        inventory = folder / "inventory.sqlite3"
        env = {**os.environ, **plane.env(), "HYGIENE_INVENTORY": str(inventory)}
        log = folder / "app.log"
        log.write_bytes(b"")
        watch = _watch(["app.log", "--revoke"], folder, env)
        # Its events must be read, as any pipe's: a full pipe would stop the watcher's writes.
        threading.Thread(target=_drain, args=(watch,), daemon=True).start()
        times = []
        try:
            for n in range(count):
                pat, value = plane.state.create_pat(plane.email, "org_main", f"w{n}", ["a"], 30)
                with open_inventory(inventory) as inv:
                    inv.add(pat.token_id, value, name=pat.name, scopes=(), expires_at=None)
                with log.open("ab") as f:
                    written = time.monotonic()
                    f.write(f"DEBUG retry url=https://pam/x?token={value}\n".encode())
                while pat.token_id not in deletes:
                    time.sleep(0.001)
                times.append(deletes[pat.token_id] - written)
        finally:
            watch.terminate()
            watch.wait(30)
    return times


def _writer(log: Path, seconds: float, rate: float, marks: list[tuple[str, float]]) -> None:
    block = LINE * ((1 << 20) // len(LINE))
    started = time.monotonic()
    next_mark = started
    written = 0
    with log.open("ab", buffering=0) as f:
        while (now := time.monotonic()) - started < seconds:
            if now >= next_mark:
                value = _new_pat()
                marks.append((value, time.monotonic()))
                f.write(f"WARN leaked {value}\n".encode())
                next_mark += 0.25
            if written < rate * (now - started):
                f.write(block)
                written += len(block)
            else:
                time.sleep(0.001)


def lag(seconds: float, folder: Path, rate: float = 100e6) -> tuple[list[float], float]:
    """Per marked line, seconds until the watcher reported it; and the MB/s actually written."""
    log = folder / "busy.log"
    log.write_bytes(b"")
    watch = _watch(["busy.log"], folder, dict(os.environ))
    assert watch.stdout is not None
    seen: dict[str, float] = {}

    def read() -> None:
        assert watch.stdout is not None
        for line in watch.stdout:
            seen[json.loads(line)["fingerprint"]] = time.monotonic()

    threading.Thread(target=read, daemon=True).start()
    marks: list[tuple[str, float]] = []
    _writer(log, seconds, rate, marks)
    time.sleep(2.0)
    watch.terminate()
    watch.wait(30)
    from hygiene.detection import fingerprint

    lags = [seen.get(fingerprint(v), float("inf")) - t for v, t in marks]
    return lags, log.stat().st_size / seconds / 1e6


def _flood_round(count: int, folder: Path, state: bool, timeout: float) -> tuple[float, float]:
    """One round: (unknown PATs handled per second, seconds until the real leak's DELETE)."""
    deleted: list[float] = []
    with ControlPlane() as plane:
        original = plane.record

        def record(request: RecordedRequest) -> None:
            if request.method == "DELETE":
                deleted.append(time.monotonic())
            original(request)

        plane.record = record  # type: ignore[method-assign]
        inventory = folder / "inventory.sqlite3"
        inventory.unlink(missing_ok=True)
        env = {**os.environ, **plane.env(), "HYGIENE_INVENTORY": str(inventory)}
        pat, value = plane.state.create_pat(plane.email, "org_main", "real", ["a"], 30)
        with open_inventory(inventory) as inv:
            inv.add(pat.token_id, value, name=pat.name, scopes=(), expires_at=None)
        log = folder / "flood.log"
        log.write_bytes(b"")
        args = ["flood.log", "--revoke"]
        if state:
            (folder / "flood.state").unlink(missing_ok=True)
            args += ["--state", "flood.state"]
        watch = _watch(args, folder, env)
        events: list[float] = []

        def read() -> None:
            assert watch.stdout is not None
            for _ in watch.stdout:
                events.append(time.monotonic())

        threading.Thread(target=read, daemon=True).start()
        lines = b"".join(f"WARN token={_new_pat()} rejected\n".encode() for _ in range(count))
        started = time.monotonic()
        with log.open("ab") as f:
            f.write(lines)
            f.write(f"DEBUG retry url=https://pam/x?token={value}\n".encode())
        while not deleted and time.monotonic() - started < timeout:
            time.sleep(0.005)
        while len(events) < count and time.monotonic() - started < timeout:
            time.sleep(0.005)
        watch.terminate()
        watch.wait(60)
    real = deleted[0] - started if deleted else float("inf")
    handled = len(events) / (max(events[: count + 1]) - started) if events else 0.0
    return handled, real


def flood(rounds: int, count: int, folder: Path, timeout: float) -> None:
    """Print the flood figures with and without --state (median of ``rounds``)."""
    for state in (False, True):
        results = [_flood_round(count, folder, state, timeout) for _ in range(rounds)]
        rates = [r for r, _ in results]
        reals = [t for _, t in results]
        print(
            f"flood of {count} unknown PATs then one real leak, --revoke"
            f"{' --state' if state else ''}: {statistics.median(rates):.0f} unknown/s handled,"
            f" real leak revoked after {statistics.median(reals):.2f} s"
            f" (median of {rounds}; all: {', '.join(f'{t:.2f}' for t in reals)} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--flood", action="store_true", help="only the flood figures")
    parser.add_argument("--count", type=int, default=20_000, help="unknown PATs per flood")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per flood round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.flood:
            flood(args.rounds, args.count, folder, args.timeout)
            return
        times = latency(50 if args.quick else 200, folder)
        print(
            f"latency write -> DELETE over {len(times)} leaks: median {statistics.median(times):.3f}"
            f" s, p95 {sorted(times)[int(len(times) * 0.95) - 1]:.3f} s, worst {max(times):.3f} s"
            " (goal: median <= 0.3 s, worst <= 1 s)"
        )
        lags, rate = lag(4.0 if args.quick else 10.0, folder)
        print(
            f"lag on a log growing at {rate:.0f} MB/s: median {statistics.median(lags):.3f} s, "
            f"worst {max(lags):.3f} s over {len(lags)} marks (goal: under 1 s)"
        )
        flood(args.rounds, args.count, folder, args.timeout)


if __name__ == "__main__":
    main()
