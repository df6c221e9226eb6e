"""History beyond added lines: commit messages, gzip blobs, exact paths (real git repos)."""

from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, git, run_hygiene


def _findings(stdout: bytes) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(stdout)["findings"]
    return found


def _commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_history_scans_commit_messages(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (git_repo / "a.txt").write_text("clean\n")
    leak = _commit(git_repo, f"Fix the deploy\n\nused token {pat} to test\n")
    (git_repo / "a.txt").write_text("clean again\n")
    _commit(git_repo, "tidy")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    found = [(f["commit"], f["path"], f["line"], f["column"]) for f in _findings(proc.stdout)]
    assert found == [(leak, "", 3, 12)]
    text = run_hygiene(guard, "scan", "--history", cwd=git_repo).stdout.decode()
    assert text.startswith(f"{leak[:12]}::3:12: aic-pat ")
    sarif = run_hygiene(guard, "scan", "--history", "--format", "sarif", cwd=git_repo)
    assert sarif.returncode == 1
    assert len(json.loads(sarif.stdout)["runs"][0]["results"]) == 1


def test_history_since_limits_the_messages_too(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "a.txt").write_text("one\n")
    _commit(git_repo, f"old {guard.pat()}")
    git(git_repo, "branch", "base")
    (git_repo / "a.txt").write_text("two\n")
    _commit(git_repo, "clean")
    proc = run_hygiene(guard, "scan", "--history", "--since", "base", cwd=git_repo)
    assert proc.returncode == 0, proc.stdout


def test_history_reads_gz_blobs_decompressed(git_repo: Path, guard: SecretGuard) -> None:
    pat, later = guard.pat(), guard.pat()
    (git_repo / "logs").mkdir()
    (git_repo / "logs" / "app 1.log.gz").write_bytes(gzip.compress(f"x\ny {pat}\n".encode()))
    first = _commit(git_repo, "add logs")
    (git_repo / "logs" / "app 1.log.gz").write_bytes(gzip.compress(f"{later}\n".encode()))
    second = _commit(git_repo, "rotate")
    (git_repo / "logs" / "app 1.log.gz").unlink()
    _commit(git_repo, "remove logs")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    found = {(f["commit"], f["path"], f["line"], f["column"]) for f in _findings(proc.stdout)}
    assert found == {(first, "logs/app 1.log.gz", 2, 3), (second, "logs/app 1.log.gz", 1, 1)}
    excluded = run_hygiene(guard, "scan", "--history", "--exclude", "logs", cwd=git_repo)
    assert excluded.returncode == 0


def test_a_corrupt_gz_blob_is_one_error_line(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "bad.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (git_repo / "ok.gz").write_bytes(gzip.compress(f"{guard.pat()}\n".encode()))
    _commit(git_repo, "blobs")
    proc = run_hygiene(guard, "scan", "--history", cwd=git_repo)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.decode().splitlines() if "error" in line]
    assert len(errors) == 1
    assert "bad.gz" in errors[0]


@pytest.mark.parametrize(
    "name",
    ["with space.txt", "tab\there.txt", 'quo"te.txt', "café.txt", "back\\slash.txt"],
)
def test_history_paths_are_exact(git_repo: Path, guard: SecretGuard, name: str) -> None:
    (git_repo / name).write_text(f"k = {guard.pat()}\n")
    _commit(git_repo, "add")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    assert [f["path"] for f in _findings(proc.stdout)] == [name]


def test_history_keeps_non_utf8_path_bytes(git_repo: Path, guard: SecretGuard) -> None:
    raw = b"data-\xff\xfe.txt"
    with open(os.path.join(os.fsencode(git_repo), raw), "w") as out:
        out.write(f"k = {guard.pat()}\n")
    _commit(git_repo, "add")
    history = run_hygiene(guard, "scan", "--history", cwd=git_repo).stdout
    files = run_hygiene(guard, "scan", ".", cwd=git_repo).stdout
    # Shown as a scan of the files shows it: quoted, with C escapes (text reports never print
    # a name's raw bytes, so no name can forge a line).
    shown = b'"data-\\xff\\xfe.txt"'
    assert files.split(b":")[0] == shown
    assert history.split(b":")[1] == shown


def test_history_finds_a_pat_carried_in_base64(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    encoded = base64.b64encode(f"ci-bot:{pat}".encode()).decode()
    (git_repo / "secret.yaml").write_text(f"data:\n  auth: {encoded}\n")
    _commit(git_repo, "add a secret")
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo)
    found = _findings(proc.stdout)
    assert [(f["path"], f["fingerprint"]) for f in found] == [("secret.yaml", fingerprint(pat))]
