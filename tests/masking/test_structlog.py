"""structlog_processor in a real structlog pipeline, last before the renderer."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from hygiene.masking import RedactingFilter, structlog_processor
from tests.helpers import SecretGuard
from tests.masking.conftest import stream_handler


@pytest.fixture
def sink() -> Iterator[io.StringIO]:
    out = io.StringIO()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.format_exc_info,
            structlog_processor,
            structlog.processors.JSONRenderer(ensure_ascii=False),
        ],
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
    yield out
    structlog.reset_defaults()


def test_event_values_and_sensitive_keys_are_masked(sink: io.StringIO, guard: SecretGuard) -> None:
    pat, session = guard.pat(), guard.session_token()
    headers = {"Authorization": f"Bearer {session}", "Accept": "*/*"}
    structlog.get_logger().info(
        f"created {pat}", password="two words", headers=headers, user="alice", attempt=2
    )
    line = json.loads(sink.getvalue())
    guard.capture(sink.getvalue())
    assert line["password"] == "…"
    assert line["headers"]["Accept"] == "*/*"
    assert line["user"] == "alice"
    assert line["attempt"] == 2
    assert line["event"].startswith("created pat_AIC_…")
    assert headers["Authorization"] == f"Bearer {session}"  # the caller's dict is intact


def test_exception_rendered_by_format_exc_info_is_masked(
    sink: io.StringIO, guard: SecretGuard
) -> None:
    pat = guard.pat()
    try:
        raise PermissionError(f"revoked {pat}")
    except PermissionError:
        structlog.get_logger().exception("call failed")
    guard.capture(sink.getvalue())
    assert "PermissionError: revoked pat_AIC_…" in json.loads(sink.getvalue())["exception"]


def test_exc_info_left_in_the_dict_is_rendered_masked(guard: SecretGuard) -> None:
    pat = guard.pat()
    try:
        raise ValueError(pat)
    except ValueError as exc:
        out = structlog_processor(None, "error", {"event": "x", "exc_info": exc})
    assert "exc_info" not in out
    guard.capture(str(out))
    assert "ValueError: pat_AIC_…" in out["exception"]


def test_clean_event_dict_is_returned_as_is() -> None:
    event = {"event": "started", "port": 8080, "token_type": "bearer"}
    assert structlog_processor(None, "info", event) is event


def test_processor_formatter_on_a_stdlib_handler_with_the_filter(guard: SecretGuard) -> None:
    pat = guard.pat()
    formatter = structlog.stdlib.ProcessorFormatter(
        processor=structlog.processors.JSONRenderer(ensure_ascii=False)
    )
    handler, out = stream_handler(formatter)
    handler.addFilter(RedactingFilter())
    std_logger = logging.getLogger("hygiene-test-structlog-stdlib")
    std_logger.handlers[:] = [handler]
    std_logger.propagate = False
    std_logger.setLevel(logging.INFO)
    structlog.configure(
        processors=[structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    try:
        log = structlog.get_logger(std_logger.name)
        log.info("login", password="a b", api_token=pat, user="bob")
    finally:
        structlog.reset_defaults()
        std_logger.handlers.clear()
    line = json.loads(out.getvalue())
    guard.capture(out.getvalue())
    assert line["password"] == "…"
    assert line["api_token"].startswith("pat_AIC_…")
    assert line["user"] == "bob"


def test_dict_tracebacks_with_locals_lose_random_credentials(guard: SecretGuard) -> None:
    out = io.StringIO()
    structlog.configure(
        processors=[
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=True)
            ),
            structlog_processor,
            structlog.processors.JSONRenderer(ensure_ascii=False),
        ],
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
    session = guard.session_token()
    try:
        sess = session  # an ordinary name: only its look gives it away
        raise RuntimeError(f"refused for {len(sess)}")
    except RuntimeError:
        structlog.get_logger().exception("failed")
    finally:
        structlog.reset_defaults()
    guard.capture(out.getvalue())
    event = json.loads(out.getvalue())
    frame = event["exception"][0]["frames"][-1]
    assert frame["locals"]["sess"].startswith(("'…", "…"))
