"""What masking costs a real service: uvicorn + FastAPI with a token in every URL.

    python bench/uvicorn_bench.py            # 7 rounds of 1,500 requests per set-up
    python bench/uvicorn_bench.py --quick    # 5 rounds of 800

Three servers run side by side in subprocesses on 127.0.0.1, each ``uvicorn.run(app)`` with
its access log on (to a file, as a service writes it): ``plain`` (no masking), ``install``
(``hygiene.masking.install()`` at start-up, streams guarded, as docs/masking.md says) and
``recipe`` (``log_config=`` :func:`hygiene.masking.recipes.uvicorn.log_config`, the filter
alone). Every request is ``GET /items/<n>?access_token=<PAT>`` (a new PAT per round), so every
access-log line holds a token.

The load generator is httpx (an ``AsyncClient`` per server, a few concurrent clients with
keep-alive); rounds alternate between the servers so that load from other processes hits all
alike. Reported per set-up: median requests/s (wall time) and the server's median CPU time
per request (``/proc/<pid>/stat``: what masking adds, less exposed to a shared machine's
noise), each as a ratio to ``plain`` (goal: requests/s at least 0.9x). Where the load
generator cannot keep a server busy (2 shared cores), requests/s measure the client: the
capacity ratio (plain's CPU per request over this one's) is judged too. At the end, the logs
are checked: every request has its access line, and no masked log holds a token.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

GOAL = 0.9
CONCURRENCY = 4
MODES = ("plain", "install", "recipe")

SERVER = textwrap.dedent(
    """
    import sys

    import uvicorn
    from fastapi import FastAPI

    mode, port = sys.argv[1], int(sys.argv[2])
    # uvicorn's access log goes to stdout, its other records to stderr: both to one file.
    sys.stdout = sys.stderr = open(sys.argv[3], "w", buffering=1)
    config = None
    if mode == "install":
        from hygiene.masking import install

        install()
    elif mode == "recipe":
        from hygiene.masking.recipes.uvicorn import log_config

        config = log_config()

    app = FastAPI()


    @app.get("/items/{item}")
    async def item(item: int, access_token: str = "") -> dict[str, object]:
        return {"item": item, "authorized": bool(access_token)}


    kwargs = {"log_config": config} if config is not None else {}
    uvicorn.run(app, host="127.0.0.1", port=port, access_log=True, log_level="info", **kwargs)
    """
)


@dataclass
class Server:
    mode: str
    port: int
    log: Path
    process: subprocess.Popen[bytes]
    rates: list[float] = field(default_factory=list)
    cpu_us: list[float] = field(default_factory=list)
    requests: int = 0

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(mode: str, workdir: Path) -> Server:
    script = workdir / "server.py"
    script.write_text(SERVER)
    port, log = _free_port(), workdir / f"{mode}.log"
    process = subprocess.Popen(
        [sys.executable, str(script), mode, str(port), str(log)],
        stdout=subprocess.DEVNULL,
        cwd=workdir,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/items/0", timeout=1)
            return Server(mode, port, log, process)
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the {mode} server did not start")


async def _load(port: int, count: int, token: str) -> None:
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits) as client:
        todo = iter(range(count))

        async def worker() -> None:
            for n in todo:
                response = await client.get(f"/items/{n}", params={"access_token": token})
                response.raise_for_status()

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))


def one_round(server: Server, count: int) -> None:
    token = "pat_AIC_" + secrets.token_urlsafe(24)
    cpu, start = server.cpu_seconds(), time.perf_counter()
    asyncio.run(_load(server.port, count, token))
    wall = time.perf_counter() - start
    server.rates.append(count / wall)
    server.cpu_us.append((server.cpu_seconds() - cpu) / count * 1e6)
    server.requests += count


def check_logs(servers: list[Server]) -> None:
    for server in servers:
        text = server.log.read_text(encoding="utf-8", errors="replace")
        lines = text.count('"GET /items/')
        assert lines == server.requests + 1, f"{server.mode}: {lines} access lines"
        leaked = text.count("pat_AIC_") - text.count("pat_AIC_…")
        if server.mode == "plain":
            assert leaked > 0, "the unmasked server should log its tokens"
        else:
            assert leaked == 0, f"{server.mode}: {leaked} tokens in its log"
            assert "Logging error" not in text, f"{server.mode}: logging errors"


def report(servers: list[Server], count: int, rounds: int) -> None:
    print(
        f"uvicorn + FastAPI, GET /items/<n>?access_token=<PAT>, access log on; httpx with "
        f"{CONCURRENCY} concurrent clients, {count} requests x {rounds} rounds per set-up"
    )
    base_rate = statistics.median(servers[0].rates)
    base_cpu = statistics.median(servers[0].cpu_us)
    for server in servers:
        rate, cpu = statistics.median(server.rates), statistics.median(server.cpu_us)
        # A server that is not busy all the time waits for the client: then requests/s
        # measure the client, and the capacity (1 / CPU per request) is what masking costs.
        busy = rate * cpu / 1e6
        line = f"  {server.mode:8} {rate:7.0f} req/s {rate / base_rate:5.3f}x (server busy {busy:4.0%})"
        line += f" | server CPU {cpu:6.0f} us/request, capacity {base_cpu / cpu:5.3f}x"
        if server.mode != "plain":
            worst = min(rate / base_rate, base_cpu / cpu)
            line += " ok" if worst >= GOAL else " UNDER GOAL"
        print(line)
    print(
        f"  (goal: requests/s and capacity at least {GOAL}x plain; logs checked: every "
        "request's access line, no token in a masked log)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds of 800 requests")
    args = parser.parse_args()
    count, rounds = (800, 5) if args.quick else (1500, 7)
    with tempfile.TemporaryDirectory(prefix="uvicorn-bench-") as tmp:
        servers = [start(mode, Path(tmp)) for mode in MODES]
        try:
            for server in servers:  # warm-up, not counted
                asyncio.run(_load(server.port, 100, "pat_AIC_" + secrets.token_urlsafe(24)))
                server.requests += 100
            for _ in range(rounds):
                for server in servers:
                    one_round(server, count)
        finally:
            for server in servers:
                server.process.terminate()
                server.process.wait(timeout=10)
        report(servers, count, rounds)
        check_logs(servers)


if __name__ == "__main__":
    main()
