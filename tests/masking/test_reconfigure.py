"""Reconfiguration after ``install()`` keeps every record masked: ``dictConfig`` (twice, as
Django's runserver does), ``basicConfig(force=True)``, with ``extra=`` attributes and
exceptions rendered by a JSON formatter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers import SecretGuard

SCRIPT = r"""
import json, logging, logging.config, os, sys
import hygiene.masking

class Json(logging.Formatter):
    def format(self, record):
        payload = {"msg": record.getMessage(), "user_token": getattr(record, "user_token", None)}
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
            payload["exc_type"] = record.exc_info[0].__name__
        return json.dumps(payload)

CONFIG = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": Json}},
    "handlers": {"out": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout",
                         "formatter": "json"}},
    "root": {"handlers": ["out"], "level": "INFO"},
}
token = os.environ["CANARY"]
hygiene.masking.install(streams=False)  # the logging hooks alone
logging.config.dictConfig(CONFIG)  # Django's setup ...
logging.config.dictConfig(CONFIG)  # ... and runserver's second one
log = logging.getLogger("app")
log.info("created %s", token, extra={"user_token": token})
try:
    raise ValueError("refused " + token)
except ValueError:
    log.exception("failed", extra={"user_token": "Bearer " + token})
logging.basicConfig(force=True, stream=sys.stdout, format="BASIC %(message)s %(user_token)s")
log.warning("again %s", token, extra={"user_token": token})
"""


def test_protection_survives_dict_config_twice_and_basic_config_force(
    guard: SecretGuard,
) -> None:
    token = guard.pat()
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CANARY": token},
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    assert first["msg"].startswith("created pat_AIC_…")
    assert first["user_token"].startswith("pat_AIC_…")
    assert second["exc_type"] == "ValueError"  # the exception is still there, masked
    assert "ValueError: refused pat_AIC_…" in second["exc"]
    assert lines[-1].startswith("BASIC again pat_AIC_…")
