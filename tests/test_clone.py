"""The suite holds wherever the repository is cloned: nothing it reads lives beside the
clone, and console scripts are found beside ``sys.executable``, activated or not.

The files git would check out are copied into an empty temporary folder (no ``../shared``
beside them), and the tests that once reached outside the repository, or looked tools up on
PATH, run there in a real pytest process whose PATH lacks this interpreter's scripts folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, SCRIPTS_DIR

# The tests that read test data, run console scripts, or have git hooks call `hygiene`: found
# by the helpers they use, so the list follows the test files wherever they move.
HELPERS = ("SARIF_SCHEMA", "console_script(", "env_with_scripts(")


def _targets(clone: Path) -> list[str]:
    files = sorted((clone / "tests").rglob("test_*.py"))
    chosen = [
        str(f.relative_to(clone))
        for f in files
        if f.name != "test_clone.py" and any(h in f.read_text(encoding="utf-8") for h in HELPERS)
    ]
    assert len(chosen) >= 4, chosen
    return chosen


# Skips that depend on the machine, not on files: running as root, a platform without /proc.
MACHINE_SKIPS = ("root reads unreadable files", "needs Linux /proc")


def _plain_clone(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    for raw in listed.split(b"\0"):
        rel = os.fsdecode(raw)
        if rel and (REPO_ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / rel, dest / rel)
    return dest


def _path_without_scripts() -> str:
    parts = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(p for p in parts if Path(p) != SCRIPTS_DIR)


@pytest.mark.slow  # a nested pytest run of a dozen test files
def test_no_test_is_skipped_for_want_of_a_file_in_a_plain_clone(tmp_path: Path) -> None:
    clone = _plain_clone(tmp_path / "clone")
    assert not (tmp_path / "shared").exists()
    env = {**os.environ, "PATH": _path_without_scripts()}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.run(
        # Slow tests (pre-commit environments, a real pip install) run in the suite itself.
        [sys.executable, "-m", "pytest", "-q", "-rs", "-m", "not slow", *_targets(clone)],
        cwd=clone,
        env=env,
        capture_output=True,
        # Only stops a hang: on a loaded machine the nested run took over 300 s.
        timeout=1800,
        check=False,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, out[-3000:]
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert [s for s in skips if not any(reason in s for reason in MACHINE_SKIPS)] == []
    assert re.search(r"\d+ passed", out)


def test_sarif_schema_is_in_the_repository_with_its_source_named() -> None:
    schema = REPO_ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
    assert schema.is_file()
    assert "docs.oasis-open.org/sarif" in (schema.parent / "README.md").read_text()
