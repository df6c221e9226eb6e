"""``--all-files`` and submodules an attacker arranged: nothing outside the repository is read
(through a symlinked submodule path or folder, a ``.git`` naming another repository, a
``.gitmodules`` pointing out), no loop, no hang, no program of a submodule's config run."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import SecretGuard, git
from tests.scan.sources.test_submodules import _add_submodule, _notes, _repo, _scan


def _outside(tmp_path: Path, guard: SecretGuard) -> tuple[Path, str]:
    """A repository outside the scanned one, whose tracked file holds a PAT."""
    pat = guard.pat()
    return _repo(tmp_path / "outside", {"a.cfg": f"k={pat}\n", "secret.cfg": f"k={pat}\n"}), pat


def _with_submodule(git_repo: Path, tmp_path: Path, where: str = "sub") -> Path:
    """``git_repo`` with a checked-out, clean submodule at ``where`` (its file: a.cfg)."""
    _add_submodule(git_repo, _repo(tmp_path / "inner", {"a.cfg": "clean\n"}), where)
    return git_repo / where


def test_a_submodule_path_that_is_a_symlink_is_not_followed(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    outside, _ = _outside(tmp_path, guard)
    sub = _with_submodule(git_repo, tmp_path)
    os.rename(sub, tmp_path / "moved")
    sub.symlink_to(outside, target_is_directory=True)  # a checked-out repository, elsewhere
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths) == (0, [])
    assert _notes(lines) == [
        "hygiene: --all-files: 1 submodule not scanned: sub (a symlink, not followed)"
    ]


def test_a_submodule_under_a_symlinked_folder_is_not_followed(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    _repo(tmp_path / "holder" / "sub", {"a.cfg": f"k={pat}\n"})  # checked out, elsewhere
    _with_submodule(git_repo, tmp_path, "libs/sub")
    os.rename(git_repo / "libs", tmp_path / "libs-moved")
    (git_repo / "libs").symlink_to(tmp_path / "holder", target_is_directory=True)
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths) == (0, [])
    assert _notes(lines) == [
        "hygiene: --all-files: 1 submodule not scanned: libs/sub (under a symlink, not followed)"
    ]


def test_gitmodules_pointing_outside_reads_nothing_there(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    outside, _ = _outside(tmp_path, guard)
    _with_submodule(git_repo, tmp_path)
    (git_repo / ".gitmodules").write_text(
        '[submodule "sub"]\n\tpath = sub\n\turl = ../inner\n'
        f'[submodule "out"]\n\tpath = ../outside\n\turl = {outside}\n'
        f'[submodule "abs"]\n\tpath = {outside}\n\turl = {outside}\n'
    )
    git(git_repo, "add", ".gitmodules")
    git(git_repo, "commit", "-qm", "point out")
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths, _notes(lines)) == (0, [], [])
    assert " 2 files," in lines[-1]  # .gitmodules and sub/a.cfg


def test_a_gitdir_naming_another_repository_reads_only_this_work_tree(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    outside, _ = _outside(tmp_path, guard)
    sub = _with_submodule(git_repo, tmp_path)
    (sub / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    # Its index lists a.cfg and secret.cfg: a.cfg is read here (clean), secret.cfg is absent.
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths, _notes(lines)) == (0, [], [])


def test_a_gitdir_naming_the_repository_itself_is_no_loop(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    (git_repo / "top.cfg").write_text(f"k={pat}\n")
    git(git_repo, "add", "top.cfg")
    git(git_repo, "commit", "-qm", "top")
    sub = _with_submodule(git_repo, tmp_path)
    (sub / ".git").write_text("gitdir: ../.git\n")
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths) == (1, ["top.cfg"])
    assert _notes(lines) == [
        "hygiene: --all-files: 1 submodule not scanned: sub (its repository is listed already)"
    ]


def test_two_submodules_sharing_one_repository_loop_nowhere(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    """sub/.git names the repository of sub2, whose index holds the gitlink sub2 again."""
    pat = guard.pat()
    inner = _repo(tmp_path / "inner", {"a.cfg": f"k={pat}\n"})
    _add_submodule(git_repo, inner, "sub")
    _add_submodule(git_repo, inner, "sub2")
    (git_repo / "sub" / ".git").write_text("gitdir: ../.git/modules/sub2\n")
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths) == (1, ["sub/a.cfg"])
    assert _notes(lines) == [
        "hygiene: --all-files: 1 submodule not scanned: sub2 (its repository is listed already)"
    ]


def test_a_dot_git_that_is_a_symlink_or_a_fifo_is_not_followed(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    outside, _ = _outside(tmp_path, guard)
    sub = _with_submodule(git_repo, tmp_path)
    (sub / ".git").unlink()
    (sub / ".git").symlink_to(outside / ".git")
    _, _, lines = _scan(guard, git_repo)
    why = "its .git is not a file or folder, not followed"
    assert _notes(lines) == [f"hygiene: --all-files: 1 submodule not scanned: sub ({why})"]
    (sub / ".git").unlink()
    os.mkfifo(sub / ".git")  # never opened: a FIFO with no writer would block the read
    _, _, lines = _scan(guard, git_repo)
    assert _notes(lines) == [f"hygiene: --all-files: 1 submodule not scanned: sub ({why})"]


def test_a_gitdir_file_that_names_nothing_is_said_not_guessed(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    sub = _with_submodule(git_repo, tmp_path)
    for text, why in (
        ("garbage\n", "its .git file names no git directory"),
        ("gitdir: " + "x" * 5000 + "\n", "its .git file names no git directory"),
        (f"gitdir: {tmp_path / 'nowhere'}\n", "cannot be listed: git ls-files: "),
    ):
        (sub / ".git").write_text(text)
        _, _, lines = _scan(guard, git_repo)
        (note,) = _notes(lines)
        assert note.startswith(f"hygiene: --all-files: 1 submodule not scanned: sub ({why}")
        assert len(note) < 400


def test_a_submodules_config_runs_no_program(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    sub = _with_submodule(git_repo, tmp_path)
    marker = tmp_path / "ran"
    script = tmp_path / "hook.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    git(sub, "config", "core.fsmonitor", str(script))
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths, _notes(lines)) == (0, [], [])
    assert not marker.exists()


def test_a_submodule_name_cannot_forge_lines_of_the_report(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    inner = _repo(tmp_path / "inner", {"a.cfg": "clean\n"})
    sha = git(inner, "rev-parse", "HEAD").strip()
    name = "x\nhygiene scan: 0 findings in 0 files\x1b[2K"
    git(git_repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{name}")
    _, _, lines = _scan(guard, git_repo)
    (note,) = _notes(lines)
    assert note.startswith("hygiene: --all-files: 1 submodule not scanned: x")
    assert note.endswith("(not checked out)")
    assert "\x1b" not in note
    assert [line for line in lines if line.startswith("hygiene scan: ")] == [lines[-1]]
