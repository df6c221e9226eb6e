"""Records keep their shape: formatters that read ``args`` (uvicorn's access log, Sentry's
grouping by template) keep working, and a record is masked once."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import hygiene.masking.records as records
from hygiene.masking import RedactingFilter, install, mask
from tests.helpers import SecretGuard
from tests.masking.conftest import stream_handler


class AccessFormatter(logging.Formatter):
    """What uvicorn's access formatter does: unpack exactly five arguments."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        client, method, path, version, status = record.args  # type: ignore[misc]
        return f'{client} - "{method} {path} HTTP/{version}" {status}'


def test_uvicorn_access_formatter_still_unpacks_its_five_arguments(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    token = guard.pat()
    handler, sink = stream_handler(AccessFormatter())
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    fmt = '%s - "%s %s HTTP/%s" %d'
    logger.info(fmt, "127.0.0.1:5000", "GET", f"/cb?access_token={token}", "1.1", 200)
    logger.info(fmt, "127.0.0.1:5000", "GET", "/health", "1.1", 200)
    guard.capture(sink.getvalue())
    lines = sink.getvalue().splitlines()
    assert (
        lines[0]
        == '127.0.0.1:5000 - "GET /cb?access_token=pat_AIC_…' + token[-4:] + ' HTTP/1.1" 200'
    )
    assert lines[1] == '127.0.0.1:5000 - "GET /health HTTP/1.1" 200'


def test_template_and_argument_count_are_kept_for_grouping(guard: SecretGuard) -> None:
    token = guard.session_token()
    template = "refresh for %s failed with %s (attempt %d)"
    record = logging.LogRecord(
        "x", logging.ERROR, __file__, 1, template, (f"access_token={token}", "401", 3), None
    )
    RedactingFilter().filter(record)
    assert record.msg is template  # Sentry groups by it
    assert isinstance(record.args, tuple)
    assert len(record.args) == 3
    assert record.args[1:] == ("401", 3)
    guard.capture(record.getMessage(), repr(record.args))
    assert record.getMessage().endswith("failed with 401 (attempt 3)")


def test_mapping_arguments_keep_their_keys(guard: SecretGuard) -> None:
    token = guard.pat()
    record = logging.LogRecord(
        "x",
        logging.INFO,
        __file__,
        1,
        "%(user)s got %(token)s",
        ({"user": "al", "token": token},),
        None,
    )
    RedactingFilter().filter(record)
    assert isinstance(record.args, dict)
    assert set(record.args) == {"user", "token"}
    guard.capture(record.getMessage(), repr(record.args))
    assert record.getMessage().startswith("al got pat_AIC_…")


class Opaque:
    def __str__(self) -> str:
        return "opaque"


def test_other_types_are_replaced_only_when_they_render_a_secret(guard: SecretGuard) -> None:
    token = guard.pat()
    clean, number = Opaque(), 42
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "%s %s %s", (clean, number, token.encode()), None
    )
    RedactingFilter().filter(record)
    assert record.args[0] is clean  # type: ignore[index]
    assert record.args[1] is number  # type: ignore[index]
    assert isinstance(record.args[2], bytes)  # type: ignore[index]
    guard.capture(record.getMessage(), repr(record.args))


