"""The recall battery: real formats, each carrying a generated credential the way it really
does; every planted token must be reported with its exact fingerprint.

One run of the real ``hygiene scan --format json`` over every format at once, a per-format
in-process check (a failure names the format), standard input and ``--staged``, and git
history (a real repository, a commit adding the file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hygiene.detection import AIC_PAT, BEARER_TOKEN, fingerprint
from hygiene.scan import ScanRequest, run_scan
from tests.helpers import SecretGuard, git, run_hygiene
from tests.scan.decoders.formats import FORMATS, Format

TYPE_OF = {"pat": AIC_PAT, "session": BEARER_TOKEN}


def _slug(fmt: Format) -> str:
    return re.sub(r"[^a-z0-9]+", "-", fmt.name.lower()).strip("-")


def test_the_battery_covers_sixty_formats() -> None:
    assert len(FORMATS) >= 60
    assert len({f.name for f in FORMATS}) == len(FORMATS)


def test_the_cli_reports_every_planted_token_with_its_fingerprint(
    guard: SecretGuard, tmp_path: Path
) -> None:
    planted: dict[str, tuple[str, str]] = {}
    for fmt in FORMATS:
        path, cred = fmt.plant(guard, tmp_path / _slug(fmt))
        planted[fmt.name] = (path.relative_to(tmp_path).as_posix(), fingerprint(cred))
    proc = run_hygiene(guard, "scan", "--format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr.decode()
    assert proc.stderr.decode().count("\n") == 1  # the summary only: no error
    found = {
        (f["path"].split("!")[0], f["fingerprint"]) for f in json.loads(proc.stdout)["findings"]
    }
    missed = [name for name, where in planted.items() if where not in found]
    assert missed == []


@pytest.mark.parametrize("fmt", FORMATS, ids=_slug)
def test_each_format_yields_its_token_exactly(
    guard: SecretGuard, tmp_path: Path, fmt: Format
) -> None:
    path, cred = fmt.plant(guard, tmp_path)
    result = run_scan(ScanRequest(paths=(str(path),), keep_secrets=True))
    assert result.errors == []
    tokens = [(d.secret.type_id, d.secret.token == cred) for d in result.detections]
    assert tokens == [(TYPE_OF[fmt.kind], True)]


@pytest.mark.parametrize(
    "fmt", [f for f in FORMATS if "zip" in f.name or "tar" in f.name][:4], ids=_slug
)
def test_findings_in_archives_name_archive_and_member(
    guard: SecretGuard, tmp_path: Path, fmt: Format
) -> None:
    path, _ = fmt.plant(guard, tmp_path)
    proc = run_hygiene(guard, "scan", "--format", "json", path.name, cwd=tmp_path)
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["path"] == f"{finding['archive']}!{finding['member']}"
    assert finding["archive"] == path.name
    text = run_hygiene(guard, "scan", path.name, cwd=tmp_path).stdout.decode()
    assert text.startswith(f"{finding['path']}:{finding['line']}:{finding['column']}: ")
    sarif = json.loads(
        run_hygiene(guard, "scan", "--format", "sarif", path.name, cwd=tmp_path).stdout
    )
    (result,) = sarif["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == finding["path"]
    assert result["properties"]["member"] == finding["member"]


def test_nested_member_path_and_position(guard: SecretGuard, tmp_path: Path) -> None:
    from tests.scan.decoders.containers import zipped

    pat = guard.pat()
    inner = zipped({"config.yml": f"name: x\n  token: {pat}\n".encode()})
    (tmp_path / "a.zip").write_bytes(zipped({"lib/b.jar": inner}))
    proc = run_hygiene(guard, "scan", "a.zip", cwd=tmp_path)
    digest = fingerprint(pat).removeprefix("sha256:")[:12]
    assert (
        proc.stdout.decode()
        == f"a.zip!lib/b.jar!config.yml:2:10: aic-pat pat_AIC_…{pat[-4:]} {digest}\n"
    )


def test_decoded_findings_keep_the_location_of_the_encoded_text(
    guard: SecretGuard, tmp_path: Path
) -> None:
    from tests.scan.decoders.containers import b64

    pat = guard.pat()
    blob = b64("ci-bot:" + pat)
    (tmp_path / "h.log").write_text(f"first\nGET / Authorization: Basic {blob}\n")
    (finding,) = run_scan(ScanRequest(paths=(str(tmp_path / "h.log"),))).findings
    assert finding.fingerprint == fingerprint(pat)
    # `ci-bot:` is 7 bytes: the PAT's encoding starts in the third group of the blob.
    column = len("GET / Authorization: Basic ") + 1 + 8
    assert (finding.line, finding.column, finding.type) == (2, column, AIC_PAT)


@pytest.mark.parametrize(
    "name",
    [
        "powershell utf-16 output",
        "tar.xz",
        "kubernetes secret data (yaml, base64)",
        "gzip without suffix",
    ],
)
def test_standard_input_is_decoded_too(guard: SecretGuard, tmp_path: Path, name: str) -> None:
    fmt = next(f for f in FORMATS if f.name == name)
    path, cred = fmt.plant(guard, tmp_path)
    proc = run_hygiene(guard, "scan", "--format", "json", "-", input=path.read_bytes())
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["fingerprint"] == fingerprint(cred)
    assert finding["path"].startswith("<stdin>")


def test_staged_and_all_files_and_history_decode(guard: SecretGuard, git_repo: Path) -> None:
    chosen = [
        f
        for f in FORMATS
        if f.name in ("zip inside a tar.gz", ".reg utf-16 export", "docker config.json auth")
    ]
    expected = set()
    for fmt in chosen:
        _path, cred = fmt.plant(guard, git_repo / _slug(fmt))
        expected.add(fingerprint(cred))
    git(git_repo, "add", "-A")
    for mode in ("--staged", "--all-files"):
        proc = run_hygiene(guard, "scan", mode, "--format", "json", cwd=git_repo)
        assert {f["fingerprint"] for f in json.loads(proc.stdout)["findings"]} == expected, mode
    git(git_repo, "commit", "-qm", "add configs", "--no-verify")
    # History: a text file added by a commit (git log -p shows the added line).
    pat = guard.pat()
    (git_repo / "deploy.env").write_text(f"AIC_TOKEN={pat}\n")
    git(git_repo, "add", "deploy.env")
    git(git_repo, "commit", "-qm", "deploy", "--no-verify")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    found = json.loads(proc.stdout)["findings"]
    assert any(f["fingerprint"] == fingerprint(pat) and f["commit"] for f in found)


def test_mime_base64_is_read_across_its_line_breaks(guard: SecretGuard, tmp_path: Path) -> None:
    from tests.scan.decoders.containers import mime_b64

    pat = guard.pat()
    # Every shift of the PAT against the 76-column lines: some split its needle at a break.
    for pad in range(0, 60, 3):
        body = mime_b64(("x" * pad + f" AIC_TOKEN={pat}\n").encode())
        mail = f"Subject: env\r\nContent-Transfer-Encoding: base64\r\n\r\n{body}\r\n"
        (tmp_path / "m.eml").write_text(mail)
        found = run_scan(ScanRequest(paths=(str(tmp_path / "m.eml"),))).findings
        assert [f.fingerprint for f in found] == [fingerprint(pat)], pad
