"""A command that holds credentials leaves no core dump: a crash (or a signal that dumps core,
sent by anyone who may) must not write AIC_PASSWORD or a session to disk."""

from __future__ import annotations

import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import SecretGuard, new_pat

COMMANDS = {
    "revoke-leaked": ["revoke-leaked", "--token-id", "tok_1", "--yes"],
    "tokens create": ["tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "7"],
    "scan --verify": ["scan", "--verify", "leak.env"],
}


@pytest.fixture
def stalling_service() -> Iterator[socket.socket]:
    """A listener on loopback that accepts and never answers: the command waits, holding its
    credentials, until it is killed."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(60)
        yield server


def _allow_core_dumps() -> None:
    # What a careless service unit or shell does: `ulimit -c unlimited`.
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="core files as Linux writes them")
@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGABRT, signal.SIGQUIT])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_crashing_command_leaves_no_core_with_its_credentials(
    tmp_path: Path,
    guard: SecretGuard,
    stalling_service: socket.socket,
    name: str,
    sig: signal.Signals,
) -> None:
    if Path("/proc/sys/kernel/core_pattern").read_text().strip() != "core":
        pytest.skip("this machine's core_pattern does not write core files to the cwd")
    password = guard.remember("pw-" + secrets.token_urlsafe(18))
    (tmp_path / "leak.env").write_text(f"TOKEN={guard.remember(new_pat())}\n")
    port = stalling_service.getsockname()[1]
    env = dict(
        os.environ,
        AIC_BASE_URL=f"http://127.0.0.1:{port}",
        AIC_EMAIL="responder@example.invalid",
        AIC_PASSWORD=password,
        HYGIENE_INVENTORY=str(tmp_path / "inventory.sqlite"),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", *COMMANDS[name]],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_allow_core_dumps,
    )
    try:
        conn, _ = stalling_service.accept()  # the command is now waiting, credentials loaded
        with conn:
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    guard.capture(out, err)
    assert proc.returncode == -sig
    cores = [p.name for p in tmp_path.iterdir() if p.name.startswith("core")]
    assert cores == []
