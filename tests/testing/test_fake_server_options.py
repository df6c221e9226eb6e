"""``hygiene fake-server``: bad options refused in one line, the hostile server on --fault, a clean stop."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_deletes_the_password_file_it_made_up(signum: signal.Signals) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "fake-server"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().decode() for _ in range(4)]
        quoted = lines[3].split('"$(cat ', 1)[1].rsplit(')"', 1)[0]
        path = Path(shlex.split(quoted)[0])
        assert path.read_text().strip()
    finally:
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert b"stopped" in err
    assert b"Traceback" not in err
    assert not path.exists()
