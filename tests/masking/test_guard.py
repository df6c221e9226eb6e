"""The stream guard, in real processes: print, crashes, dying threads, unraisable exceptions,
binary writes and ``http.client``'s debug dump against a loopback ``http.server``."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import time

import pytest

from hygiene.masking import install
from hygiene.masking.guard import GuardedBinary, GuardedText
from tests.helpers import SecretGuard

SCRIPT = r"""
import gc, http.client, http.server, logging, os, sys, threading
early = logging.StreamHandler(sys.stderr)  # made before install(): holds the real stream
early.setFormatter(logging.Formatter("EARLY %(message)s"))
logging.getLogger("early").addHandler(early)
import hygiene.masking
hygiene.masking.install()
token, session = os.environ["CANARY"], os.environ["SESSION"]
print("print", token)
print("partial", token, end="", flush=True)
sys.stdout.write(" end of partial\n")
sys.stdout.buffer.write(b"binary Authorization: Bearer " + session.encode() + b"\n")
sys.stdout.flush()
sys.stderr.write("stderr access_token=" + session + "\n")
logging.getLogger("early").warning("Bearer %s", session)
late = logging.StreamHandler()  # made after install(): writes through the guard
late.setFormatter(logging.Formatter("LATE %(message)s"))
logging.getLogger("late").addHandler(late)
logging.getLogger("late").warning("%s", token)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Set-Cookie", "session=" + session + "; Path=/")
        self.end_headers()
        self.wfile.write(b"ok")

server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.handle_request, daemon=True).start()
conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
conn.set_debuglevel(1)
conn.request("GET", "/cb?access_token=" + token, headers={
    "Authorization": "Bearer " + session, "Cookie": "session=" + session})
conn.getresponse().read()

def die():
    raise RuntimeError("thread died holding " + token)

thread = threading.Thread(target=die)
thread.start()
thread.join()

class Leaky:
    def __del__(self):
        raise ValueError("unraisable " + token)

Leaky()
gc.collect()
raise SystemExit if False else RuntimeError("crash at exit with " + token)
"""


def test_everything_a_process_writes_is_masked(guard: SecretGuard) -> None:
    token, session = guard.pat(), guard.session_token()
    env = {**os.environ, "CANARY": token, "SESSION": session}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, env=env
    )
    guard.capture(proc.stdout, proc.stderr)
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 1
    assert f"print pat_AIC_…{token[-4:]}" in out
    assert f"partial pat_AIC_…{token[-4:]} end of partial" in out
    assert "binary Authorization: Bearer …" in out
    assert "stderr access_token=…" in err
    assert "EARLY Bearer …" in err
    assert "LATE pat_AIC_…" in err
    assert "send: b'GET /cb?access_token=pat_AIC_…" in out  # http.client's debug dump
    assert "Cookie: …" in out
    assert "header: Set-Cookie: …" in out
    assert '"GET /cb?access_token=pat_AIC_…' in err  # http.server's request log
    assert "Exception in thread" in err
    assert "RuntimeError: thread died holding pat_AIC_…" in err
    assert "ValueError: unraisable pat_AIC_…" in err
    assert "RuntimeError: crash at exit with pat_AIC_…" in err


LINES = r"""
import sys, hygiene.masking
hygiene.masking.install()
sys.stdout.write("first line\n")
sys.stdout.flush()
sys.stdout.write("partial, flushed")
sys.stdout.flush()
sys.stdin.readline()
"""


def test_lines_are_not_delayed() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", LINES], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdin is not None
    try:
        seen = b""
        deadline = time.monotonic() + 30
        while b"partial, flushed" not in seen and time.monotonic() < deadline:
            seen += os.read(proc.stdout.fileno(), 4096)  # the child waits: no exit flush yet
        assert seen == b"first line\npartial, flushed"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_uninstall_gives_streams_and_handlers_back(
    monkeypatch: pytest.MonkeyPatch, guard: SecretGuard
) -> None:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    handler = logging.StreamHandler(err)
    logger = logging.getLogger("hygiene-test.guard")  # registered: install() finds its handler
    logger.addHandler(handler)
    logger.propagate = False
    token = guard.pat()
    installation = install()
    try:
        assert isinstance(sys.stdout, GuardedText)
        assert handler.stream is sys.stderr
        print("token", token)
        logger.warning("token %s", token)
    finally:
        installation.uninstall()
        logger.removeHandler(handler)
    assert sys.stdout is out
    assert sys.stderr is err
    assert handler.stream is err
    guard.capture(out.getvalue(), err.getvalue())
    assert out.getvalue() == f"token pat_AIC_…{token[-4:]}\n"
    assert err.getvalue() == f"token pat_AIC_…{token[-4:]}\n"


def test_long_partial_lines_stay_bounded_and_whole(guard: SecretGuard) -> None:
    sink = io.StringIO()
    guarded = GuardedText(sink)  # type: ignore[arg-type]
    token = guard.pat()
    guarded.write("x " * 40_000)
    guarded.write(token)
    guarded.write(" " + "y" * 100_000)
    assert len(guarded._pending) < 1 << 17  # bounded, though no newline came
    guarded.flush()
    guard.capture(sink.getvalue())
    assert "pat_AIC_…" in sink.getvalue()


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("offset", range(66_520, 66_570, 4))  # the first cut: 66,560
def test_a_cut_never_splits_a_keyword_from_its_credential(
    guard: SecretGuard, binary: bool, offset: int
) -> None:
    # Keys whose values mask as one run, then a credential: wherever the writes end, the cut
    # must not fall inside `Authorization: Bearer` (found in `hygiene mask`'s long-line cut).
    session = guard.session_token()
    text = "password= " * (offset // 10) + f" Authorization: Bearer {session} end " + "y" * 70_000
    sink = io.BytesIO() if binary else io.StringIO()
    guarded = GuardedBinary(sink) if binary else GuardedText(sink)  # type: ignore[arg-type]
    for i in range(0, len(text), 1024):
        piece = text[i : i + 1024]
        guarded.write(piece.encode() if binary else piece)  # type: ignore[arg-type]
    guarded.flush()
    out = sink.getvalue()
    guard.capture(out)
    assert (b"end " if binary else "end ") in out  # type: ignore[operator]
