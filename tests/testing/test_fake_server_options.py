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

from tests.helpers import SAFETY_TIMEOUT, run_hygiene


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
        answer = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/auth/login", json={}, timeout=SAFETY_TIMEOUT
        )
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/html"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=SAFETY_TIMEOUT)


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
        _out, err = proc.communicate(timeout=SAFETY_TIMEOUT)
    assert proc.returncode == 0
    assert b"stopped" in err
    assert b"Traceback" not in err
    assert not path.exists()


def test_a_stop_while_the_banner_is_written_is_a_clean_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C between the banner's lines (a reader that signals once it has the password
    file's line) stops as cleanly as one during the wait: "stopped", exit 0, file deleted.
    In-process, so the interrupt lands there every time, not by chance."""
    import click

    from hygiene.commands import fake_server

    real_echo = click.echo

    def echo(message: object = None, *args: object, **kwargs: object) -> None:
        if str(message).startswith("organizations:"):
            raise KeyboardInterrupt
        real_echo(message, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fake_server.click, "echo", echo)
    previous = signal.getsignal(signal.SIGTERM)  # the command installs its own
    try:
        status = fake_server.command.callback(  # type: ignore[misc]
            password_file=None,
            token_lifetime=900.0,
            no_refresh=False,
            rate_limit=None,
            fail_probability=0.0,
            port=0,
            faults=(),
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    out, err = capsys.readouterr()
    quoted = out.splitlines()[3].split('"$(cat ', 1)[1].rsplit(')"', 1)[0]
    assert status == 0
    assert "stopped" in err
    assert not Path(shlex.split(quoted)[0]).exists()
