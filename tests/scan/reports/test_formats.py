"""Report formats: SARIF against the OASIS schema, and no format ever holds a secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import fingerprint
from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.engine import scan_bytes
from hygiene.scan.reports.formats import FORMATS, render
from tests.helpers import SARIF_SCHEMA, SecretGuard, assert_no_secret, run_hygiene
from tests.strategies import bearer_credentials, pats


def _result_for(data: bytes, path: str = "a.txt") -> ScanResult:
    result = ScanResult(files=1, bytes=len(data))
    result.record(scan_bytes(data), path)
    return result


def _random_looking(secret: str) -> bool:
    # The hidden part must not be a word of the format itself (`physicalLoca` of
    # `physicalLocation` was one): mixed case with a digit, as real tokens are.
    hidden = secret.removeprefix("pat_AIC_")[:-4]
    return (
        len(hidden) >= 12
        and any(c.isdigit() for c in hidden)
        and any(c.isupper() for c in hidden)
        and any(c.islower() for c in hidden)
    )


_long_pats = pats.filter(_random_looking)
_long_creds = bearer_credentials.filter(_random_looking)


@given(pat=_long_pats, cred=_long_creds, fmt=st.sampled_from(FORMATS))
def test_no_format_holds_a_secret(pat: str, cred: str, fmt: str) -> None:
    result = _result_for(f"{pat}\nAuthorization: Basic {cred}\n".encode())
    assert len(result.findings) == 2
    assert_no_secret([render(fmt, result.findings, result)], [pat, cred])


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SARIF_SCHEMA.read_text())
    return schema


def test_sarif_validates_against_the_schema(tmp_path: Path, guard: SecretGuard) -> None:
    import jsonschema

    pat, session = guard.pat(), guard.session_token()
    (tmp_path / "dir").mkdir()
    text = f"x = 1\nT = '{pat}'\nh = 'Authorization: Bearer {session}'\n"
    (tmp_path / "dir" / "a.py").write_text(text)
    proc = run_hygiene(guard, "scan", "--format", "sarif", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, _schema())
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["aic-pat", "bearer-token"]
    first = run["results"][0]
    assert first["ruleId"] == "aic-pat"
    assert first["partialFingerprints"] == {"secretFingerprint/v1": fingerprint(pat)}
    region = first["locations"][0]["physicalLocation"]
    assert region["artifactLocation"]["uri"] == "dir/a.py"
    assert region["region"] == {"startLine": 2, "startColumn": 6}


def test_empty_sarif_is_valid(tmp_path: Path) -> None:
    import jsonschema

    (tmp_path / "a.txt").write_text("clean\n")
    proc = run_hygiene(None, "scan", "--format", "sarif", cwd=tmp_path)
    assert proc.returncode == 0
    jsonschema.validate(json.loads(proc.stdout), _schema())
