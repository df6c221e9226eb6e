"""``--all-files`` in real repositories with real submodules: checked-out ones are scanned
(recursively, their files as ``SUB/path``), the others named on one stderr line, and nothing
outside the repository is read, whatever the work tree or ``.gitmodules`` say."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import SecretGuard, git, run_hygiene

ADD = ("-c", "protocol.file.allow=always", "submodule", "add", "-q")


def _repo(path: Path, files: dict[str, str]) -> Path:
    """A repository at ``path`` with one commit of ``files``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "files")
    return path


def _add_submodule(repo: Path, source: Path, where: str) -> None:
    git(repo, *ADD, str(source), where)
    git(repo, "commit", "-qm", f"add {where}")


def _scan(guard: SecretGuard, repo: Path, *extra: str) -> tuple[int, list[str], list[str]]:
    """(exit status, findings' paths, stderr lines) of ``hygiene scan --all-files``."""
    proc = run_hygiene(guard, "scan", "--all-files", "--format", "json", *extra, cwd=repo)
    assert proc.returncode in (0, 1), proc.stderr
    paths = [f["path"] for f in json.loads(proc.stdout)["findings"]]
    lines = proc.stderr.decode().splitlines()
    assert lines[-1].startswith("hygiene scan: "), lines  # the summary stays last
    return proc.returncode, paths, lines


def _notes(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("hygiene: --all-files")]


def test_checked_out_submodules_are_scanned_recursively(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    top, mid, deep = guard.pat(), guard.pat(), guard.pat()
    leaf = _repo(tmp_path / "leaf", {"conf/deep.cfg": f"k={deep}\n"})
    middle = _repo(tmp_path / "middle", {"mid.cfg": f"k={mid}\n"})
    _add_submodule(middle, leaf, "vendor/leaf")
    (git_repo / "top.cfg").write_text(f"k={top}\n")
    git(git_repo, "add", "top.cfg")
    git(git_repo, "commit", "-qm", "top")
    _add_submodule(git_repo, middle, "libs/middle")
    git(git_repo, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init",
        "--recursive")  # fmt: skip
    status, paths, lines = _scan(guard, git_repo)
    assert status == 1
    assert paths == ["libs/middle/mid.cfg", "libs/middle/vendor/leaf/conf/deep.cfg", "top.cfg"]
    assert _notes(lines) == []


def test_a_submodule_scanned_from_a_subfolder_keeps_relative_paths(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    _add_submodule(git_repo, _repo(tmp_path / "inner", {"a.cfg": f"k={pat}\n"}), "src/inner")
    status, paths, _ = _scan(guard, git_repo / "src")
    assert (status, paths) == (1, ["inner/a.cfg"])


def test_submodules_not_checked_out_are_named_on_one_line(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    inner = _repo(tmp_path / "inner", {"a.cfg": f"k={pat}\n"})
    for name in ("one", "two"):
        _add_submodule(git_repo, inner, name)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(git_repo), str(clone)], check=True)
    status, paths, lines = _scan(guard, clone)  # cloned without --recurse-submodules
    assert (status, paths) == (0, [])
    assert _notes(lines) == [
        "hygiene: --all-files: 2 submodules not scanned: one (not checked out), "
        "two (not checked out)"
    ]
    git(git_repo, "submodule", "deinit", "-q", "--force", "two")  # uninitialised again
    status, paths, lines = _scan(guard, git_repo)
    assert (status, paths) == (1, ["one/a.cfg"])
    assert _notes(lines) == ["hygiene: --all-files: 1 submodule not scanned: two (not checked out)"]


def test_the_note_stays_one_line_however_many_are_skipped(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    inner = _repo(tmp_path / "inner", {"a.txt": "clean\n"})
    names = [f"m{i:02d}" for i in range(13)]
    for name in names:
        git(git_repo, *ADD, str(inner), name)
    git(git_repo, "commit", "-qm", "many")
    git(git_repo, "submodule", "deinit", "-q", "--force", "--all")
    _, _, lines = _scan(guard, git_repo)
    shown = ", ".join(f"{n} (not checked out)" for n in names[:10])
    assert _notes(lines) == [f"hygiene: --all-files: 13 submodules not scanned: {shown} and 3 more"]


def test_an_excluded_submodule_is_neither_scanned_nor_named(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    inner = _repo(tmp_path / "inner", {"a.cfg": f"k={pat}\n"})
    _add_submodule(git_repo, inner, "vendor")
    _add_submodule(git_repo, inner, "other")
    git(git_repo, "submodule", "deinit", "-q", "--force", "other")
    status, paths, lines = _scan(guard, git_repo, "--exclude", "vendor", "--exclude", "other")
    assert (status, paths, _notes(lines)) == (0, [], [])


def test_inside_a_git_hook_the_submodules_index_is_their_own(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    """A hook's environment names the superproject's index (GIT_INDEX_FILE) and may name its
    git directory: a submodule is still listed from its own."""
    pat = guard.pat()
    _add_submodule(git_repo, _repo(tmp_path / "inner", {"a.cfg": f"k={pat}\n"}), "sub")
    index = git_repo / ".git" / "index"
    for env in (
        {"GIT_INDEX_FILE": str(index)},
        {"GIT_INDEX_FILE": ".git/index"},
        {"GIT_INDEX_FILE": str(index), "GIT_DIR": str(git_repo / ".git"), "GIT_WORK_TREE": "."},
        {"GIT_OBJECT_DIRECTORY": str(git_repo / ".git" / "objects")},
    ):
        proc = run_hygiene(guard, "scan", "--all-files", "--format", "json", cwd=git_repo, env=env)
        paths = [f["path"] for f in json.loads(proc.stdout)["findings"]]
        assert (proc.returncode, paths) == (1, ["sub/a.cfg"]), (env, proc.stderr)
        assert "--all-files" not in proc.stderr.decode(), env
