"""Every git the toolkit starts goes through gitcmd, the neutralised config included: history's
ancestor checks (one small git per candidate commit) too, which once started git by
themselves. The layout side (no module but gitcmd starts a program) is in
tests/test_layout_one_way.py."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from hygiene.gitcmd import git_succeeds
from tests.helpers import SecretGuard, git, run_hygiene


def _commit_at(repo: Path, message: str, when: int) -> str:
    """Commit everything, committed at Unix time ``when`` (what attribution orders by)."""
    git(repo, "add", "-A")
    env = {
        **os.environ,
        "GIT_COMMITTER_DATE": f"{when} +0000",
        "GIT_AUTHOR_DATE": f"{when} +0000",
    }
    subprocess.run(
        ["git", "commit", "-qm", message], cwd=repo, env=env, check=True, capture_output=True
    )
    return git(repo, "rev-parse", "HEAD").strip()


def _evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "ran.txt"
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\necho clean\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, marker


@pytest.mark.parametrize("candidates", [2, 5, 12])
def test_ancestor_checks_run_no_program_the_repository_names(
    git_repo: Path, guard: SecretGuard, tmp_path: Path, candidates: int
) -> None:
    """The same blob introduced again and again, each later commit dated earlier than the
    first: only the ancestor checks can tell the first introduction (one git per candidate
    up to 8, one walk past), under a config naming a program for every hook it has."""
    pat = guard.pat()
    first = ""
    for n in range(candidates):
        (git_repo / "leak.txt").write_text(f"key = {pat}\n")
        made = _commit_at(git_repo, f"add {n}", 2_000_000_000 - n * 1000)
        first = first or made
        (git_repo / "leak.txt").unlink()
        _commit_at(git_repo, f"drop {n}", 2_000_000_000 - n * 1000 + 1)
    (git_repo / "other.txt").write_text("x\n")
    _commit_at(git_repo, "last", 2_000_000_000 + 10)
    script, marker = _evil(tmp_path)
    for key in ("core.fsmonitor", "core.pager", "core.sshCommand", "gpg.program", "diff.external"):
        git(git_repo, "config", key, str(script))
    git(git_repo, "config", "core.hooksPath", str(tmp_path))
    git(git_repo, "config", "log.showSignature", "true")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert not marker.exists(), marker.read_text()
    findings = json.loads(proc.stdout)["findings"]
    assert [(f["path"], f["commit"]) for f in findings] == [("leak.txt", first)]
    assert pat not in proc.stdout.decode() + proc.stderr.decode()


def test_git_succeeds_answers_by_the_status(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (git_repo / "a.txt").write_text("a\n")
    older = _commit_at(git_repo, "a", 1_700_000_000)
    (git_repo / "b.txt").write_text("b\n")
    newer = _commit_at(git_repo, "b", 1_700_000_100)
    monkeypatch.chdir(git_repo)
    assert git_succeeds(["merge-base", "--is-ancestor", older, newer])
    assert not git_succeeds(["merge-base", "--is-ancestor", newer, older])
    assert not git_succeeds(["merge-base", "--is-ancestor", "0" * 40, newer])  # unknown: no


def test_git_succeeds_without_git_is_no_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git here
    assert git_succeeds(["rev-parse", "HEAD"]) is False
