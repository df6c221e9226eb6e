"""Both hooks of ``.pre-commit-hooks.yaml`` through the real pre-commit framework.

``pre-commit try-repo`` only sees committed and tracked changes, so the tests commit a snapshot
of the project (tracked and new files, as ``git ls-files`` lists them) into a temp repository
and try that: it is what a user's ``rev:`` would check out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, SecretGuard, console_script, env_with_scripts, git

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    snapshot = tmp_path_factory.mktemp("project")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for raw in listed.split(b"\0"):
        rel = os.fsdecode(raw)
        if rel and (REPO_ROOT / rel).is_file():
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / rel, snapshot / rel)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "snapshot", "--no-verify"]):
        subprocess.run(["git", *args], cwd=snapshot, env=env, check=True, capture_output=True)
    return snapshot


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(
    guard: SecretGuard, repo: Path, snapshot: Path, home: Path, hook: str, *files: str
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [console_script("pre-commit"), "try-repo", str(snapshot), hook, "--files", *files],
        cwd=repo,
        capture_output=True,
        timeout=600,
        check=False,
        env=env_with_scripts({"PRE_COMMIT_HOME": str(home)}),
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


@pytest.mark.parametrize("hook", ["aic-token-scan", "aic-detect-secrets"])
def test_hook_blocks_a_staged_token_and_passes_a_clean_file(
    hook: str, git_repo: Path, guard: SecretGuard, project_snapshot: Path, pre_commit_home: Path
) -> None:
    (git_repo / "client.py").write_text(f'c = Client(token="{guard.pat()}")\n')
    (git_repo / "clean.py").write_text("x = 1\n")
    git(git_repo, "add", ".")
    blocked = _try_repo(guard, git_repo, project_snapshot, pre_commit_home, hook, "client.py")
    assert blocked.returncode == 1, blocked.stdout
    out = blocked.stdout.decode()
    assert "client.py:1" in out if hook == "aic-token-scan" else "AIC Personal Access Token" in out
    passed = _try_repo(guard, git_repo, project_snapshot, pre_commit_home, hook, "clean.py")
    assert passed.returncode == 0, passed.stdout
