"""install(): every record of the process is masked, including httpx's INFO request lines."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import logging
import pathlib
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import hygiene.masking
from hygiene.masking import Installation, RedactingFilter, install
from tests.helpers import REPO_ROOT, SecretGuard, assert_no_secret, examples, secret_parts
from tests.masking.conftest import JsonFormatter, RequestContext, stream_handler
from tests.strategies import bearer_credentials, pats

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
# After a reconfiguration, a record made elsewhere (as a socket receiver makes them) reaches
# a handler that did not exist at install(), writing to the raw stream (no guard around it).
import logging.config
logging.config.dictConfig({
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"out": {"class": "logging.StreamHandler", "stream": "ext://sys.__stdout__"}},
    "loggers": {"receiver": {"handlers": ["out"], "propagate": False}},
})
received = {"name": "remote", "msg": "remote said %s", "args": (token,), "levelno": 40,
            "levelname": "ERROR"}
logging.getLogger("receiver").handle(logging.makeLogRecord(received))
print("hooked once", logging.Handler.filter.__wrapped__ is logging.Filterer.filter)
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
    assert "remote said pat_AIC_…" in proc.stdout
    assert "hooked once True" in proc.stdout  # installed twice, hooked once


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
    assert second.make_record is None
    assert second.handler_filter is None
    assert second.streams == {}
    assert sys.stdout is not stdout
    assert logging.Handler.filter.__wrapped__ is logging.Filterer.filter  # type: ignore[attr-defined]
    first.uninstall()
    assert logging.Logger.makeRecord is make_record
    assert "filter" not in vars(logging.Handler)  # inherited from Filterer again
    assert (sys.stdout, sys.stderr) == (stdout, stderr)


@contextlib.contextmanager
def _installed_over_their_hook(
    logger: logging.Logger,
) -> Iterator[tuple[logging.Handler, io.StringIO]]:
    """``install(streams=False)`` over a hook another library put there (the caller patched
    it), with a handler on ``logger`` writing into a string; uninstalled afterwards."""
    handler, sink = stream_handler()
    logger.addHandler(handler)
    installation = install(streams=False)
    try:
        yield handler, sink
    finally:
        installation.uninstall()


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
    token = guard.pat()
    with _installed_over_their_hook(logger) as (_, sink):
        logger.info("created %s", token)
        logger.info("user %s", "al", extra={"request_id": 7})
    assert made == ["created %s", "user %s"]
    guard.capture(sink.getvalue())
    assert "created pat_AIC_…" in sink.getvalue()


def test_a_handler_filter_hook_put_there_before_install_still_runs(
    logger: logging.Logger, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """install() wraps whatever ``Handler.filter`` it finds, calls it even for a handler
    without filters when it is not the standard library's own, and masks only what it lets
    through."""
    seen: list[object] = []
    stock = logging.Handler.filter

    def theirs(self: logging.Handler, record: logging.LogRecord) -> bool:
        seen.append(record.msg)  # the template: no secret kept
        return record.msg != "dropped %s" and bool(stock(self, record))

    monkeypatch.setattr(logging.Handler, "filter", theirs)
    token = guard.pat()
    with _installed_over_their_hook(logger) as (handler, sink):
        logger.info("dropped %s", "x")
        handler.handle(logging.makeLogRecord({"msg": "made elsewhere %s", "args": (token,)}))
    assert logging.Handler.filter is theirs
    assert seen == ["dropped %s", "made elsewhere %s"]
    guard.capture(sink.getvalue())
    assert sink.getvalue().endswith(": made elsewhere pat_AIC_…" + token[-4:] + "\n")
    assert sink.getvalue().count("\n") == 1  # the dropped record is not written


def test_attributes_a_record_factory_adds_are_masked(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    """The hook skips the look for extras only when the standard factory made the record:
    another factory (OpenTelemetry's, a service's own) may add any attribute."""
    token = guard.session_token()
    stock = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = stock(*args, **kwargs)
        record.upstream = f"Bearer {token}"  # (not a key of secrets: the value rules find it)
        return record

    handler, sink = stream_handler()
    handler.setFormatter(logging.Formatter("%(message)s %(upstream)s"))
    logger.addHandler(handler)
    logging.setLogRecordFactory(factory)
    installation = install(streams=False)
    try:
        logger.info("user %s", "alice")
    finally:
        installation.uninstall()
        logging.setLogRecordFactory(stock)
    guard.capture(sink.getvalue())
    assert sink.getvalue().startswith("user alice Bearer ")


@pytest.mark.parametrize("place", ["logger", "handler"])
@pytest.mark.parametrize("message", ["clean", "holding a token"])
def test_attributes_a_context_filter_adds_are_masked(
    logger: logging.Logger, guard: SecretGuard, place: str, message: str
) -> None:
    """A filter runs after the makeRecord hook saw the record (found clean, or masked): the
    attributes it adds are looked at again, by a real JSON formatter as services use it."""
    from pythonjsonlogger.json import JsonFormatter

    token = guard.session_token()
    context = RequestContext(f"Bearer {token}")
    first, first_sink = stream_handler(JsonFormatter())  # no filter: it sees the record first
    handler, sink = stream_handler(JsonFormatter())
    (logger if place == "logger" else handler).addFilter(context)
    logger.addHandler(first)
    logger.addHandler(handler)
    installation = install(streams=False)
    try:
        logger.info(
            "user %s signed in with %s", "alice", guard.pat() if message != "clean" else "mfa"
        )
    finally:
        installation.uninstall()
    guard.capture(first_sink.getvalue(), sink.getvalue())
    event = json.loads(sink.getvalue())
    assert event["request_id"] == "req-42"
    assert event["authorization"].startswith("…")  # a sensitive name: all of it masked
    assert event["message"].startswith("user alice signed in with ")


def test_a_logger_with_filters_reaches_a_handler_class_that_skips_them_masked(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    """A handler class whose ``filter`` never calls ``super().filter`` is reached by the
    makeRecord hook only: a logger with filters of its own still has its records masked when
    made (and looked at again after its filters by every other handler)."""

    class Unfiltered(logging.StreamHandler):  # type: ignore[type-arg]
        def filter(self, record: logging.LogRecord) -> bool:
            return True

    sink = io.StringIO()
    handler = Unfiltered(sink)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.addFilter(RequestContext("-"))
    installation = install(streams=False)
    try:
        logger.info("created %s", guard.pat())
    finally:
        installation.uninstall()
    guard.capture(sink.getvalue())
    assert sink.getvalue().startswith("created pat_AIC_…")


# What a context filter does to the record it passes (each handler's, and the logger's).
_CHANGES = st.sampled_from(["nothing", "attribute", "headers", "message", "arguments"])
# Everything the property writes itself, masked forms' scaffolding included: a secret's hidden
# part found in it (a PAT whose body starts with `token`) is no leak.
_WRITTEN = (
    'user alice signed in with mfa (key token= Bearer {"Authorization": "Accept": "*/*"} '
    "note headers level message INFO pat_AIC_ pat%5FAIC%5F …"
)


def _context_filter(change: str, pat: str, cred: str) -> Callable[[logging.LogRecord], bool]:
    def change_record(record: logging.LogRecord) -> bool:
        if change == "attribute":
            record.note = f"token={pat}"
        elif change == "headers":
            record.headers = {"Authorization": f"Bearer {cred}", "Accept": "*/*"}
        elif change == "message":
            record.msg = f"{record.msg} (key {pat})"
        elif change == "arguments":
            record.args = (f"Bearer {cred}", *tuple(record.args or ())[1:])  # type: ignore[arg-type]
        return True

    return change_record


@given(
    mode=st.sampled_from(["install", "filter"]),
    held=st.sampled_from(["nothing", "a PAT", "a bearer credential"]),
    on_logger=_CHANGES,
    handlers=st.lists(_CHANGES, min_size=1, max_size=4),
    pat=pats,
    cred=bearer_credentials,
)
@settings(max_examples=examples(150), deadline=None)
def test_whatever_filters_add_or_change_no_handler_writes_a_secret(
    mode: str, held: str, on_logger: str, handlers: list[str], pat: str, cred: str
) -> None:
    """Filters on the logger and on each handler add attributes or change the message and its
    arguments, before or after another handler masked the record or found it clean."""
    assume(not any(part in _WRITTEN for part in secret_parts(pat) + secret_parts(cred)))
    logger = logging.Logger("hygiene-test.filter-chain")
    logger.setLevel(logging.INFO)
    logger.addFilter(_context_filter(on_logger, pat, cred))
    sinks = []
    for change in handlers:
        handler, sink = stream_handler(JsonFormatter())
        handler.addFilter(_context_filter(change, pat, cred))
        if mode == "filter":
            handler.addFilter(RedactingFilter())  # after the handler's other filters
        logger.addHandler(handler)
        sinks.append(sink)
    argument = {"nothing": "mfa", "a PAT": pat, "a bearer credential": f"Bearer {cred}"}[held]
    installation = install(streams=False) if mode == "install" else None
    try:
        logger.info("user %s signed in with %s", "alice", argument)
    finally:
        if installation is not None:
            installation.uninstall()
    outputs = [sink.getvalue() for sink in sinks]
    assert_no_secret(outputs, [pat, cred])
    assert all(out.count("\n") == 1 for out in outputs)


QUEUE_SCRIPT = """
import logging, logging.handlers, multiprocessing, os, sys

def child(queue):  # a worker process that never called install()
    logger = logging.getLogger("worker")
    logger.addHandler(logging.handlers.QueueHandler(queue))
    logger.error("worker got %s", os.environ["CANARY"])

if __name__ == "__main__":
    import hygiene.masking
    hygiene.masking.install(streams=False)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    out = logging.StreamHandler(sys.stdout)
    out.setFormatter(logging.Formatter("%(processName)s %(message)s"))
    listener = logging.handlers.QueueListener(queue, out)
    listener.start()
    worker = context.Process(target=child, args=(queue,), name="worker-1")
    worker.start()
    worker.join(30)
    listener.stop()
"""


def test_records_from_a_worker_process_queue_are_masked(
    guard: SecretGuard, tmp_path: pathlib.Path
) -> None:
    """The logging cookbook's multiprocessing pattern: a worker (spawned, so without the
    parent's hooks) sends its records through a queue; the parent's handlers write them."""
    token = guard.pat()
    script = tmp_path / "queue_app.py"
    script.write_text(QUEUE_SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"CANARY": token, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.stdout == "worker-1 worker got pat_AIC_…" + token[-4:] + "\n"


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
