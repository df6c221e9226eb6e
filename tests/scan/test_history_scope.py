"""What ``--history`` covers: ``--ref``, ``--since`` (and ``A..B``), ``--reflog``; bad revisions
are one line and exit 2; attribution is the same whatever order things were made in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, git, run_hygiene
from tests.scan.test_history_places import _commit, _rev, places, scan


def _leak(repo: Path, name: str, pat: str) -> str:
    (repo / name).write_text(f"k = {pat}\n")
    return _commit(repo, f"add {name}")


@pytest.fixture
def two_branches(git_repo: Path, guard: SecretGuard) -> dict[str, tuple[str, str]]:
    """main: old leak (tagged ``base``), then a new one; side (from base): its own leak.
    Each name -> (its PAT's fingerprint, the commit that added it)."""
    made = {}
    old = guard.pat()
    made["old"] = (fingerprint(old), _leak(git_repo, "old.txt", old))
    git(git_repo, "tag", "base")
    new = guard.pat()
    made["new"] = (fingerprint(new), _leak(git_repo, "new.txt", new))
    git(git_repo, "checkout", "-q", "-b", "side", "base")
    side = guard.pat()
    made["side"] = (fingerprint(side), _leak(git_repo, "side.txt", side))
    git(git_repo, "checkout", "-q", "main")
    return made


def _names(found: list[dict[str, object]], made: dict[str, tuple[str, str]]) -> set[str]:
    by_fp = {fp: name for name, (fp, _) in made.items()}
    return {by_fp[str(f["fingerprint"])] for f in found}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), {"old", "new", "side"}),
        (("--ref", "main"), {"old", "new"}),
        (("--ref", "side"), {"old", "side"}),
        (("--ref", "main", "--ref", "side"), {"old", "new", "side"}),
        (("--since", "base"), {"new", "side"}),
        (("--ref", "main", "--since", "base"), {"new"}),
        (("--since", "base..main"), {"new"}),  # the pre-push hook's form
        (("--since", "base..side"), {"side"}),
        (("--since", "main", "--since", "side"), set()),
        (("--ref", "side", "--since", "main"), {"side"}),
        (("--since", "base.."), {"new"}),  # A.. is A..HEAD
    ],
)
def test_ref_and_since_select_what_is_scanned(
    git_repo: Path,
    guard: SecretGuard,
    two_branches: dict[str, tuple[str, str]],
    args: tuple[str, ...],
    expected: set[str],
) -> None:
    status, found, err = scan(guard, git_repo, *args)
    assert status == (1 if expected else 0), err
    assert _names(found, two_branches) == expected
    for f in found:  # each still at the commit that added it
        name = _names([f], two_branches).pop()
        assert f["commit"] == two_branches[name][1]


def test_since_leaves_out_messages_and_tags_it_reaches(git_repo: Path, guard: SecretGuard) -> None:
    (git_repo / "a").write_text("a\n")
    _commit(git_repo, f"old {guard.pat()}")
    git(git_repo, "tag", "-a", "base", "-m", f"tagged {guard.pat()}")
    (git_repo / "a").write_text("b\n")
    _commit(git_repo, "clean")
    status, found, err = scan(guard, git_repo, "--since", "base")
    assert (status, found) == (0, []), err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--since", "no-such-rev"), "--since: not a revision of this repository: 'no-such-rev'"),
        (("--ref", "no-such-rev"), "--ref: not a revision of this repository: 'no-such-rev'"),
        (("--since", "--all"), "--since: not a revision: '--all'"),
        (("--ref", "-n1"), "--ref: not a revision: '-n1'"),
        (("--since", "main...side"), "--since: a range A...B is not supported"),
        (("--since", "nope..main"), "--since: not a revision of this repository: 'nope'"),
        (("--ref", "HEAD:old.txt"), "--ref: not a revision of this repository"),  # a blob
        (("--ref", ""), "--ref: not a revision: ''"),
    ],
)
def test_a_bad_revision_is_one_line_and_exit_2(
    git_repo: Path,
    guard: SecretGuard,
    two_branches: dict[str, tuple[str, str]],
    args: tuple[str, ...],
    words: str,
) -> None:
    proc = run_hygiene(guard, "scan", "--history", *args, cwd=git_repo)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith(f"hygiene: error: {words}"), line
    assert proc.stdout == b""