def test_a_secret_split_between_template_and_argument_is_still_hidden(
    guard: SecretGuard,
) -> None:
    token = guard.session_token()
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "password=%s user=%s", (token, "al"), None
    )
    RedactingFilter().filter(record)
    guard.capture(record.getMessage(), repr(record.msg), repr(record.args))
    assert record.getMessage() == "password=… user=al"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The messages the filter and the hook looked for secrets in (past the gate)."""
    seen: list[str] = []
    real = records.secret_spans

    def counting(message: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(message)
        return real(message, *args, **kwargs)

    monkeypatch.setattr(records, "secret_spans", counting)
    return seen


def test_a_record_is_masked_once_however_many_handlers_and_hooks(
    logger: logging.Logger, counted: list[str], guard: SecretGuard
) -> None:
    token = guard.pat()
    redactor = RedactingFilter()
    sinks = []
    for _ in range(3):
        handler, sink = stream_handler()
        handler.addFilter(redactor)
        logger.addHandler(handler)
        sinks.append(sink)
    installation = install(streams=False)
    try:
        logger.info("created %s", token)
    finally:
        installation.uninstall()
    assert len(counted) == 1
    guard.capture(*(s.getvalue() for s in sinks))
    assert all("created pat_AIC_…" in s.getvalue() for s in sinks)
    logger.info("again %s", token)  # without install: the first handler's filter masks it
    assert len(counted) == 2
    guard.capture(*(s.getvalue() for s in sinks))


class SafeAtoms(dict):  # type: ignore[type-arg]
    """What gunicorn passes as the access log's mapping argument: `{Header}i` keys found in
    any case, `-` for a missing key, and values escaped once in ``__init__``."""

    def __init__(self, atoms: dict[str, object]) -> None:
        dict.__init__(self)
        for key, value in atoms.items():
            self[key] = value.replace('"', '\\\\"') if isinstance(value, str) else value

    def __getitem__(self, key: str) -> object:
        if key.startswith("{"):
            key = key.lower()
        return super().__getitem__(key) if key in self else "-"


def test_gunicorn_style_mapping_arguments_keep_their_class(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    import base64

    password = guard.remember("pw-" + guard.session_token())
    basic = guard.remember(base64.b64encode(f"alice:{password}".encode()).decode())
    handler, sink = stream_handler(logging.Formatter("%(message)s"))
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    fmt = '%(h)s "%(r)s" %(s)s "%({Authorization}i)s" "%({X-Missing}i)s"'
    atoms = SafeAtoms(
        {"h": "127.0.0.1", "r": "GET / HTTP/1.1", "s": "200", "{authorization}i": f"Basic {basic}"}
    )
    logger.info(fmt, atoms)
    logger.info(fmt, SafeAtoms({"h": "127.0.0.1", "r": "GET /health HTTP/1.1", "s": "200"}))
    guard.capture(sink.getvalue())
    assert sink.getvalue().splitlines() == [
        '127.0.0.1 "GET / HTTP/1.1" 200 "Basic …" "-"',
        '127.0.0.1 "GET /health HTTP/1.1" 200 "-" "-"',
    ]


class Request:
    """Shaped like Django's request: its repr shows the query string; handlers read it."""

    def __init__(self, query: str) -> None:
        self.query = query
        self.META = {"REMOTE_ADDR": "127.0.0.1"}

    def __repr__(self) -> str:
        return f"<WSGIRequest: GET '/cb?{self.query}'>"


def test_extra_objects_handlers_read_by_attribute_stay_readable(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    import json
    import pickle

    from tests.masking.conftest import JsonFormatter

    token = guard.pat()
    request = Request(f"access_token={token}")
    seen: list[logging.LogRecord] = []

    class Mailer(logging.Handler):  # what Django's AdminEmailHandler does with record.request
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    mailer = Mailer()
    mailer.addFilter(RedactingFilter())
    handler, sink = stream_handler(JsonFormatter())
    handler.addFilter(RedactingFilter())
    logger.addHandler(mailer)
    logger.addHandler(handler)
    logger.error("Internal Server Error: /cb", extra={"status_code": 500, "request": request})
    view = seen[0].request  # type: ignore[attr-defined]
    assert isinstance(view, Request)
    assert view.META["REMOTE_ADDR"] == "127.0.0.1"
    guard.capture(
        sink.getvalue(),
        str(view),
        repr(view),
        f"{view}",
        str(pickle.loads(pickle.dumps(view))),  # noqa: S301 - our own bytes
    )
    assert (
        json.loads(sink.getvalue())["request"]
        == "<WSGIRequest: GET '/cb?access_token=pat_AIC_…" + token[-4:] + "'>"
    )
    assert request.query.endswith(token)  # the caller's object is untouched


def test_an_absent_header_is_not_masked() -> None:
    for text in ('cookie="-"', "password=-", "Cookie: -", 'token="-"', '"Authorization": "-"'):
        assert mask(text) == text
