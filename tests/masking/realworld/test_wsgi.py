"""gunicorn (access log with the Authorization header) and Flask/werkzeug (debug on and off)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.masking.realworld import harness
from tests.masking.realworld.conftest import Verdict, judge

# `%({authorization}i)s` prints the header's value with no key beside it.
GUNICORN_ACCESS = '%(h)s "%(r)s" %(s)s auth="%({authorization}i)s" cookie="%({cookie}i)s"'


def gunicorn_conf(mode: str, tmp_path: Path, port: int) -> Path:
    lines = [
        f"bind = '127.0.0.1:{port}'",
        "workers = 1",
        "accesslog = '-'",
        "errorlog = '-'",
        "loglevel = 'info'",
        f"access_log_format = {GUNICORN_ACCESS!r}",
    ]
    if mode == "dictconfig":
        lines += [
            "import copy",
            "from gunicorn.glogging import CONFIG_DEFAULTS",
            "from hygiene.masking.recipes.dictconfig import with_redaction",
            "_cfg = copy.deepcopy(CONFIG_DEFAULTS)",
            "for name in ('gunicorn.error', 'gunicorn.access'): _cfg['loggers'][name]['propagate'] = False",
            "logconfig_dict = with_redaction(_cfg)",
        ]
    if mode == "integration":
        lines.append("logger_class = 'hygiene.masking.recipes.gunicorn.RedactingLogger'")
    path = tmp_path / "gunicorn.conf.py"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("mode", ["none", "install", "dictconfig", "integration", "pipe"])
def test_gunicorn(mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = "gunicorn", mode
    port = harness.free_port()
    conf = gunicorn_conf(mode, tmp_path, port)
    argv = [sys.executable, "-m", "gunicorn", "-c", str(conf), "wsgi_app:application"]
    if mode == "pipe":  # gunicorn ... 2>&1 | hygiene mask
        argv = [sys.executable, str(harness.APPS / "piped.py"), *argv]
    app_mode = "none" if mode == "pipe" else mode
    app = harness.start("", mode, tmp_path, port, argv=argv, env={"HYGIENE_APP_MODE": app_mode})
    known = harness.Secrets()
    statuses = harness.send_traffic(app.port, known, rounds=harness.ROUNDS)
    outputs = harness.stop(app, signal.SIGTERM)
    verdict.search(outputs, known)
    everything = outputs["stdout.log"] + outputs["stderr.log"]
    access = harness.access_lines(everything)
    verdict.expect(
        access == len(statuses),
        f"access log: {access} lines for {len(statuses)} requests",
    )
    verdict.expect(b"--- Logging error ---" not in everything, "logging error dumps")
    # gunicorn prints "-" for an absent header: it is no secret.
    verdict.expect(
        b'auth="-" cookie="-"' in everything, 'an absent cookie ("-") masked as a secret'
    )
    verdict.expect(
        b"Error handling request" in everything and b"UpstreamError" in everything,
        "the 500's traceback is missing",
    )
    judge(verdict, masked=mode != "none")


@pytest.mark.parametrize("mode", ["none", "install", "dictconfig", "debug"])
def test_flask_werkzeug(mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = "flask+werkzeug", mode
    app = harness.start("wsgi_app.py", mode, tmp_path)
    known = harness.Secrets()
    statuses = harness.send_traffic(app.port, known, rounds=harness.ROUNDS)
    outputs = harness.stop(app)
    verdict.search(outputs, known)
    everything = outputs["stdout.log"] + outputs["stderr.log"]
    access = harness.access_lines(everything)
    verdict.expect(
        access == len(statuses),
        f"access log: {access} lines for {len(statuses)} requests",
    )
    verdict.expect(b"--- Logging error ---" not in everything, "logging error dumps")
    verdict.expect(
        b"Traceback" in everything and b"UpstreamError" in everything,
        "the 500's traceback is missing",
    )
    judge(verdict, masked=mode != "none")
