"""Git sources in real repositories: the index, tracked files, history."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.helpers import SecretGuard, git, run_hygiene


def _findings(proc_stdout: bytes) -> list[dict[str, object]]:
    findings: list[dict[str, object]] = json.loads(proc_stdout)["findings"]
    return findings


def test_staged_scans_the_index_not_the_work_tree(git_repo: Path, guard: SecretGuard) -> None:
    staged, unstaged = guard.pat(), guard.pat()
    (git_repo / "a.py").write_text(f"x = 1\nT = '{staged}'\n")
    git(git_repo, "add", "a.py")
    (git_repo / "a.py").write_text("x = 1\n")  # the work tree is clean, the index is not
    (git_repo / "b.py").write_text(f"U = '{unstaged}'\n")  # never staged
    proc = run_hygiene(guard, "scan", "--staged", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert [(f["path"], f["line"], f["column"]) for f in _findings(proc.stdout)] == [("a.py", 2, 6)]


def test_staged_ignores_deletions_and_clean_index(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "old.txt").write_text(guard.pat() + "\n")
    git(git_repo, "add", "old.txt")
    git(git_repo, "commit", "-qm", "old")
    git(git_repo, "rm", "-q", "old.txt")
    (git_repo / "new.txt").write_text("clean\n")
    git(git_repo, "add", "new.txt")
    proc = run_hygiene(guard, "scan", "--staged", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert "1 file" in proc.stderr.decode()


def test_staged_outside_a_repo_is_exit_2(tmp_path: Path, guard: SecretGuard) -> None:
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    proc = run_hygiene(guard, "scan", "--staged", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert len(proc.stderr.decode().splitlines()) == 1


def test_all_files_lists_tracked_files_only(git_repo: Path, guard: SecretGuard) -> None:
    tracked, untracked = guard.pat(), guard.pat()
    (git_repo / "t.cfg").write_text(f"k={tracked}\n")
    (git_repo / "u.cfg").write_text(f"k={untracked}\n")
    git(git_repo, "add", "t.cfg")
    proc = run_hygiene(guard, "scan", "--all-files", "--format", "json", cwd=git_repo)
    assert [f["path"] for f in _findings(proc.stdout)] == ["t.cfg"]


def test_history_finds_added_then_deleted_tokens(git_repo: Path, guard: SecretGuard) -> None:
    pat, session = guard.pat(), guard.session_token()
    (git_repo / "cfg.py").write_text("A = 1\nB = 2\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "one")
    (git_repo / "cfg.py").write_text(f"A = 1\nB = 2\nTOKEN = '{pat}'\n")
    git(git_repo, "commit", "-qam", "leak")
    leak = git(git_repo, "rev-parse", "HEAD").strip()
    git(git_repo, "checkout", "-qb", "side")
    (git_repo / "log.txt").write_text(f"headers: {{'Authorization': 'Bearer {session}'}}\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "side")
    side = git(git_repo, "rev-parse", "HEAD").strip()
    git(git_repo, "checkout", "-q", "main")
    (git_repo / "cfg.py").write_text("A = 1\nB = 2\n")
    git(git_repo, "commit", "-qam", "remove")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    found = {
        (f["commit"], f["path"], f["line"], f["column"], f["type"]) for f in _findings(proc.stdout)
    }
    assert found == {(leak, "cfg.py", 3, 10, "aic-pat"), (side, "log.txt", 1, 36, "bearer-token")}
    text = run_hygiene(guard, "scan", "--history", cwd=git_repo).stdout.decode().splitlines()
    assert any(line.startswith(leak[:12] + ":cfg.py:3:10: aic-pat ") for line in text), text


def test_history_since_scans_only_the_range(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "a.txt").write_text(guard.pat() + "\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "old leak")
    git(git_repo, "branch", "base")
    (git_repo / "b.txt").write_text("clean\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "clean")
    assert run_hygiene(guard, "scan", "--history", "--since", "base", cwd=git_repo).returncode == 0
    (git_repo / "c.txt").write_text(guard.pat() + "\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "new leak")
    proc = run_hygiene(guard, "scan", "--history", "--since", "base", cwd=git_repo)
    assert proc.returncode == 1
    assert [line.split(":")[1] for line in proc.stdout.decode().splitlines()] == ["c.txt"]


def test_history_bad_revision_is_exit_2(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "a.txt").write_text("x\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "one")
    proc = run_hygiene(guard, "scan", "--history", "--since", "no-such-rev", cwd=git_repo)
    assert proc.returncode == 2
    assert len(proc.stderr.decode().splitlines()) == 1


def test_staged_gz_is_read_decompressed_and_a_corrupt_one_reported(
    git_repo: Path, guard: SecretGuard
) -> None:
    pat, after = guard.pat(), guard.pat()
    (git_repo / "app.log.gz").write_bytes(gzip.compress(f"start\nurl?t={pat}\n".encode()))
    (git_repo / "broken.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"not deflate at all" * 100)
    (git_repo / "z.txt").write_text(after + "\n")  # after both: cat-file must stay in step
    git(git_repo, "add", ".")
    proc = run_hygiene(guard, "scan", "--staged", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1
    found = [(f["path"], f["line"], f["column"]) for f in _findings(proc.stdout)]
    assert found == [("app.log.gz", 2, 7), ("z.txt", 1, 1)]
    assert "broken.gz" in proc.stderr.decode()
