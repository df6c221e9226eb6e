"""Logging libraries behind a loopback server: python-json-logger, structlog (JSON, console,
``ProcessorFormatter``), loguru (``diagnose=True``) and the OpenTelemetry SDK."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.masking.realworld import harness
from tests.masking.realworld.conftest import Verdict, judge

COMBINATIONS = [
    ("jsonlogger", "none"),
    ("jsonlogger", "install"),
    ("jsonlogger", "dictconfig"),
    ("structlog-json", "none"),
    ("structlog-json", "integration"),
    ("structlog-console", "none"),
    ("structlog-console", "integration"),
    ("structlog-stdlib", "none"),
    ("structlog-stdlib", "install"),
    ("loguru", "none"),
    ("loguru", "integration"),
    ("loguru-json", "none"),
    ("loguru-json", "integration"),
    ("otel", "none"),
    ("otel", "install"),
    ("otel", "integration"),
]


def json_lines(data: bytes) -> list[dict[str, object]] | None:
    """Every line parsed, or None when one is not a JSON object."""
    try:
        parsed = [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return None
    return parsed if all(isinstance(p, dict) for p in parsed) else None


def failure_line(lines: list[dict[str, object]]) -> str:
    return next((json.dumps(x) for x in lines if "request failed" in json.dumps(x)), "")


def check_output(
    library: str, outputs: dict[str, bytes], v: Verdict, known: harness.Secrets
) -> None:
    stdout, stderr = outputs["stdout.log"], outputs["stderr.log"]
    shown = ("\u2026" + known.local_session[-4:]).encode()
    if library == "structlog-json":
        v.expect(b'"current": "\'' in stdout, "dict_tracebacks does not show the local `current`")
    if library == "loguru":
        v.expect(
            "└ '".encode() + shown in stderr
            or "└ '".encode() + known.local_session.encode() in stderr,
            "diagnose does not show the local `current`",
        )
    if library in ("jsonlogger", "structlog-json", "structlog-stdlib"):
        lines = json_lines(stdout)
        v.expect(lines is not None and len(lines) > 20, "JSON lines invalid or missing")
        failed = failure_line(lines or [])
        v.expect(
            "UpstreamError" in failed and ("Traceback" in failed or "frames" in failed),
            "the exception is missing from the JSON",
        )
        if library == "structlog-json":
            v.expect('"locals"' in failed, "dict_tracebacks lost its locals")
        if library == "jsonlogger":
            v.expect(
                sum("request_headers" in json.dumps(x) for x in lines or []) >= 10,
                "extra= attributes missing",
            )
    elif library == "structlog-console":
        v.expect(
            b"request failed" in stdout and b"UpstreamError" in stdout and b"Traceback" in stdout,
            "the exception is missing",
        )
    elif library == "loguru-json":
        lines = json_lines(stderr)
        v.expect(
            lines is not None and len(lines) > 20, "loguru's serialized lines invalid or missing"
        )
        failed = failure_line(lines or [])
        v.expect(
            "UpstreamError" in failed and "Traceback" in failed,
            "the exception is missing from the JSON",
        )
    elif library == "loguru":
        v.expect(
            b"request failed" in stderr
            and b"UpstreamError" in stderr
            and b"\xe2\x94\x94" in stderr,
            "the diagnosed exception is missing",
        )
    else:
        records = json.loads(outputs.get("otel.json", b"[]"))
        v.expect(len(records) > 20, f"{len(records)} OpenTelemetry records exported")
        failed = [
            r
            for r in records
            if (r.get("attributes") or {}).get("exception.type") == "UpstreamError"
        ]
        v.expect(
            bool(failed)
            and "Traceback" in str(failed[0]["attributes"].get("exception.stacktrace")),
            "OpenTelemetry record lost its exception attributes",
        )


@pytest.mark.parametrize(("library", "mode"), COMBINATIONS)
def test_logging_library(library: str, mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = library, mode
    known = harness.Secrets()
    app = harness.start("logger_server.py", mode, tmp_path, env={"HYGIENE_LOGGER": library})
    harness.send_traffic(app.port, known, rounds=harness.ROUNDS)
    outputs = harness.stop(app)
    verdict.search(outputs, known)
    check_output(library, outputs, verdict, known)
    judge(verdict, masked=mode != "none")
