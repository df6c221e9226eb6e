"""The GitHub Actions example: valid YAML that scans the pushed range and uploads SARIF."""

from __future__ import annotations

import yaml

from tests.helpers import REPO_ROOT

WORKFLOW = REPO_ROOT / "examples" / "github-actions" / "token-scan.yml"


def test_workflow_scans_history_and_uploads_sarif() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text())
    steps = doc["jobs"]["scan"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    script = next(s["run"] for s in steps if "hygiene scan" in s.get("run", ""))
    assert '--history --since "$range" --format sarif --output hygiene.sarif' in script
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload["with"]["sarif_file"] == "hygiene.sarif"
    assert doc["permissions"]["security-events"] == "write"
