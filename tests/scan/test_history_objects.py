"""Objects git cannot read: a missing blob (a partial clone, a pruned loose object), a damaged
loose object, a damaged pack. Each is one error line naming its id, the rest is scanned and
its findings reported; nothing is a traceback, no secret reaches any output."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, git, run_hygiene
from tests.scan.test_history_places import _commit, places, scan


def _loose(repo: Path, sha: str) -> Path:
    return repo / ".git" / "objects" / sha[:2] / sha[2:]


def _planted(repo: Path, guard: SecretGuard) -> tuple[str, str, str, str]:
    """Three files (a token before and after the damaged one): the two PATs, the commit, and
    the id of the middle file's blob."""
    before, after = guard.pat(), guard.pat()
    (repo / "a.txt").write_text(f"k = {before}\n")
    (repo / "m.txt").write_text("the middle file\n" * 50)
    (repo / "z.txt").write_text(f"k = {after}\n")
    commit = _commit(repo, "three")
    return before, after, commit, git(repo, "rev-parse", "HEAD:m.txt").strip()


def _expect_rest_found(
    guard: SecretGuard, repo: Path, before: str, after: str, commit: str, lost: str
) -> None:
    status, found, err = scan(guard, repo)
    assert status == 1, err  # findings are reported (and set the status)
    assert places(found) == {
        (fingerprint(before), "a.txt", commit),
        (fingerprint(after), "z.txt", commit),
    }
    errors = [line for line in err.splitlines() if line.startswith("hygiene: error:")]
    assert len(errors) == 1, err
    assert lost in errors[0]
    assert "Traceback" not in err


def test_a_missing_blob(git_repo: Path, guard: SecretGuard) -> None:
    before, after, commit, lost = _planted(git_repo, guard)
    _loose(git_repo, lost).unlink()
    _expect_rest_found(guard, git_repo, before, after, commit, lost)


def test_a_damaged_loose_object(git_repo: Path, guard: SecretGuard) -> None:
    before, after, commit, lost = _planted(git_repo, guard)
    path = _loose(git_repo, lost)
    path.chmod(0o644)
    path.write_bytes(b"x\x9c not zlib at all" * 3)
    _expect_rest_found(guard, git_repo, before, after, commit, lost)


@pytest.mark.parametrize("where", [10, 60, 200])
def test_a_damaged_pack(git_repo: Path, guard: SecretGuard, where: int) -> None:
    """Bytes of one blob's compressed data flipped in the pack: cat-file dies on it; the
    scan starts another for the objects after it."""
    before, after, commit, _ = _planted(git_repo, guard)
    rng = random.Random(where)
    (git_repo / "m.txt").write_bytes(bytes(rng.getrandbits(8) for _ in range(4000)))
    _commit(git_repo, "noise")
    lost = git(git_repo, "rev-parse", "HEAD:m.txt").strip()
    git(git_repo, "repack", "-adq")
    [pack] = (git_repo / ".git" / "objects" / "pack").glob("*.pack")
    listing = git(git_repo, "verify-pack", "-v", str(pack.with_suffix(".idx")))
    [entry] = [line.split() for line in listing.splitlines() if line.startswith(lost)]
    offset, stored = int(entry[4]), int(entry[3])
    data = bytearray(pack.read_bytes())
    for i in range(offset + min(where, stored - 8), offset + min(where + 32, stored - 4)):
        data[i] ^= 0xFF
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {
        (fingerprint(before), "a.txt", commit),
        (fingerprint(after), "z.txt", commit),
    }
    assert lost in err
    assert "Traceback" not in err


def test_only_unreadable_objects_is_exit_2(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "a.txt").write_text("clean\n")
    (git_repo / "b.txt").write_text("lost\n")
    _commit(git_repo, "two")
    lost = git(git_repo, "rev-parse", "HEAD:b.txt").strip()
    _loose(git_repo, lost).unlink()
    status, found, err = scan(guard, git_repo)
    assert (status, found) == (2, [])
    assert f"hygiene: error: object {lost}: missing; not scanned" in err.splitlines()


def test_a_partial_clone_s_missing_blobs(
    git_repo: Path, guard: SecretGuard, tmp_path: Path
) -> None:
    """A blobless clone: its blobs were never fetched (and are never fetched by the scan:
    no transport is allowed). Each is named; the messages are still read."""
    pat = guard.pat()
    (git_repo / "k.txt").write_text(f"{guard.pat()}\n")
    _commit(git_repo, f"with {pat} in the message")
    git(git_repo, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(
        tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none",
        f"file://{git_repo}", str(clone),
    )  # fmt: skip
    lost = git(git_repo, "rev-parse", "HEAD:k.txt").strip()
    status, found, err = scan(guard, clone)
    assert status == 1, err
    assert [(f["fingerprint"], f["path"]) for f in found] == [(fingerprint(pat), "")]
    assert lost in err


def test_grafts_that_hide_commits_are_an_error_not_a_silence(
    git_repo: Path, guard: SecretGuard
) -> None:
    """``info/grafts`` can make a commit parentless: git then walks a history without the
    commits before it. That is said (exit 2 when nothing else is found); with the grafts
    file turned off by the user's environment, the hidden leak is found."""
    pat = guard.pat()
    (git_repo / "k.txt").write_text(f"{pat}\n")
    leak = _commit(git_repo, "leak")
    (git_repo / "k.txt").write_text("clean\n")
    head = _commit(git_repo, "clean")
    (git_repo / ".git" / "info").mkdir(exist_ok=True)
    (git_repo / ".git" / "info" / "grafts").write_text(f"{head}\n")
    status, found, err = scan(guard, git_repo)
    assert (status, found) == (2, []), err
    [line] = [ln for ln in err.splitlines() if ln.startswith("hygiene: error:")]
    assert "grafts rewrite this repository's history" in line
    proc = run_hygiene(guard, "scan", "--history", cwd=git_repo, env={"GIT_GRAFT_FILE": os.devnull})
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.decode().startswith(f"{leak[:12]}:k.txt:1:1: aic-pat ")
