"""Both hooks of ``.pre-commit-hooks.yaml`` through the real pre-commit framework.

``pre-commit try-repo`` only sees committed and tracked changes, so the tests commit a snapshot
of the project (tracked and new files, as ``git ls-files`` lists them) into a temp repository
and try that: it is what a user's ``rev:`` would check out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

from tests.helpers import REPO_ROOT, SecretGuard, console_script, env_with_scripts, git

pytestmark = pytest.mark.slow

# No release is tagged yet: the snippet starts from the default branch, and the first release
# will create this tag.
RELEASE_TAG = "v" + version("aic-token-hygiene")
README_REPO = "https://github.com/your-org/aic-token-hygiene"


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
    for args in (
        ["init", "-q", "-b", "main"],  # the snippet's `rev: main`
        ["add", "-A"],
        ["commit", "-qm", "snapshot", "--no-verify"],
    ):
        subprocess.run(["git", *args], cwd=snapshot, env=env, check=True, capture_output=True)
    return snapshot


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _try_repo(
    guard: SecretGuard, repo: Path, snapshot: Path, home: Path, hook: str, *files: str
) -> subprocess.CompletedProcess[bytes]:
    return _pre_commit(guard, repo, home, "try-repo", str(snapshot), hook, "--files", *files)


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


def _readme_snippet() -> str:
    """The README's `.pre-commit-config.yaml`, as printed."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    [snippet] = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL) if "repos:" in b]
    return snippet


def _pre_commit(
    guard: SecretGuard, repo: Path, home: Path, *args: str
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [console_script("pre-commit"), *args],
        cwd=repo,
        capture_output=True,
        timeout=600,
        check=False,
        env=env_with_scripts({"PRE_COMMIT_HOME": str(home)}),
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


def test_the_readme_snippet_works_as_printed_and_autoupdate_moves_it(
    git_repo: Path, guard: SecretGuard, project_snapshot: Path, pre_commit_home: Path
) -> None:
    snippet = _readme_snippet()
    [repo] = yaml.safe_load(snippet)["repos"]
    # A ref that exists before any release: the default branch, never a tag yet to be made.
    assert (repo["repo"], repo["rev"]) == (README_REPO, "main")
    config = git_repo / ".pre-commit-config.yaml"
    config.write_text(snippet.replace(README_REPO, str(project_snapshot)))
    # The README's next step: `autoupdate --freeze` pins the commit main is at.
    assert _pre_commit(guard, git_repo, pre_commit_home, "autoupdate", "--freeze").returncode == 0
    snapshot_commit = git(project_snapshot, "rev-parse", "HEAD").strip()
    assert re.search(rf"^    rev: {snapshot_commit}(\s|$)", config.read_text(), re.MULTILINE)
    (git_repo / "client.py").write_text(f'c = Client(token="{guard.pat()}")\n')
    git(git_repo, "add", ".")
    blocked = _pre_commit(guard, git_repo, pre_commit_home, "run", "--files", "client.py")
    assert blocked.returncode == 1, blocked.stdout
    assert b"client.py:1:" in blocked.stdout
    assert b"AIC Personal Access Token" in blocked.stdout

    # The first release: autoupdate moves to its tag; --freeze pins the tag's commit.
    (project_snapshot / "NEWS").write_text("first release\n")
    git(project_snapshot, "add", "NEWS")
    git(project_snapshot, "commit", "-qm", "release", "--no-verify")
    git(project_snapshot, "tag", RELEASE_TAG)
    commit = git(project_snapshot, "rev-parse", "HEAD").strip()
    assert _pre_commit(guard, git_repo, pre_commit_home, "autoupdate").returncode == 0
    assert re.search(rf"^    rev: {RELEASE_TAG}(\s|$)", config.read_text(), re.MULTILINE)
    assert _pre_commit(guard, git_repo, pre_commit_home, "autoupdate", "--freeze").returncode == 0
    assert f"rev: {commit}  # frozen: {RELEASE_TAG}" in config.read_text()
    (git_repo / "client.py").write_text("c = Client(token=os.environ['AIC_TOKEN'])\n")
    git(git_repo, "add", ".")
    # Both hooks over every file, the frozen pin included: no false alarm on the commit id.
    clean = _pre_commit(guard, git_repo, pre_commit_home, "run", "--all-files")
    assert clean.returncode == 0, clean.stdout
