"""Fixtures for the masking tests: isolated loggers that write into strings."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from hygiene.masking.records import _STANDARD_ATTRS

USUAL_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """A small JSON formatter of the python-json-logger kind: it renders ``extra=`` attributes
    and ``exc_info`` itself, the way the leaks in notes/logging.md happen."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, object] = {"level": record.levelname, "message": record.getMessage()}
        for name, value in record.__dict__.items():
            if name not in _STANDARD_ATTRS:
                payload[name] = value
        if record.exc_info:
            payload["exc_info"] = self.formatException(record.exc_info)
        elif record.exc_text:
            payload["exc_info"] = record.exc_text
        if record.stack_info:
            payload["stack_info"] = record.stack_info
        return json.dumps(payload, default=str, ensure_ascii=False)


class RequestContext(logging.Filter):
    """The logging cookbook's context filter: request data put on every record it passes."""

    def __init__(self, authorization: str) -> None:
        super().__init__()
        self.authorization = authorization

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = "req-42"
        record.authorization = self.authorization
        return True


@pytest.fixture
def logger(request: pytest.FixtureRequest) -> Iterator[logging.Logger]:
    """A fresh logger that pytest's log capture never sees: not propagating to the root, and
    not registered with the logging manager either (pytest 9.2 also attaches its handler to
    every registered non-propagating logger, and its handler raises on a broken format)."""
    lg = logging.Logger(f"hygiene-test.{request.node.name}")
    lg.setLevel(logging.DEBUG)
    lg.propagate = False
    yield lg
    lg.handlers.clear()


def stream_handler(fmt: logging.Formatter | None = None) -> tuple[logging.Handler, io.StringIO]:
    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.setFormatter(fmt or logging.Formatter(USUAL_FORMAT))
    return handler, sink
