"""``hygiene fake-server`` refuses bad options in one line and runs the hostile server on --fault."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import httpx
import pytest

from tests.helpers import run_hygiene


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--fail-probability", "2"], "--fail-probability"),
        (["--fail-probability", "-0.1"], "--fail-probability"),
        (["--rate-limit", "-5"], "--rate-limit"),
        (["--rate-limit", "0"], "--rate-limit"),
        (["--token-lifetime", "-1"], "--token-lifetime"),
        (["--token-lifetime", "0"], "--token-lifetime"),
        (["--port", "70000"], "--port"),
        (["--fault", "login=explode"], "--fault"),
        (["--fault", "nowhere=stall"], "--fault"),
        (["--fault", "login=trickle-headers:fast"], "--fault"),
    ],
)
def test_bad_options_are_refused(args: list[str], named: str) -> None:
    proc = run_hygiene(None, "fake-server", *args)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert named in err
    assert "Traceback" not in err


def test_a_fault_runs_the_hostile_server_on_the_given_port() -> None:

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hygiene",
            "fake-server",
            "--port",
            str(port),
            "--fault",
            "login=html",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        assert first.startswith(f"hostile control plane at http://127.0.0.1:{port}")
        answer = httpx.post(f"http://127.0.0.1:{port}/api/v1/auth/login", json={}, timeout=5)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/html"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
