"""The integration helpers in process: what each hook masks, and what it must keep."""

from __future__ import annotations

import copy
import io
import json
import logging
import logging.config
import secrets

import pytest

from hygiene.masking.recipes.dictconfig import AFTER_FILTER_NAME, FILTER_NAME, with_redaction
from hygiene.masking.recipes.frames import (
    looks_like_random_credential,
    mask_local,
    mask_rendered,
)
from hygiene.masking.recipes.sentry import before_send, before_send_log
from hygiene.masking.recipes.structlog_tracebacks import processor
from tests.helpers import SecretGuard, assert_no_secret
from tests.masking.conftest import RequestContext


def test_paths_and_uuids_are_kept() -> None:
    for value in ("/usr/lib/python3.11/site-packages", "0b3c8a52-5f7e-4c1d-9a6b-2f1e0d9c8b7a"):
        assert not looks_like_random_credential(value)
        assert mask_local("value", value) is value


def test_random_tokens_are_masked_whatever_the_name() -> None:
    for size in range(12, 48):  # 16 to 64 characters
        token = secrets.token_urlsafe(size)
        assert token not in json.dumps(mask_local("current", {"v": token, "r": repr(token)}))


def test_a_local_of_any_name_is_masked(guard: SecretGuard) -> None:
    from tests.masking.realworld.harness import random_credential

    token = guard.remember(random_credential("eyJ"))
    masked = mask_local("current", {"x": [token], "y": repr(token)})
    rendered = mask_rendered(f"  current = {token!r}\n  └ {token!r}")
    guard.capture(json.dumps(masked), rendered)
    assert mask_rendered(rendered) == rendered  # masking twice changes nothing more


def sentry_event(pat: str, session: str, password: str) -> dict[str, object]:
    frame = {"function": "fail", "vars": {"current": repr(session), "n": "3"}}
    return {
        "logentry": {
            "message": "token refresh failed for %s",
            "params": [pat],
            "formatted": f"token refresh failed for {pat}",
        },
        "exception": {
            "values": [
                {
                    "type": "UpstreamError",
                    "value": f"rejected {pat}",
                    "stacktrace": {"frames": [frame]},
                }
            ]
        },
        "breadcrumbs": {
            "values": [
                {
                    "message": f"GET /x?access_token={session}",
                    "data": {"url": f"http://h/x?access_token={session}"},
                }
            ]
        },
        "request": {
            "headers": {"Authorization": f"Bearer {session}", "Cookie": f"sessionid={session}"},
            "cookies": {"sessionid": session, "theme": "dark"},
            "query_string": f"access_token={session}&q=1",
            "data": {"username": "ada", "password": password},
        },
    }


def test_sentry_events_are_masked_and_keep_their_template(guard: SecretGuard) -> None:
    from tests.masking.realworld.harness import random_credential

    pat, session, password = (
        guard.pat(),
        guard.remember(random_credential("eyJ")),
        guard.remember(random_credential()),
    )
    event = sentry_event(pat, session, password)
    original = copy.deepcopy(event)
    masked = before_send(event, {})
    guard.capture(json.dumps(masked))
    assert event == original  # the SDK's own event is untouched
    logentry = masked["logentry"]
    assert isinstance(logentry, dict)
    assert logentry["message"] == "token refresh failed for %s"
    assert len(logentry["params"]) == 1
    # A cookie's name does not say whether it is a session: every value is hidden.
    assert masked["request"]["cookies"] == {"sessionid": "…", "theme": "…"}
    frames = masked["exception"]["values"][0]["stacktrace"]["frames"]
    assert frames[0]["vars"]["n"] == "3"
    assert frames[0]["function"] == "fail"


def test_sentry_logs_keep_their_template(guard: SecretGuard) -> None:
    pat = guard.pat()
    log = {
        "body": f"issued {pat}",
        "attributes": {
            "sentry.message.template": "issued {token}",
            "sentry.message.parameter.token": pat,
        },
    }
    masked = before_send_log(log, {})
    guard.capture(json.dumps(masked))
    assert masked["attributes"]["sentry.message.template"] == "issued {token}"


