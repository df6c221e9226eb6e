"""``http.server`` (request log and error report outside ``logging``) and aiohttp's server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.masking.realworld import harness
from tests.masking.realworld.conftest import Verdict, judge


def serve(
    script: str, mode: str, tmp_path: Path, known: harness.Secrets
) -> tuple[dict[str, bytes], list[int]]:
    app = harness.start(script, mode, tmp_path)
    statuses = harness.send_traffic(app.port, known, rounds=harness.ROUNDS)
    return harness.stop(app), statuses


@pytest.mark.parametrize("mode", ["none", "install"])
def test_http_server(mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = "http.server", mode
    known = harness.Secrets()
    outputs, statuses = serve("stdlib_server.py", mode, tmp_path, known)
    verdict.search(outputs, known)
    stderr = outputs["stderr.log"]
    requests = stderr.count(b'HTTP/1.1" ')
    answered = sum(1 for status in statuses if status)  # the request that raised gets no answer
    verdict.expect(
        requests == answered,
        f"request log: {requests} lines for {answered} answered requests",
    )
    verdict.expect(
        b"Exception occurred during processing of request" in stderr and b"UpstreamError" in stderr,
        "the error report is missing",
    )
    judge(verdict, masked=mode != "none")


@pytest.mark.parametrize("mode", ["none", "install", "dictconfig"])
def test_aiohttp_server(mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = "aiohttp server", mode
    known = harness.Secrets()
    outputs, statuses = serve("aiohttp_server.py", mode, tmp_path, known)
    verdict.search(outputs, known)
    stderr = outputs["stderr.log"]
    access = harness.access_lines(stderr)
    verdict.expect(
        access == len(statuses),
        f"access log: {access} lines for {len(statuses)} requests",
    )
    verdict.expect(b"--- Logging error ---" not in stderr, "logging error dumps")
    verdict.expect(
        b"Error handling request" in stderr and b"UpstreamError" in stderr,
        "the 500's traceback is missing",
    )
    judge(verdict, masked=mode != "none")
