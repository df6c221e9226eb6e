"""install(): every record of the process is masked, including httpx's INFO request lines."""

from __future__ import annotations

import http.server
import io
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest

import hygiene.masking
from hygiene.masking import Installation, RedactingFilter, install
from tests.helpers import SecretGuard
from tests.masking.conftest import stream_handler

SCRIPT = """
import logging, os, sys
import hygiene.masking
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s: %(message)s")
quiet = logging.getLogger("uvicorn.access")
quiet.propagate = False
quiet.addHandler(logging.StreamHandler(sys.stdout))
hygiene.masking.install()
hygiene.masking.install()
token = os.environ["CANARY"]
logging.getLogger("app.client.http").warning("Authorization: Bearer %s", token)
quiet.info('127.0.0.1 - "GET /cb?access_token=%s HTTP/1.1" 200', token)
later = logging.StreamHandler(sys.stdout)
logging.getLogger("late").addHandler(later)
logging.getLogger("late").error("created %s", token)
try:
    raise ValueError(token)
except ValueError:
    logging.getLogger("app").exception("failed for %s", "alice")
print("root filters", sum(len(h.filters) for h in logging.getLogger().handlers))
"""


def test_one_call_masks_the_whole_process(guard: SecretGuard) -> None:
    token = guard.pat()
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"CANARY": token, "PATH": "/usr/bin:/bin"},
    )
    guard.capture(proc.stdout, proc.stderr)
    assert "WARNING app.client.http: Authorization: Bearer pat_AIC_…" in proc.stderr
    assert "GET /cb?access_token=pat_AIC_…" in proc.stdout
    assert "created pat_AIC_…" in proc.stdout
    assert "ValueError: pat_AIC_…" in proc.stderr
    assert "root filters 1" in proc.stdout  # installed twice, attached once


@pytest.fixture
def root_sink() -> Iterator[io.StringIO]:
    handler, sink = stream_handler()
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    yield sink
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture
def installed(root_sink: io.StringIO) -> Iterator[Installation]:
    installation = install()
    yield installation
    installation.uninstall()


def test_child_loggers_records_reach_the_root_handler_masked(
    installed: Installation, root_sink: io.StringIO, guard: SecretGuard
) -> None:
    token = guard.session_token()
    logging.getLogger("service.api.client").info("refresh_token=%s expires_in=%d", token, 900)
    guard.capture(root_sink.getvalue())
    assert "expires_in=900" in root_sink.getvalue()


def test_install_is_idempotent_and_uninstall_takes_everything_back(root_sink: io.StringIO) -> None:
    make_record = logging.Logger.makeRecord
    stdout, stderr = sys.stdout, sys.stderr
    first = install()
    second = install()
    assert second.handlers == []
    assert second.make_record is None
    assert second.streams == {}
    assert sys.stdout is not stdout
    root_handlers = logging.getLogger().handlers
    assert all(sum(isinstance(f, RedactingFilter) for f in h.filters) == 1 for h in root_handlers)
    first.uninstall()
    assert logging.Logger.makeRecord is make_record
    assert (sys.stdout, sys.stderr) == (stdout, stderr)
    assert not any(isinstance(f, RedactingFilter) for h in root_handlers for f in h.filters)


def test_a_make_record_hook_put_there_before_install_still_runs(
    logger: logging.Logger, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """install() makes a record itself only when the hook under it is the standard
    library's own makeRecord; another library's hook keeps running, extras or not."""
    made: list[object] = []
    stock = logging.Logger.makeRecord

    def theirs(self: logging.Logger, *args: object, **kwargs: object) -> logging.LogRecord:
        record = stock(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(record.msg)  # the template: no secret kept
        return record

    monkeypatch.setattr(logging.Logger, "makeRecord", theirs)
    handler, sink = stream_handler()
    logger.addHandler(handler)
    token = guard.pat()
    installation = install(streams=False)
    try:
        logger.info("created %s", token)
        logger.info("user %s", "al", extra={"request_id": 7})
    finally:
        installation.uninstall()
    assert made == ["created %s", "user %s"]
    guard.capture(sink.getvalue())
    assert "created pat_AIC_…" in sink.getvalue()


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:  # the server's own log: off
        return


@pytest.fixture
def loopback_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_httpx_info_request_lines_are_masked(
    installed: Installation, root_sink: io.StringIO, loopback_url: str, guard: SecretGuard
) -> None:
    token, pat = guard.session_token(), guard.pat()
    with httpx.Client() as client:
        client.get(f"{loopback_url}/cb", params={"access_token": token, "state": "s1"})
        client.get(f"{loopback_url}/api/v1/x", params={"token": pat})
    out = root_sink.getvalue()
    guard.capture(out)
    assert "HTTP Request: GET" in out
    assert "state=s1" in out
    assert ' 200 OK"' in out


def test_readme_advice_httpx_at_warning_writes_no_request_line(
    root_sink: io.StringIO, loopback_url: str, guard: SecretGuard
) -> None:
    token = guard.session_token()
    httpx_logger = logging.getLogger("httpx")
    level = httpx_logger.level
    httpx_logger.setLevel(logging.WARNING)
    try:
        with httpx.Client() as client:
            client.get(f"{loopback_url}/cb", params={"access_token": token})
    finally:
        httpx_logger.setLevel(level)
    guard.capture(root_sink.getvalue())
    assert "HTTP Request" not in root_sink.getvalue()


def test_public_names() -> None:
    assert set(hygiene.masking.__all__) >= {
        "mask",
        "RedactingFilter",
        "install",
        "structlog_processor",
    }
    for name in hygiene.masking.__all__:
        assert getattr(hygiene.masking, name) is not None
