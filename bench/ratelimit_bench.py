"""Benchmark revoking under tight rate limits: the floor, the client, and the client unlearned.

    python bench/ratelimit_bench.py            # 2,000 ids at 100/s; 16 ids at 1/s; 3 runs each
    python bench/ratelimit_bench.py --quick    # one run each

Cases (the stand-in runs in its own process, a fixed window per second from its first call):

* ``100/s retry-after only``: 2,000 ids; the server sends no ``x-ratelimit-*`` header, only
  ``retry-after`` (whole seconds) on its 429s. Target: within 1.05 x the 20 s floor.
* ``1/s`` with and without ``x-ratelimit-*`` headers: 16 ids. Target: zero failures.

Each case runs the client as shipped and, side by side, the same client with the rate gate's
learned pacing switched off (``unlearned``: it bursts until the next 429, as before), so the
ratio of the two shows what pacing buys. Revocation is 8 threads over one client, like
``revoke-leaked``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import load_config
from hygiene.api.ratelimit import RateGate
from hygiene.errors import ApiError
from hygiene.testing import ControlPlane

WORKERS = 8
MAX_RATIO = 1.05


def serve(conn: Connection) -> None:
    """The stand-in's process: answer (command, argument) messages until told to stop."""
    with ControlPlane() as plane:
        conn.send(plane.env())
        while True:
            command, arg = conn.recv()
            if command == "seed":
                plane.switches.set_rate_limit(None)
                pats = [
                    plane.state.create_pat(plane.email, "org_main", f"b{n}", ["safes:read"], 30)
                    for n in range(arg)
                ]
                plane.clear_requests()
                conn.send([pat.token_id for pat, _ in pats])
            elif command == "limit":
                per_second, headers = arg
                plane.switches.rate_headers = headers
                plane.switches.set_rate_limit(per_second)
                conn.send(None)
            elif command == "throttled":
                conn.send(sum(1 for r in plane.requests if r.status == 429))
            else:
                return


def unlearn(client: ControlPlaneClient) -> None:
    """Switch off learned pacing: the gate bursts until the next 429 (the old behaviour)."""

    def no_learning(self: RateGate, retry_after: float, generation: int) -> None:
        return None

    client.gate._learn = no_learning.__get__(client.gate)  # type: ignore[method-assign]


def revoke(client: ControlPlaneClient, token_id: str) -> bool:
    try:
        return client.revoke_pat(token_id) == 204
    except ApiError:
        return False


def one_run(
    conn: Connection, env: dict[str, str], ids: int, limit: tuple[int, bool], learned: bool
) -> tuple[float, int, int]:
    """Seed, limit, revoke all: (seconds, ids not revoked, 429s the server sent)."""
    conn.send(("seed", ids))
    token_ids = conn.recv()
    conn.send(("limit", limit))
    conn.recv()
    client = ControlPlaneClient(load_config(env))
    if not learned:
        unlearn(client)
    start = time.perf_counter()
    try:
        client.use_org()
        with ThreadPoolExecutor(WORKERS) as pool:
            done = list(pool.map(lambda token_id: revoke(client, token_id), token_ids))
    finally:
        client.close()
    elapsed = time.perf_counter() - start
    conn.send(("throttled", None))
    return elapsed, done.count(False), int(conn.recv())


def case(
    conn: Connection, env: dict[str, str], ids: int, limit: tuple[int, bool], runs: int
) -> bool:
    per_second, headers = limit
    floor = ids / per_second
    kind = "x-ratelimit-* + retry-after" if headers else "retry-after only"
    print(
        f"\n{ids} ids at {per_second}/s, {kind}: floor {floor:.2f} s "
        "(DELETEs only; login and memberships use 2 more slots)",
        flush=True,
    )
    ok = True
    for learned in (True, False):
        timings = [one_run(conn, env, ids, limit, learned) for _ in range(runs)]
        median = statistics.median(t for t, _, _ in timings)
        failed = max(f for _, f, _ in timings)
        throttled = statistics.median(n for _, _, n in timings)
        ratio = median / floor
        name = "client   " if learned else "unlearned"
        target = ratio <= MAX_RATIO if per_second >= 100 else failed == 0
        verdict = ("PASS" if target and failed == 0 else "FAIL") if learned else "(compared)"
        print(
            f"  {name}: median {median:6.2f} s  ratio {ratio:5.3f}  failed {failed:3d}  "
            f"429s {throttled:5.0f}  {verdict}",
            flush=True,
        )
        if learned:
            ok = ok and target and failed == 0
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run per case")
    parser.add_argument("--runs", type=int, help="runs per case (default 3, quick 1)")
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 3)
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(child,), daemon=True)
    server.start()
    env = parent.recv()
    print(
        f"{runs} run(s) per case, {WORKERS} threads, medians; target ratio <= {MAX_RATIO}",
        flush=True,
    )
    try:
        ok = case(parent, env, 2000, (100, False), runs)
        ok = case(parent, env, 16, (1, True), runs) and ok
        ok = case(parent, env, 16, (1, False), runs) and ok
    finally:
        parent.send(("stop", None))
        server.join(timeout=10)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
