"""The kingfisher export's validation request, run by the real kingfisher against the stand-in.

A PAT the stand-in issued must read live (the memberships call answers 200), a PAT it never
issued dead (401); only PAT rules carry the request, so a bearer credential of another
service is never sent to ours. The base address comes from AIC_BASE_URL, checked as every
command checks it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from hygiene.rules import export
from hygiene.rules.kingfisher import MEMBERSHIPS_PATH
from hygiene.testing.server import ControlPlane
from tests.helpers import SecretGuard, run_hygiene
from tests.rules.test_real_tools import binary


def test_a_live_pat_reads_active_and_a_dead_one_inactive(
    control_plane: ControlPlane, guard: SecretGuard, tmp_path: Path
) -> None:
    _, live = control_plane.state.create_pat(
        control_plane.email, "org_main", "leaked", ["safes:read"], 30
    )
    guard.remember(live)
    dead, session = guard.pat(), guard.session_token()
    target = tmp_path / "repo"
    target.mkdir()
    (target / "a.env").write_text(f"LIVE={live}\nDEAD={dead}\nAuthorization: Bearer {session}\n")
    config = tmp_path / "aic-kingfisher.yaml"
    config.write_text(export("kingfisher", base_url=control_plane.base_url))
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [
            str(binary("kingfisher")),
            "scan",
            "--rules-path",
            str(config),
            "--load-builtins=false",
            "--allow-internal-ips",
            "--no-update-check",
            "-q",
            "-f",
            "json",
            "-o",
            str(report),
            str(target),
        ],
        capture_output=True,
        timeout=300,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    # 205: findings, one of them validated live (200 would be findings, none live).
    assert proc.returncode == 205, proc.stderr.decode(errors="replace")[-1500:]
    verdicts = {}
    for f in json.loads(report.read_text())["findings"]:
        value = f["finding"]["snippet"]
        name = {live: "live", dead: "dead", session: "session"}[value]
        verdicts[name] = f["finding"]["validation"]["outcome"]
    report.unlink()
    assert verdicts == {
        "live": "verified_active",
        "dead": "verified_inactive",
        "session": "not_attempted",
    }
    asked = [(r.method, r.path) for r in control_plane.requests]
    assert asked == [("GET", MEMBERSHIPS_PATH)] * 2


def test_the_cli_takes_the_address_from_aic_base_url(control_plane: ControlPlane) -> None:
    proc = run_hygiene(
        None,
        "rules",
        "export",
        "--format",
        "kingfisher",
        env={"AIC_BASE_URL": control_plane.base_url},
    )
    assert proc.returncode == 0, proc.stderr
    rules = yaml.safe_load(proc.stdout)["rules"]
    urls = [r["validation"]["content"]["request"]["url"] for r in rules if "validation" in r]
    assert urls == [control_plane.base_url + MEMBERSHIPS_PATH] * 2


def test_without_aic_base_url_no_request_is_exported_and_the_comments_say_so() -> None:
    text = export("kingfisher")
    assert "validation" not in yaml.safe_load(text)["rules"][0]
    assert "AIC_BASE_URL was not set" in text


def test_a_bad_address_is_a_usage_error_without_a_traceback() -> None:
    for url in ("ftp://x", "http://pam.example.com", "https://u:p@pam.example.com"):
        proc = run_hygiene(
            None, "rules", "export", "--format", "kingfisher", env={"AIC_BASE_URL": url}
        )
        assert proc.returncode == 2
        assert b"Traceback" not in proc.stderr
        assert proc.stdout == b""
