"""Benchmark the token inventory on both stores: records written and look-ups answered per
second, and whole `hygiene tokens create` runs per second against the stand-in.

    python bench/inventory_bench.py            # 3 rounds; 500 records, 2,000 look-ups, 10 creates
    python bench/inventory_bench.py --quick    # 1 round, fewer of each

The PostgreSQL store runs on a throwaway local cluster (tests/pgcluster.py: Debian's
postgresql binaries, fsync on as a production server runs); the SQLite store on a file in a
temp folder. Both commit every record in its own transaction, to disk.
Look-ups are `by_fingerprint` of recorded fingerprints, one connection, as `watch` and
`revoke-leaked` make them. Medians of the rounds, and the ratio PostgreSQL / SQLite.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hygiene.detection import fingerprint  # noqa: E402
from hygiene.inventory import open_inventory  # noqa: E402
from hygiene.testing import ControlPlane  # noqa: E402
from tests import pgcluster  # noqa: E402


def _values(n: int) -> list[str]:
    return ["pat_AIC_" + secrets.token_urlsafe(24) for _ in range(n)]


def records_per_second(where: str, n: int) -> float:
    values = _values(n)
    with open_inventory(where) as inventory:
        start = time.perf_counter()
        for i, value in enumerate(values):
            inventory.add(f"tok_{secrets.token_hex(6)}_{i}", value, name="b", scopes=["s"],
                          expires_at=None)  # fmt: skip
        return n / (time.perf_counter() - start)


def lookups_per_second(where: str, n: int) -> float:
    with open_inventory(where, create=False) as inventory:
        prints = [e.fingerprint for e in inventory.entries()]
        asked = [random.choice(prints) for _ in range(n)]
        start = time.perf_counter()
        for fp in asked:
            inventory.by_fingerprint(fp)
        return n / (time.perf_counter() - start)


def creates_per_second(where: str, plane: ControlPlane, n: int) -> float:
    env = {**os.environ, **plane.env(), "HYGIENE_INVENTORY": where}
    args = [sys.executable, "-m", "hygiene", "tokens", "create", "--name", "b", "--scope",
            "safes:read", "--days", "5"]  # fmt: skip
    start = time.perf_counter()
    for _ in range(n):
        proc = subprocess.run(args, env=env, capture_output=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"tokens create failed: {proc.stderr.decode().strip()}")
        assert fingerprint(proc.stdout.decode().strip()).startswith("sha256:")
    return n / (time.perf_counter() - start)


def _fresh_postgres(admin: str, password: str) -> str:
    import psycopg

    name = "bench_" + secrets.token_hex(4)
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return admin.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rounds, records, lookups, creates = (1, 200, 500, 4) if quick else (3, 500, 2000, 10)
    folder, admin = pgcluster.start(durable=True)
    try:
        password = (folder / "password").read_text()
        pgcluster.wait_ready(admin, password)
        os.environ["PGPASSWORD"] = password
        figures: dict[str, dict[str, list[float]]] = {"sqlite": {}, "postgresql": {}}
        with ControlPlane() as plane, tempfile.TemporaryDirectory() as tmp:
            for r in range(rounds):
                stores: dict[str, Callable[[], str]] = {
                    "sqlite": lambda r=r: str(Path(tmp) / f"inv{r}-{secrets.token_hex(3)}.db"),
                    "postgresql": lambda: _fresh_postgres(admin, password),
                }
                for kind, make in stores.items():
                    where = make()
                    got = figures[kind]
                    got.setdefault("records/s", []).append(records_per_second(where, records))
                    got.setdefault("look-ups/s", []).append(lookups_per_second(where, lookups))
                    got.setdefault("tokens create/s", []).append(
                        creates_per_second(where, plane, creates)
                    )
        print(f"{rounds} round(s): {records} records, {lookups} look-ups, {creates} creates")
        print(f"{'figure':<18}{'sqlite':>12}{'postgresql':>12}{'pg/sqlite':>11}")
        for figure in ("records/s", "look-ups/s", "tokens create/s"):
            lite = statistics.median(figures["sqlite"][figure])
            pg = statistics.median(figures["postgresql"][figure])
            print(f"{figure:<18}{lite:>12.1f}{pg:>12.1f}{pg / lite:>10.2f}x")
    finally:
        pgcluster.stop(folder)


if __name__ == "__main__":
    main()
