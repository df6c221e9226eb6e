"""uvicorn + FastAPI/Starlette, programmatic and CLI, with the Sentry SDK capturing events."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from uvicorn.config import LOGGING_CONFIG

from hygiene.masking.recipes.uvicorn import log_config
from tests.masking.realworld import harness
from tests.masking.realworld.conftest import Verdict, by_design, judge
from tests.masking.realworld.sentry_events import grouping_problems


def serve(mode: str, tmp_path: Path, known: harness.Secrets) -> tuple[dict[str, bytes], list[int]]:
    argv = None
    if mode.startswith("cli"):
        config = log_config() if mode == "cli" else json.loads(json.dumps(LOGGING_CONFIG))
        config["loggers"]["app"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
        (tmp_path / "log.json").write_text(json.dumps(config))
        port = harness.free_port()
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            "uvicorn_app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-config",
            str(tmp_path / "log.json"),
        ]
        app = harness.start("", mode, tmp_path, port, argv=argv, env={"HYGIENE_APP_MODE": mode})
    else:
        app = harness.start("uvicorn_app.py", mode, tmp_path)
    statuses = harness.send_traffic(app.port, known, rounds=harness.ROUNDS)
    return harness.stop(app), statuses


NO_HOOKS = by_design(
    "Sentry collects request data and frame variables itself, outside logging: "
    "only its before_send hooks see them"
)
MODES = [
    "none",
    "install",
    "dictconfig",
    "cli",
    "cli-install",
    pytest.param("sentry-install", marks=NO_HOOKS),
    "sentry",
]


@pytest.mark.parametrize("mode", MODES)
def test_uvicorn_fastapi(mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = (
        "uvicorn+fastapi" + ("+sentry" if "sentry" in mode else ""),
        mode,
    )
    known = harness.Secrets()
    outputs, statuses = serve(mode, tmp_path, known)
    verdict.search(outputs, known)
    access = harness.access_lines(outputs["stdout.log"] + outputs["stderr.log"])
    verdict.expect(
        access == len(statuses),
        f"access log: {access} lines for {len(statuses)} requests",
    )
    verdict.expect(b"--- Logging error ---" not in outputs["stderr.log"], "logging error dumps")
    stderr = outputs["stderr.log"]
    verdict.expect(
        b"Exception in ASGI application" in stderr
        and b"UpstreamError" in stderr
        and b"Traceback" in stderr,
        "the 500's traceback is missing",
    )
    if "sentry" in mode:
        verdict.expect("sentry.envelopes" in outputs, "no Sentry envelope captured")
        verdict.broken += grouping_problems(
            outputs.get("sentry.envelopes", b""), expected=harness.ROUNDS * len(known.grouped)
        )
    judge(verdict, masked=mode != "none")
