"""The plain pre-push hook scans what a push adds: ``--ref`` the pushed commit ``--since`` the
remote's tip, or for a new branch ``--since`` every remote-tracking ref. Commits already on a
remote are not scanned again; a local branch that is not pushed is not scanned at all; what
git hands the hook is never read as an option."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import SecretGuard, env_with_scripts, git, run_hygiene
from tests.integrations.githooks.test_git_hooks import _git_may_fail, _pushing_pair


def _commit(repo: Path, name: str, text: str, message: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", message, "--no-verify")
    return git(repo, "rev-parse", "HEAD").strip()


def _hooked(tmp_path: Path, git_repo: Path, guard: SecretGuard) -> Path:
    _pushing_pair(tmp_path, git_repo)
    assert run_hygiene(guard, "install-hooks", "--hook", "pre-push", cwd=git_repo).returncode == 0
    return git_repo


def _push(guard: SecretGuard, repo: Path, *refspecs: str) -> subprocess.CompletedProcess[bytes]:
    return _git_may_fail(guard, repo, "push", "-q", "origin", *refspecs)


def _leak_on_the_remote(repo: Path, guard: SecretGuard, branch: str) -> None:
    """A branch with a leak pushed past the hook (already on the remote, already known)."""
    git(repo, "checkout", "-qb", branch, "main")
    _commit(repo, "old.txt", f"key={guard.pat()}\n", "an old leak")
    git(repo, "push", "-q", "--no-verify", "origin", branch)
    git(repo, "checkout", "-q", "main")


def test_a_new_branch_merging_a_pushed_leak_is_not_refused_for_it(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    _leak_on_the_remote(repo, guard, "old")
    git(repo, "checkout", "-qb", "feature", "main")
    _commit(repo, "new.txt", "clean\n", "first of the branch")
    git(repo, "merge", "-q", "--no-edit", "--no-verify", "origin/old")
    _commit(repo, "more.txt", "clean\n", "after the merge")
    # The old hook scanned first^..feature: the merged, pushed leak again.
    pushed = _push(guard, repo, "feature")
    assert pushed.returncode == 0, pushed.stderr


def test_a_new_branch_with_a_new_leak_is_refused_past_a_merge(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    _leak_on_the_remote(repo, guard, "old")
    git(repo, "checkout", "-qb", "feature", "main")
    _commit(repo, "new.txt", f"key={guard.pat()}\n", "a new leak")
    git(repo, "merge", "-q", "--no-edit", "--no-verify", "origin/old")
    refused = _push(guard, repo, "feature")
    assert refused.returncode != 0
    out = (refused.stdout + refused.stderr).decode()
    assert ":new.txt:1:5: aic-pat" in out
    assert "old.txt" not in out


def test_an_orphan_branch_is_scanned_alone(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    git(repo, "checkout", "-qb", "wip", "main")
    _commit(repo, "wip.txt", f"key={guard.pat()}\n", "never pushed")
    git(repo, "checkout", "-q", "--orphan", "pages")
    git(repo, "rm", "-rqf", ".")
    _commit(repo, "index.html", "clean\n", "a root commit")
    # The old hook scanned every ref for a root commit: the unpushed wip branch's leak.
    assert _push(guard, repo, "pages").returncode == 0
    git(repo, "checkout", "-q", "--orphan", "docs")
    git(repo, "rm", "-rqf", ".")
    _commit(repo, "leak.txt", f"key={guard.pat()}\n", "a root leak")
    refused = _push(guard, repo, "docs")
    assert refused.returncode != 0
    assert ":leak.txt:1:5: aic-pat" in (refused.stdout + refused.stderr).decode()


def test_a_remote_tracking_ref_named_like_an_option_is_only_a_commit(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    main = git(repo, "rev-parse", "main").strip()
    for name in ("--output=pwned", "-", "--ref=HEAD", "--since=x"):
        git(repo, "update-ref", f"refs/remotes/origin/{name}", main)
    git(repo, "checkout", "-qb", "feature", "main")
    _commit(repo, "new.txt", f"key={guard.pat()}\n", "a new leak")
    refused = _push(guard, repo, "feature")
    assert refused.returncode != 0
    assert ":new.txt:1:5: aic-pat" in (refused.stdout + refused.stderr).decode()
    assert not (repo / "pwned").exists()


@pytest.mark.parametrize(
    "line",
    [
        "refs/heads/x --output=pwned refs/heads/x 0000000000000000000000000000000000000000",
        "refs/heads/x HEAD refs/heads/x --all",
        "refs/heads/x 1111111111111111111111111111111111111111 refs/heads/x --output=pwned",
        "refs/heads/x 1111111111111111111111111111111111111111 refs/heads/x -",
    ],
)
def test_what_is_not_a_commit_id_is_refused_never_an_option(
    tmp_path: Path, git_repo: Path, guard: SecretGuard, line: str
) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    proc = subprocess.run(
        ["sh", ".git/hooks/pre-push", "origin", "url"],
        cwd=repo,
        input=(line + "\n").encode(),
        capture_output=True,
        timeout=120,
        check=False,
        env=env_with_scripts(),
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines() == [
        "pre-push: git gave no commit ids for refs/heads/x; push refused"
    ]
    assert not (repo / "pwned").exists()


def test_a_deleted_branch_scans_nothing(tmp_path: Path, git_repo: Path, guard: SecretGuard) -> None:
    repo = _hooked(tmp_path, git_repo, guard)
    git(repo, "push", "-q", "--no-verify", "origin", "main:gone")
    assert _push(guard, repo, ":gone").returncode == 0
