"""Benchmark revoking PATs against the stand-in, without and with a server-side rate limit.

    python bench/revoke_bench.py            # 500 ids; no limit, 50/s and 100/s; 3 runs each
    python bench/revoke_bench.py --quick    # 200 ids; no limit and 100/s; 1 run each

The stand-in runs in its own process (so it does not share the client's interpreter lock);
each run seeds fresh PATs there, then times ``hygiene.revoke.revoke_all`` (login, memberships,
every DELETE) in this process. Targets: without a limit at least 200 revocations per second;
with a limit of N/s the run takes at most 1.10 x ids/N seconds (and is never faster than the
limit allows: the server answers 429 otherwise, and the count of 429s is printed).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from multiprocessing.connection import Connection

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import load_config
from hygiene.revoke.plan import REVOKED, Target
from hygiene.revoke.run import revoke_all
from hygiene.testing import ControlPlane

MIN_UNLIMITED_RATE = 200.0
MAX_LIMITED_RATIO = 1.10


def serve(conn: Connection) -> None:
    """The stand-in's process: answer (command, argument) messages until told to stop."""
    with ControlPlane() as plane:
        conn.send(plane.env())
        while True:
            command, arg = conn.recv()
            if command == "seed":
                plane.switches.set_rate_limit(None)
                ids = [
                    plane.state.create_pat(plane.email, "org_main", f"b{n}", ["safes:read"], 30)[
                        0
                    ].token_id
                    for n in range(arg)
                ]
                plane.clear_requests()
                conn.send(ids)
            elif command == "limit":
                plane.switches.set_rate_limit(arg)
                conn.send(None)
            elif command == "throttled":
                conn.send(sum(1 for r in plane.requests if r.status == 429))
            else:
                return


def one_run(
    conn: Connection, env: dict[str, str], ids: int, limit: int | None
) -> tuple[float, int]:
    """Seed ``ids`` PATs, set the limit, revoke them all: (seconds, 429s the server sent)."""
    conn.send(("seed", ids))
    targets = [Target(token_id) for token_id in conn.recv()]
    conn.send(("limit", limit))
    conn.recv()
    client = ControlPlaneClient(load_config(env))
    start = time.perf_counter()
    try:
        results = revoke_all(client, targets)
    finally:
        client.close()
    elapsed = time.perf_counter() - start
    assert all(r.status == REVOKED for r in results), "not every id was revoked"
    conn.send(("throttled", None))
    return elapsed, int(conn.recv())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller, one run per case")
    parser.add_argument("--ids", type=int, help="ids per run (default 500, quick 200)")
    parser.add_argument("--runs", type=int, help="runs per case (default 3, quick 1)")
    args = parser.parse_args(argv)
    ids = args.ids or (200 if args.quick else 500)
    runs = args.runs or (1 if args.quick else 3)
    limits: list[int | None] = [None, 100] if args.quick else [None, 50, 100]

    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(child,), daemon=True)
    server.start()
    env = parent.recv()
    ok = True
    print(f"revoking {ids} ids, {runs} run(s) per case, median shown")
    try:
        for limit in limits:
            timings = [one_run(parent, env, ids, limit) for _ in range(runs)]
            median = statistics.median(t for t, _ in timings)
            throttled = max(n for _, n in timings)
            if limit is None:
                rate = ids / median
                passed = rate >= MIN_UNLIMITED_RATE
                print(
                    f"no limit : {median:7.2f} s  {rate:7.0f} revocations/s  "
                    f"(target >= {MIN_UNLIMITED_RATE:.0f}/s)  {'PASS' if passed else 'FAIL'}"
                )
            else:
                ideal = ids / limit
                ratio = median / ideal
                passed = ratio <= MAX_LIMITED_RATIO
                print(
                    f"{limit:4d}/s  : {median:7.2f} s  ideal {ideal:6.2f} s  ratio {ratio:5.3f} "
                    f"(target <= {MAX_LIMITED_RATIO})  429s: {throttled}  "
                    f"{'PASS' if passed else 'FAIL'}"
                )
            ok = ok and passed
    finally:
        parent.send(("stop", None))
        server.join(timeout=10)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
