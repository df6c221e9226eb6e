"""HTTP clients at DEBUG: httpx/httpcore, requests/urllib3, http.client debuglevel, aiohttp, botocore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.masking.realworld import harness
from tests.masking.realworld.conftest import Verdict, by_design, judge
from tests.masking.realworld.upstream import upstream

LIBRARIES = ["httpx", "requests", "http_client", "aiohttp", "botocore"]


PRINTS = by_design(
    "http.client's debug output is print(), outside logging: a handler filter never sees it; install()'s stream guard does"
)
COMBINATIONS = [
    pytest.param(
        library, mode, marks=PRINTS if (library, mode) == ("http_client", "dictconfig") else ()
    )
    for library in LIBRARIES
    for mode in ("none", "install", "dictconfig")
]


@pytest.mark.parametrize(("library", "mode"), COMBINATIONS)
def test_client(library: str, mode: str, tmp_path: Path, verdict: Verdict) -> None:
    verdict.library, verdict.mode = library + " client", mode
    known = harness.Secrets()
    (tmp_path / "secrets.json").write_text(json.dumps(known.__dict__ | {"basic": known.basic}))
    with upstream(known) as url:
        outputs = harness.run("clients.py", mode, tmp_path, library, url)
    verdict.search(outputs, known)
    stderr = outputs["stderr.log"]
    verdict.expect(b"--- Logging error ---" not in stderr, "logging error dumps")
    verdict.expect(
        b"call failed" in stderr and b"Traceback" in stderr and b"UpstreamError" in stderr,
        "the exception's traceback is missing",
    )
    verdict.expect(stderr.count(b"token refresh failed for") == 3, "error lines missing")
    responses = (
        stderr.count(b"response ") if library != "botocore" else stderr.count(b"fetched secret")
    )
    verdict.expect(
        responses == (7 if library != "botocore" else 1), f"{responses} responses logged"
    )
    if library == "botocore":  # no over-masking where there is no secret
        verdict.expect(
            b"secrets-manager.CreateSecret: calling handler" in stderr,
            "botocore's CreateSecret event names masked",
        )
        verdict.expect(b":secret:app-db-AbCdEf" in stderr, "the ARN's secret: segment masked")
        verdict.expect(b"assumed role arn:aws:sts::" in stderr, "the AssumeRole call failed")
        verdict.expect(
            b"<AccessKeyId>ASIA5TESTONLY0000000</AccessKeyId>" in stderr,
            "STS's XML body not logged, or masked where there is no secret",
        )
    judge(verdict, masked=mode != "none")
