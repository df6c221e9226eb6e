"""Exceptions stay exceptions: same type, same stack, masked message, notes and chain."""

from __future__ import annotations

import logging
import sys
import traceback

import pytest

from hygiene.masking import RedactingFilter, mask
from hygiene.masking.exceptions import mask_exception
from tests.helpers import SecretGuard
from tests.masking.conftest import JsonFormatter, stream_handler


class ClientError(Exception):
    """Shaped like botocore's: a constructor that is not ``(message)``."""

    def __init__(self, response: dict[str, object], operation_name: str) -> None:
        super().__init__(f"An error occurred ({operation_name}): {response['message']}")
        self.response = response
        self.operation_name = operation_name


def _raise_chain(token: str) -> BaseException:
    try:
        try:
            raise KeyError(f"access_token={token}")
        except KeyError as inner:
            error = ClientError({"message": f"bad token {token}"}, "GetCaller")
            error.add_note(f"Authorization: Bearer {token}") if hasattr(error, "add_note") else None
            raise error from inner
    except ClientError as exc:
        return exc


def test_masked_copy_keeps_type_stack_and_chain(guard: SecretGuard) -> None:
    token = guard.pat()
    exc = _raise_chain(token)
    masked = mask_exception(exc)
    assert masked is not None
    assert masked is not exc
    assert type(masked) is ClientError
    assert masked.__traceback__ is exc.__traceback__
    assert isinstance(masked.__cause__, KeyError)
    assert masked.operation_name == "GetCaller"  # type: ignore[attr-defined]
    rendered = "".join(traceback.format_exception(type(masked), masked, masked.__traceback__))
    guard.capture(rendered, repr(masked.args), repr(masked.__dict__))
    assert "ClientError: An error occurred (GetCaller): bad token pat_AIC_…" in rendered
    assert "KeyError" in rendered
    assert "_raise_chain" in rendered  # the stack is there
    assert token in str(exc)  # the caller's exception is untouched


def test_a_clean_exception_is_the_same_object() -> None:
    exc = ValueError("nothing secret here")
    assert mask_exception(exc) is exc


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception groups are 3.11+")
def test_exception_groups_keep_their_members(guard: SecretGuard) -> None:
    token = guard.session_token()
    group = ExceptionGroup("two failed", [ValueError(f"token={token}"), OSError(2, "missing")])  # noqa: F821
    masked = mask_exception(group)
    assert type(masked) is ExceptionGroup  # noqa: F821
    assert [type(e) for e in masked.exceptions] == [ValueError, FileNotFoundError]  # type: ignore[union-attr]
    assert masked.exceptions[1] is group.exceptions[1]  # type: ignore[union-attr]  # clean: as is
    guard.capture("".join(traceback.format_exception(masked)))  # type: ignore[arg-type]


def test_handlers_reading_exc_info_get_the_exception_and_its_stack(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    token = guard.pat()
    seen: list[logging.LogRecord] = []

    class ExcInfoReader(logging.Handler):  # what Sentry, OpenTelemetry and Django's mailer do
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    reader = ExcInfoReader()
    reader.addFilter(RedactingFilter())
    handler, sink = stream_handler()
    handler.addFilter(RedactingFilter())
    json_handler, json_sink = stream_handler(JsonFormatter())
    json_handler.addFilter(RedactingFilter())
    for h in (reader, handler, json_handler):
        logger.addHandler(h)
    try:
        raise _raise_chain(token)
    except ClientError:
        logger.exception("call failed")
    record = seen[0]
    assert record.exc_info is not None
    exc_type, exc, tb = record.exc_info
    assert exc_type is ClientError
    assert tb is not None
    names = [frame.name for frame in traceback.extract_tb(tb)]
    assert names == [
        "test_handlers_reading_exc_info_get_the_exception_and_its_stack",
        "_raise_chain",
    ]
    guard.capture(str(exc), sink.getvalue(), json_sink.getvalue(), record.exc_text or "")
    assert "Traceback (most recent call last)" in sink.getvalue()
    assert "pat_AIC_…" in json_sink.getvalue()


def test_no_over_masking_where_there_is_no_secret() -> None:
    lines = [
        '  File "app.py", line 3, in refresh',
        "    token = get_token()",
        '    password = os.environ["DB_PASSWORD"]',
        "DEBUG botocore.hooks: Event before-call.secrets-manager.CreateSecret: calling handler <f>",
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
        "Basic authentication is required",
    ]
    for line in lines:
        assert mask(line) == line


def test_frame_variables_a_random_credential_is_masked_whatever_its_name(
    guard: SecretGuard,
) -> None:
    from hygiene.masking.values import mask_locals

    session = guard.session_token()
    ordinary = {
        "request_id": "123e4567-e89b-12d3-a456-426614174000",
        "name": "alice",
        "count": 3,
        "path": "/usr/local/lib/python3.11/site-packages",
        "module": "app.services.billing",
        "handler": "HTTPServerRequestHandler",
        "method": "getUserNameFromRequest",
        "report": "report-2024-final.txt",
    }
    masked = mask_locals(
        {"sess": session, "shown": repr(session), "password": "hunter2", **ordinary}
    )
    guard.capture(repr(masked))
    assert masked["sess"] == "…" + session[-4:]
    assert masked["shown"] == "'…" + session[-4:] + "'"
    assert masked["password"] == "…"
    assert {k: masked[k] for k in ordinary} == ordinary


def test_random_credentials_of_usual_lengths_all_look_random() -> None:
    import random
    import string

    from hygiene.masking.values import looks_random

    rng = random.Random(11)  # fixed: the same 3,000 values on every run
    alphabet = string.ascii_letters + string.digits + "-_"
    values = ["".join(rng.choices(alphabet, k=k)) for k in (22, 32, 43) for _ in range(1000)]
    assert [v for v in values if not looks_random(v)] == []