def test_structlog_dict_tracebacks_locals_are_masked(guard: SecretGuard) -> None:
    from tests.masking.realworld.harness import random_credential

    session = guard.remember(random_credential("eyJ"))
    frames = [
        {
            "filename": "app.py",
            "lineno": 3,
            "name": "fail",
            "locals": {"current": repr(session), "n": "3"},
        }
    ]
    event = {
        "event": "request failed",
        "exception": [{"exc_type": "UpstreamError", "exc_value": "x", "frames": frames}],
    }
    masked = processor(None, "error", event)
    guard.capture(json.dumps(masked))
    assert masked["exception"][0]["frames"][0]["locals"]["n"] == "3"
    clean = {"event": "ok", "n": 1}
    assert processor(None, "info", clean) is clean


def test_with_redaction_puts_the_filter_first_and_after_other_filters_once() -> None:
    config = {
        "version": 1,
        "handlers": {
            "a": {"class": "logging.StreamHandler", "filters": ["other"]},
            "b": {"class": "logging.NullHandler"},
        },
    }
    original = copy.deepcopy(config)
    once = with_redaction(config)
    twice = with_redaction(once)
    assert config == original
    assert once["handlers"]["a"]["filters"] == [FILTER_NAME, "other", AFTER_FILTER_NAME]
    assert once["handlers"]["b"]["filters"] == [FILTER_NAME]
    assert twice == once


def test_with_redaction_masks_what_a_context_filter_of_the_config_adds(
    guard: SecretGuard,
) -> None:
    from pythonjsonlogger.json import JsonFormatter

    sink = io.StringIO()
    name = "hygiene-test.dictconfig-context"
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": RequestContext, "authorization": f"Bearer {guard.session_token()}"}
        },
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "out": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["context"],
            }
        },
        "loggers": {name: {"handlers": ["out"], "level": "INFO", "propagate": False}},
    }
    logging.config.dictConfig(with_redaction(config))
    logger = logging.getLogger(name)
    logger.handlers[0].setStream(sink)  # type: ignore[attr-defined]  # (the config is deep-copied)
    try:
        logger.info("user %s signed in", "alice")
    finally:
        logger.handlers.clear()
    guard.capture(sink.getvalue())
    event = json.loads(sink.getvalue())
    assert (event["request_id"], event["message"]) == ("req-42", "user alice signed in")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_otel_processor_masks_and_keeps_the_exception(guard: SecretGuard) -> None:
    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    from hygiene.masking.recipes.otel_logs import MaskingLogRecordProcessor

    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(MaskingLogRecordProcessor(SimpleLogRecordProcessor(exporter)))
    logger = logging.Logger("otel-test")
    logger.addHandler(LoggingHandler(logger_provider=provider))
    pat = guard.pat()
    try:
        raise RuntimeError(f"rejected {pat}")
    except RuntimeError:
        logger.exception("refresh failed for %s", pat, extra={"token": pat})
    (record,) = exporter.get_finished_logs()
    guard.capture(record.to_json())
    attributes = record.log_record.attributes
    assert attributes["exception.type"] == "RuntimeError"
    assert "Traceback" in attributes["exception.stacktrace"]


def test_django_logging_config_filters_every_handler_but_mails_first() -> None:
    from hygiene.masking.recipes.django import ADMIN_EMAIL_HANDLER, logging_config

    config = logging_config(
        {
            "handlers": {"app": {"class": "logging.StreamHandler"}},
            "loggers": {"app": {"handlers": ["app"]}},
        }
    )
    handlers = config["handlers"]
    assert handlers["mail_admins"]["class"] == ADMIN_EMAIL_HANDLER
    assert FILTER_NAME not in handlers["mail_admins"]["filters"]
    assert all(FILTER_NAME in h["filters"] for n, h in handlers.items() if n != "mail_admins")
    assert config["loggers"]["django"]["handlers"][0] == "mail_admins"
    assert_no_secret([json.dumps(config)], [])