@pytest.mark.parametrize("flag", [("--ref", "main"), ("--reflog",), ("--since", "main")])
def test_scope_flags_need_history(git_repo: Path, guard: SecretGuard, flag: tuple[str]) -> None:
    proc = run_hygiene(guard, "scan", *flag, cwd=git_repo)
    assert proc.returncode == 2
    [line] = proc.stderr.decode().splitlines()
    assert line == f"hygiene: error: {flag[0]} needs --history"


def test_reflog_adds_commits_no_ref_reaches(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (git_repo / "a").write_text("a\n")
    _commit(git_repo, "start")
    lost = _leak(git_repo, "k.txt", pat)
    git(git_repo, "reset", "-q", "--hard", "HEAD~1")  # only the reflog remembers it
    status, found, _ = scan(guard, git_repo)
    assert (status, found) == (0, [])
    status, found, err = scan(guard, git_repo, "--reflog")
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "k.txt", lost)}


def _commit_at(repo: Path, message: str, date: str) -> str:
    git(repo, "add", "-A")
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, env=env, check=True)
    return _rev(repo, "HEAD")


def test_the_earliest_of_unrelated_introductions_wins(git_repo: Path, guard: SecretGuard) -> None:
    """The same blob added on two branches: the earlier committer date, whichever was made
    first; the same date: the smaller commit id. Every run says the same."""
    pat = guard.pat()
    (git_repo / "a").write_text("a\n")
    _commit_at(git_repo, "start", "2020-01-01T00:00:00Z")
    git(git_repo, "checkout", "-q", "-b", "late")
    (git_repo / "k").write_text(f"{pat}\n")
    _commit_at(git_repo, "late", "2020-03-01T00:00:00Z")
    git(git_repo, "checkout", "-q", "-b", "early", "main")
    (git_repo / "k").write_text(f"{pat}\n")
    early = _commit_at(git_repo, "early", "2020-02-01T00:00:00Z")
    runs = [scan(guard, git_repo)[1] for _ in range(2)]
    assert runs[0] == runs[1]
    assert places(runs[0]) == {(fingerprint(pat), "k", early)}
    # Same date on both: the smaller id, whichever branch.
    git(git_repo, "checkout", "-q", "-b", "twin", "main")
    (git_repo / "k").write_text(f"{pat}\n")
    twin = _commit_at(git_repo, "twin", "2020-02-01T00:00:00Z")
    _, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "k", min(early, twin))}


def test_an_ancestor_comes_first_whatever_its_date(git_repo: Path, guard: SecretGuard) -> None:
    """A clock set wrong: the child says it is older. The parent still introduced the blob."""
    pat = guard.pat()
    (git_repo / "k").write_text(f"{pat}\n")
    parent = _commit_at(git_repo, "add", "2022-01-01T00:00:00Z")
    (git_repo / "k").write_text("gone\n")
    _commit_at(git_repo, "remove", "2022-01-02T00:00:00Z")
    (git_repo / "k").write_text(f"{pat}\n")
    _commit_at(git_repo, "revert", "2001-01-01T00:00:00Z")  # the same blob again, "older"
    _, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "k", parent)}


def test_exclude_attributes_to_a_path_not_excluded(git_repo: Path, guard: SecretGuard) -> None:
    pat, only_vendored = guard.pat(), guard.pat()
    (git_repo / "vendor").mkdir()
    (git_repo / "vendor" / "k").write_text(f"{pat}\n")
    (git_repo / "vendor" / "v").write_text(f"{only_vendored}\n")
    _commit(git_repo, "vendored")
    (git_repo / "k").write_text(f"{pat}\n")  # the same blob, outside vendor/
    mine = _commit(git_repo, "mine")
    _, found, _ = scan(guard, git_repo, "--exclude", "vendor")
    assert places(found) == {(fingerprint(pat), "k", mine)}


@pytest.mark.parametrize("edits", [3, 20])
def test_many_edits_around_a_token_stay_with_the_commit_that_added_it(
    git_repo: Path, guard: SecretGuard, edits: int
) -> None:
    """The commit that added the token says it is the newest of all (a wrong clock); every
    later edit makes another blob holding it at the same path. One finding, at the commit
    that added it (few candidates are asked about one by one, many with one walk)."""
    pat = guard.pat()
    (git_repo / "fixture.py").write_text(f"TOKEN = '{pat}'\n")
    added = _commit_at(git_repo, "add", "2030-01-01T00:00:00Z")
    for n in range(edits):
        (git_repo / "fixture.py").write_text(f"# edit {n}\nTOKEN = '{pat}'\n")
        _commit_at(git_repo, f"edit {n}", f"2020-01-{n + 1:02d}T00:00:00Z")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "fixture.py", added)}
