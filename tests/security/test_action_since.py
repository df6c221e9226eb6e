"""The Action's ``since: auto`` with the history flags: a pull request is ``--ref`` its head
``--since`` its base, a push ``--ref`` the new head ``--since`` the previous one, a new branch
``--ref`` its head alone. What the event carries is data: a value that is no commit id never
reaches the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import SecretGuard, git
from tests.test_action import Run, _commit, _head, run_action


def _command(run: Run) -> list[str]:
    """The scan step's printed ``hygiene scan ...`` line, as words."""
    [line] = [ln for ln in run.logs[0].decode().splitlines() if ln.startswith("hygiene scan ")]
    return line.split(" ")


def _range(run: Run) -> list[str]:
    """The command's --ref and --since words."""
    return [w for w in _command(run) if w.startswith(("--ref", "--since"))]


def test_a_pull_request_is_its_head_since_its_base(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "old.txt", f"key={guard.pat()}\n", "a leak the base holds (known)")
    base = _commit(git_repo, "README", "base\n", "base")
    head = _commit(git_repo, "src.py", "clean\n", "the pull request")
    clean = run_action(git_repo, tmp_path / "r1", guard, pull_request=(base, head),
                       mode="history", since="auto")  # fmt: skip
    assert clean.outputs["scan"]["exit-code"] == "0"
    assert _range(clean) == [f"--ref={head}", f"--since={base}"]
    leak = _commit(git_repo, "src.py", f"key={guard.pat()}\n", "the pull request leaks")
    found = run_action(git_repo, tmp_path / "r2", guard, pull_request=(base, leak),
                       mode="history", since="auto")  # fmt: skip
    assert found.outputs["scan"]["findings"] == "1"


def test_a_base_that_moved_on_is_not_the_pull_requests_leak(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    fork = _commit(git_repo, "README", "base\n", "base")
    git(git_repo, "checkout", "-qb", "topic")
    head = _commit(git_repo, "src.py", "clean\n", "the pull request")
    git(git_repo, "checkout", "-q", "main")
    base = _commit(git_repo, "late.txt", f"key={guard.pat()}\n", "the base leaks after the fork")
    run = run_action(git_repo, tmp_path / "r", guard, pull_request=(base, head),
                     mode="history", since="auto")  # fmt: skip
    assert run.outputs["scan"]["exit-code"] == "0"
    assert fork != base


def test_a_new_branch_is_its_heads_history_not_every_refs(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "README", "base\n", "base")
    git(git_repo, "checkout", "-qb", "elsewhere")
    _commit(git_repo, "other.txt", f"key={guard.pat()}\n", "another branch's leak")
    git(git_repo, "checkout", "-q", "main")
    _commit(git_repo, "src.py", "clean\n", "the new branch")
    run = run_action(git_repo, tmp_path / "r", guard, before="0" * 40, mode="history",
                     since="auto")  # fmt: skip
    assert run.outputs["scan"]["exit-code"] == "0"
    assert _range(run) == [f"--ref={_head(git_repo)}"]


@pytest.mark.parametrize("value", ["--output=pwned", "--all", "-", "HEAD", "main", "0" * 39])
def test_event_values_that_are_no_commit_ids_never_reach_the_command(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, value: str
) -> None:
    _commit(git_repo, "old.txt", f"key={guard.pat()}\n", "a leak")
    run = run_action(git_repo, tmp_path / "r", guard, pull_request=(value, value),
                     mode="history", since="auto")  # fmt: skip
    # No commit ids: every ref's history, as without since.
    assert run.outputs["scan"]["findings"] == "1"
    assert _range(run) == []
    assert value not in _command(run)
    assert not (git_repo / "pwned").exists()


@pytest.mark.parametrize("value", ["--output=pwned", "--all", "-", "HEAD~1"])
def test_a_hostile_base_leaves_the_head_alone(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, value: str
) -> None:
    head = _commit(git_repo, "old.txt", f"key={guard.pat()}\n", "a leak")
    run = run_action(git_repo, tmp_path / "r", guard, pull_request=(value, head),
                     mode="history", since="auto")  # fmt: skip
    assert run.outputs["scan"]["findings"] == "1"
    assert _range(run) == [f"--ref={head}"]
    assert not (git_repo / "pwned").exists()
