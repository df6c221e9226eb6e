"""Hostile servers stay bounded: compressed bombs, endless bodies and headers.

Each run is a real process against the hostile server on loopback. Memory is the child's own
peak (``ru_maxrss`` from ``wait4``), compared with the same command against a server that
answers normally: a bomb read at all would cost tens or hundreds of MiB more.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from hygiene.testing.bombs import bomb
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import (
    Answer,
    Compressed,
    EndlessChunks,
    HugeHeaders,
    Misbehaviour,
)
from tests.helpers import SecretGuard, peak_kib, with_peak_memory
from tests.hostile.common import env_for, leak, one_error_line

# More than any bounded reading could take, far less than one decoded bomb (64+ MiB).
RSS_SLACK_KIB = 40 * 1024
NOT_FOUND_BODY = {"error": "NOT_FOUND", "message": "Not found."}
MEMBERS_BODY = {"active_org_id": "org_main", "memberships": [{"org_id": "org_main", "role": "a"}]}


@dataclass
class Measured:
    """A finished child: exit status, output, and its peak resident memory in KiB."""

    returncode: int
    stdout: bytes
    stderr: bytes
    maxrss_kib: int


def measured(guard: SecretGuard, *args: str, cwd: Path, env: dict[str, str], prog: str) -> Measured:
    """Run the CLI as :func:`tests.helpers.run_hygiene` does, and read its own peak memory
    (:func:`tests.helpers.with_peak_memory`)."""
    entry = ["-m", "hygiene"]
    if prog == "revoke-leaked":
        entry = ["-c", "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())"]
    out, err = cwd / "stdout.bin", cwd / "stderr.bin"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        child = subprocess.Popen(
            with_peak_memory([sys.executable, *entry, *args], cwd / "peak.kib"),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env={**os.environ, **env},
        )
        child.wait()
    result = Measured(
        child.returncode, out.read_bytes(), err.read_bytes(), peak_kib(cwd / "peak.kib")
    )
    guard.capture(result.stdout, result.stderr)
    return result


def codings() -> list[object]:
    """Every coding; ``br`` only where the brotli package can make the bomb."""
    marks = pytest.mark.skipif(bomb("br", 1 << 20) is None, reason="brotli is not installed")
    return ["gzip", "deflate", "zstd", pytest.param("br", marks=marks)]


def verify_run(
    server: HostileServer, tmp_path: Path, guard: SecretGuard, fault: Misbehaviour | None
) -> Measured:
    """``hygiene scan --verify --format json`` of a file holding one live PAT."""
    _, value = server.state.create_pat(server.email, "org_main", "x", ["safes:read"], 30)
    guard.remember(value)
    work = tmp_path / ("faulted" if fault else "clean")
    work.mkdir()
    (work / "app.log").write_text(f"key {value}\n")
    server.clear_faults()
    if fault is not None:
        server.set_fault("memberships", fault)
    env = env_for(server, tmp_path)
    return measured(
        guard, "scan", "app.log", "--verify", "--format", "json", cwd=work, env=env, prog="hygiene"
    )


def liveness(run: Measured) -> str:
    (finding,) = json.loads(run.stdout)["findings"]
    return str(finding["live"])


# bombs -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("coding", codings())
def test_scan_verify_refuses_a_compressed_bomb_unread(
    coding: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        clean = verify_run(server, tmp_path, guard, None)
        bombed = verify_run(
            server, tmp_path, guard, Compressed(coding, 200, 256 << 20, MEMBERS_BODY)
        )
        seen = server.seen
    assert (clean.returncode, liveness(clean)) == (1, "live")
    assert bombed.returncode == 1, bombed.stderr
    assert liveness(bombed) == "unknown"  # never decoded, so never read as live
    assert "Traceback" not in bombed.stderr.decode()
    assert bombed.maxrss_kib < clean.maxrss_kib + RSS_SLACK_KIB, (
        bombed.maxrss_kib,
        clean.maxrss_kib,
    )
    # asked for identity, and the bomb was answered once: not retried
    assert all(s.headers.get("accept-encoding") == "identity" for s in seen)
    assert [s.fault for s in seen].count(f"{coding}-bomb-200") == 1


def revoke_run(
    server: HostileServer, tmp_path: Path, guard: SecretGuard, fault: Misbehaviour | None
) -> tuple[str, Measured]:
    """``revoke-leaked --token-id ID --format json --yes`` of a fresh leak; (id, run)."""
    token_id = leak(server, tmp_path, guard)
    work = tmp_path / ("faulted" if fault else "clean")
    work.mkdir()
    server.clear_faults()
    if fault is not None:
        server.set_fault("revoke", fault)
    env = env_for(server, tmp_path)
    args = ("--token-id", token_id, "--format", "json", "--yes")
    return token_id, measured(guard, *args, cwd=work, env=env, prog="revoke-leaked")


@pytest.mark.parametrize("coding", codings())
def test_revoke_refuses_a_compressed_answer_to_the_delete(
    coding: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        _, clean = revoke_run(server, tmp_path, guard, None)
        server.clear_faults()
        fault = Compressed(coding, 404, 256 << 20, NOT_FOUND_BODY)
        token_id, run = revoke_run(server, tmp_path, guard, fault)
        steps = [s.step for s in server.seen if s.fault or s.step == "logout"]
        encodings = {s.headers.get("accept-encoding") for s in server.seen}
        live = not server.state.pat(token_id).revoked
    assert clean.returncode == 0, clean.stderr
    assert run.returncode == 1, run.stderr
    (result,) = json.loads(run.stdout)["results"]
    # a NOT_FOUND inside a bomb is no proof: failed, saying why, not not_found
    assert result["status"] == "failed"
    assert "compressed" in result["error"]
    assert live
    assert run.maxrss_kib < clean.maxrss_kib + RSS_SLACK_KIB, (run.maxrss_kib, clean.maxrss_kib)
    assert steps.count("revoke") == 1  # not retried
    assert steps[-1] == "logout"
    assert encodings == {"identity"}  # login and the auth flow's own calls included


@pytest.mark.parametrize("step", ["login", "memberships"])
@pytest.mark.parametrize("coding", ["gzip", "zstd"])
def test_a_compressed_answer_to_a_step_is_one_error_line_naming_it(
    step: str, coding: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        token_id = leak(server, tmp_path, guard)
        body = MEMBERS_BODY if step == "memberships" else {"access_token": "x", "expires_in": 600}
        server.set_fault(step, Compressed(coding, 200, 64 << 20, body))
        run = measured(
            guard, "--token-id", token_id, "--yes",
            cwd=tmp_path, env=env_for(server, tmp_path), prog="revoke-leaked",
        )  # fmt: skip
        live = not server.state.pat(token_id).revoked
    assert run.returncode == 2
    message = one_error_line(_completed(run))
    assert message.startswith(f"{step}: the answer is compressed (Content-Encoding: {coding})")
    assert live
    assert run.maxrss_kib < 150 * 1024


def _completed(run: Measured) -> subprocess.CompletedProcess[bytes]:
    return subprocess.CompletedProcess([], run.returncode, run.stdout, run.stderr)


# endless bodies and headers ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "fault",
    [EndlessChunks(200), EndlessChunks(200, 0.2), HugeHeaders(2000, 1000), HugeHeaders(None, 4000)],
    ids=lambda f: f"{f.name}-{getattr(f, 'count', '')}{getattr(f, 'pause', '')}",
)
def test_scan_verify_cuts_endless_bodies_and_headers(
    fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=20) as server:
        guard.remember(server.password)
        clean = verify_run(server, tmp_path, guard, None)
        faulted = verify_run(server, tmp_path, guard, fault)
    assert faulted.returncode == 1, faulted.stderr
    assert liveness(faulted) == "unknown"
    assert "Traceback" not in faulted.stderr.decode()
    assert faulted.maxrss_kib < clean.maxrss_kib + RSS_SLACK_KIB
    # the client hung up: far less than the server would have sent in its hold time
    assert getattr(fault, "sent", 0) < 256 << 20


# what the server calls its error ---------------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    ["NOT_FOUND\r\nX-Injected: 1", "NOT_FOUND\n", " NOT_FOUND", "E" * 100_000, "<b>NOT_FOUND</b>"],
    ids=["crlf", "lf", "space", "huge", "markup"],
)
def test_an_error_code_that_is_no_code_is_not_the_services_answer(
    code: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        fault = Answer.json(404, {"error": code, "message": "Not found."}, "odd-code")
        token_id, run = revoke_run(server, tmp_path, guard, fault)
    assert run.returncode == 1, run.stderr
    (result,) = json.loads(run.stdout)["results"]
    assert (result["token_id"], result["status"], result["http_status"]) == (
        token_id,
        "failed",
        404,
    )
    assert "Injected" not in run.stdout.decode() + run.stderr.decode()
    assert len(run.stdout) < 10_000
