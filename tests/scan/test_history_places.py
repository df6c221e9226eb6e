"""Blob-level history: a leak planted in each place history keeps content, found with its exact
fingerprint, commit and path (real git repositories, the real CLI).

Each place the old ``git log -p`` pass never read (merges, stash, tags, notes, archives and
compressed blobs not named ``.gz``, UTF-16) and the ones it did, each in a repository of its
own; every output is checked for the secrets by the ``guard`` at teardown.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, git, run_hygiene


def _commit(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return _rev(repo, "HEAD")


def _rev(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", rev).strip()


def scan(guard: SecretGuard, repo: Path, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    """Exit status, json findings and stderr of ``hygiene scan --history ARGS``."""
    proc = run_hygiene(guard, "scan", "--history", "--format", "json", *args, cwd=repo)
    found: list[dict[str, Any]] = json.loads(proc.stdout)["findings"] if proc.stdout else []
    return proc.returncode, found, proc.stderr.decode()


def places(found: list[dict[str, Any]]) -> set[tuple[str, str, str | None]]:
    return {(f["fingerprint"], f["path"], f["commit"]) for f in found}


def _base(repo: Path) -> str:
    (repo / "README").write_text("a project\n")
    return _commit(repo, "start")


def _branch(repo: Path, name: str, files: dict[str, str], start: str = "main") -> str:
    git(repo, "checkout", "-q", "-b", name, start)
    for path, text in files.items():
        (repo / path).write_text(text)
    commit = _commit(repo, f"on {name}")
    git(repo, "checkout", "-q", "main")
    return commit


# Merges: what a merge commit brings by itself is in neither parent.


def test_an_evil_merge_is_attributed_to_the_merge(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    _base(git_repo)
    _branch(git_repo, "side", {"side.txt": "side\n"})
    (git_repo / "main.txt").write_text("main\n")
    _commit(git_repo, "main work")
    git(git_repo, "merge", "--no-ff", "--no-commit", "-q", "side")
    (git_repo / "main.txt").write_text(f"main\nkey = {pat}\n")  # slipped into the merge
    merge = _commit(git_repo, "Merge side")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "main.txt", merge)}
    [f] = found
    assert (f["line"], f["column"], f["present_at_head"]) == (2, 7, True)


def test_a_conflict_resolution_is_attributed_to_the_merge(
    git_repo: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    (git_repo / "cfg").write_text("token = none\n")
    _commit(git_repo, "start")
    _branch(git_repo, "side", {"cfg": "token = side\n"})
    (git_repo / "cfg").write_text("token = main\n")
    _commit(git_repo, "main")
    merged = git_merge_conflicting(git_repo, "side")
    assert not merged
    (git_repo / "cfg").write_text(f"token = {pat}\n")
    merge = _commit(git_repo, "Merge side, conflict resolved")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "cfg", merge)}


def git_merge_conflicting(repo: Path, branch: str) -> bool:
    """Merge ``branch``; False when it stopped on a conflict."""
    import subprocess

    proc = subprocess.run(
        ["git", "merge", "-q", branch], cwd=repo, capture_output=True, check=False, timeout=60
    )
    return proc.returncode == 0


def test_an_octopus_merge_is_attributed_to_the_merge(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    _base(git_repo)
    for name in ("b1", "b2", "b3"):
        _branch(git_repo, name, {f"{name}.txt": f"{name}\n"})
    git(git_repo, "merge", "--no-ff", "--no-commit", "-q", "b1", "b2", "b3")
    (git_repo / "b2.txt").write_text(f"b2\n{pat}\n")
    octopus = _commit(git_repo, "Octopus")
    assert len(git(git_repo, "rev-list", "--parents", "-n1", "HEAD").split()) == 5  # 4 parents
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "b2.txt", octopus)}


def test_a_merge_that_only_takes_a_side_leaves_it_to_the_side(
    git_repo: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    _base(git_repo)
    side = _branch(git_repo, "side", {"s.txt": f"{pat}\n"})
    (git_repo / "m.txt").write_text("m\n")
    _commit(git_repo, "main")
    git(git_repo, "merge", "--no-ff", "-q", "-m", "Merge", "side")
    _status, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "s.txt", side)}


# The stash: its work tree, index and untracked files are commits of refs/stash.


def test_the_stash_work_tree_index_and_untracked_files(git_repo: Path, guard: SecretGuard) -> None:
    in_tree, in_index, untracked = guard.pat(), guard.pat(), guard.pat()
    (git_repo / "w.txt").write_text("w\n")
    (git_repo / "i.txt").write_text("i\n")
    _commit(git_repo, "start")
    (git_repo / "i.txt").write_text(f"i\n{in_index}\n")
    git(git_repo, "add", "i.txt")
    (git_repo / "w.txt").write_text(f"w\n{in_tree}\n")  # not staged
    (git_repo / "new.txt").write_text(f"{untracked}\n")
    git(git_repo, "stash", "push", "-q", "--include-untracked")
    stash, index, extra = (_rev(git_repo, f"stash@{{0}}{s}") for s in ("", "^2", "^3"))
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {
        (fingerprint(in_tree), "w.txt", stash),
        (fingerprint(in_index), "i.txt", index),
        (fingerprint(untracked), "new.txt", extra),
    }
    assert not any(f["present_at_head"] for f in found)


# Messages: commits, annotated tags, notes.


def test_an_annotated_tag_message(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    _base(git_repo)
    git(git_repo, "tag", "-a", "v1", "-m", f"Release 1\n\ndeployed with {pat}\n")
    tag = _rev(git_repo, "refs/tags/v1")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "", tag)}
    [f] = found
    assert (f["line"], f["column"], f["author"]) == (3, 15, "Test <test@example.invalid>")


def test_a_commit_message(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (git_repo / "a").write_text("a\n")
    leak = _commit(git_repo, f"Fix\n\nwith {pat}\n")
    _status, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "", leak)}
    assert (found[0]["line"], found[0]["column"]) == (3, 6)


def test_a_note(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    annotated = _base(git_repo)
    git(git_repo, "notes", "add", "-m", f"ran the deploy with {pat}")
    notes = _rev(git_repo, "refs/notes/commits")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), annotated, notes)}


# Inside archives and compressed blobs, whatever their names, added then deleted.


def _zip(name: str, text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, text)
    return buf.getvalue()


def _tgz(name: str, text: str) -> bytes:
    buf = io.BytesIO()
    data = text.encode()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


PACKED: dict[str, tuple[str, Callable[[str], bytes], str]] = {
    # file name, how its bytes are made from the text, the path a finding names
    "zip": ("bundle.zip", lambda t: _zip("conf/app.yml", t), "bundle.zip!conf/app.yml"),
    "jar": ("lib/app.jar", lambda t: _zip("app.properties", t), "lib/app.jar!app.properties"),
    "whl": ("dist/x.whl", lambda t: _zip("x/cfg.py", t), "dist/x.whl!x/cfg.py"),
    "tgz": ("backup.tgz", lambda t: _tgz("etc/env", t), "backup.tgz!etc/env"),
    "bz2": ("dump.sql.bz2", lambda t: bz2.compress(t.encode()), "dump.sql.bz2"),
    "gzip named .bin": ("blob.bin", lambda t: gzip.compress(t.encode()), "blob.bin"),
    "zip in tgz": (
        "deep.tgz",
        lambda t: _tgz_bytes("inner.zip", _zip("k.txt", t)),
        "deep.tgz!inner.zip!k.txt",
    ),
}


def _tgz_bytes(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_a_packed_blob_added_then_deleted(git_repo: Path, guard: SecretGuard, kind: str) -> None:
    pat = guard.pat()
    name, make, shown = PACKED[kind]
    _base(git_repo)
    (git_repo / name).parent.mkdir(parents=True, exist_ok=True)
    (git_repo / name).write_bytes(make(f"first line\ntoken: {pat}\n"))
    added = _commit(git_repo, "add")
    (git_repo / name).unlink()
    _commit(git_repo, "remove")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), shown, added)}
    [f] = found
    assert (f["line"], f["column"], f["present_at_head"]) == (2, 8, False)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_with_and_without_bom(git_repo: Path, guard: SecretGuard, codec: str) -> None:
    pat = guard.pat()
    text = f"line one\r\nsecret = {pat}\r\nend\r\n" * 2
    (git_repo / "notes.txt").write_bytes(text.encode(codec))
    added = _commit(git_repo, "add")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "notes.txt", added)}


def test_a_binary_blob(git_repo: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    data = bytes(range(256)) * 40 + f"\0\0{pat}\0".encode() + bytes(range(256)) * 40
    (git_repo / "app.bin").write_bytes(data)
    added = _commit(git_repo, "add")
    _, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "app.bin", added)}


def test_a_renamed_file_is_found_at_both_paths(git_repo: Path, guard: SecretGuard) -> None:
    """Both paths need cleaning from history: each is a finding, at the commit that put the
    secret there (the blob, unchanged, is read once)."""
    pat = guard.pat()
    (git_repo / "old.cfg").write_text(f"k = {pat}\n")
    added = _commit(git_repo, "add")
    git(git_repo, "mv", "old.cfg", "new.cfg")
    renamed = _commit(git_repo, "rename")
    _status, found, err = scan(guard, git_repo)
    assert places(found) == {
        (fingerprint(pat), "old.cfg", added),
        (fingerprint(pat), "new.cfg", renamed),
    }
    assert all(f["present_at_head"] for f in found)  # the secret is still in HEAD's tree
    assert "1 file" in err  # one blob read


def test_one_finding_per_fingerprint_and_path(git_repo: Path, guard: SecretGuard) -> None:
    """A file edited around a token holds it in many blobs: one finding, the first."""
    pat = guard.pat()
    (git_repo / "cfg").write_text(f"k = {pat}\n")
    first = _commit(git_repo, "add")
    for n in range(3):
        (git_repo / "cfg").write_text(f"# edit {n}\nk = {pat}\n")
        _commit(git_repo, f"edit {n}")
    (git_repo / "copy").write_text(f"k = {pat}\n")  # the first blob again, at a new path
    copied = _commit(git_repo, "copy")
    _, found, _ = scan(guard, git_repo)
    assert places(found) == {(fingerprint(pat), "cfg", first), (fingerprint(pat), "copy", copied)}


def test_present_at_head(git_repo: Path, guard: SecretGuard) -> None:
    gone, kept, moved = guard.pat(), guard.pat(), guard.pat()
    (git_repo / "a").write_text(f"{gone}\n")
    (git_repo / "b").write_text(f"{kept}\n")
    (git_repo / "c").write_text(f"{moved}\n")
    _commit(git_repo, "add")
    (git_repo / "a").write_text("clean\n")
    (git_repo / "c").write_text("clean\n")
    (git_repo / "d").write_text(f"x\n{moved}\n")  # another blob, same secret
    _commit(git_repo, "tidy")
    _, found, _ = scan(guard, git_repo)
    at_head = {(f["path"], f["present_at_head"]) for f in found}
    assert at_head == {("a", False), ("b", True), ("c", True), ("d", True)}
    assert {f["fingerprint"] for f in found if f["path"] == "c"} == {fingerprint(moved)}


def test_author_and_date_are_the_introducing_commit_s(git_repo: Path, guard: SecretGuard) -> None:
    import os
    import subprocess

    pat = guard.pat()
    _base(git_repo)
    (git_repo / "k").write_text(f"{pat}\n")
    git(git_repo, "add", "k")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ann Leak",
        "GIT_AUTHOR_EMAIL": "ann@example.invalid",
        "GIT_AUTHOR_DATE": "2021-03-04T05:06:07+02:00",
    }
    subprocess.run(["git", "commit", "-qm", "leak"], cwd=git_repo, env=env, check=True)
    leak = _rev(git_repo, "HEAD")
    (git_repo / "k").write_text("clean\n")
    _commit(git_repo, "clean")
    _, found, _ = scan(guard, git_repo)
    [f] = found
    assert (f["commit"], f["author"], f["date"]) == (
        leak,
        "Ann Leak <ann@example.invalid>",
        "2021-03-04T05:06:07+02:00",
    )
    sarif = run_hygiene(guard, "scan", "--history", "--format", "sarif", cwd=git_repo)
    props = json.loads(sarif.stdout)["runs"][0]["results"][0]["properties"]
    assert (props["commit"], props["author"], props["present_at_head"]) == (
        leak,
        "Ann Leak <ann@example.invalid>",
        False,
    )
    text = run_hygiene(guard, "scan", "--history", cwd=git_repo).stdout.decode()
    assert text.startswith(f"{leak[:12]}:k:1:1: aic-pat pat_AIC_")


def test_a_token_in_an_author_name_is_never_shown(git_repo: Path, guard: SecretGuard) -> None:
    import os
    import subprocess

    pat, named = guard.pat(), guard.pat()
    (git_repo / "k").write_text(f"{pat}\n")
    git(git_repo, "add", "k")
    env = {**os.environ, "GIT_AUTHOR_NAME": f"bot {named}"}
    subprocess.run(["git", "commit", "-qm", "leak"], cwd=git_repo, env=env, check=True)
    for fmt in ("json", "sarif", "text"):
        proc = run_hygiene(guard, "scan", "--history", "--format", fmt, cwd=git_repo)
        assert proc.returncode == 1, proc.stderr
        if fmt == "json":
            [f] = json.loads(proc.stdout)["findings"]
            assert f["author"].startswith("bot pat_AIC_…")


def test_a_path_holding_a_newline_and_an_id_forges_nothing(
    git_repo: Path, guard: SecretGuard
) -> None:
    """A name is the repository's to choose: one that, split at its newline, would read as
    an object id (missing, or another blob) changes nothing."""
    pat = guard.pat()
    (git_repo / "k").write_text(f"{pat}\n")
    _commit(git_repo, "k")
    blob = git(git_repo, "rev-parse", "HEAD:k").strip()
    (git_repo / f"a\n{'1' * 40}").write_text("x\n")
    (git_repo / f"b\n{blob}").write_text("y\n")
    added = _commit(git_repo, "names")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), "k", _rev(git_repo, "HEAD~1"))}
    assert "error" not in err
    assert added


def test_a_tag_naming_a_blob_is_reported_under_the_blob_s_id(
    git_repo: Path, guard: SecretGuard
) -> None:
    """No commit ever held it, so no commit introduced it: still reported (never hidden),
    its path the blob's id, with no commit."""
    pat = guard.pat()
    _base(git_repo)
    blob = git(git_repo, "hash-object", "-w", "--stdin", input=f"k = {pat}\n".encode()).strip()
    git(git_repo, "tag", "loose", blob)
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {(fingerprint(pat), blob, None)}
    text = run_hygiene(guard, "scan", "--history", cwd=git_repo).stdout.decode()
    assert text.startswith(f"{blob}:1:5: aic-pat pat_AIC_")


def test_a_blob_too_big_to_read_whole_is_streamed(git_repo: Path, guard: SecretGuard) -> None:
    """Past WHOLE_SIZE a blob is streamed through the decoders: its findings keep their
    lines, and cat-file stays in step for the blobs after it."""
    from hygiene.scan.sources.blobs import WHOLE_SIZE

    pat, after = guard.pat(), guard.pat()
    lines = WHOLE_SIZE // 8 + 10
    (git_repo / "big.log").write_bytes(b"0123456\n" * lines + f"t={pat}\n".encode())
    (git_repo / "z.txt").write_text(f"{after}\n")
    added = _commit(git_repo, "big")
    status, found, err = scan(guard, git_repo)
    assert status == 1, err
    assert places(found) == {
        (fingerprint(pat), "big.log", added),
        (fingerprint(after), "z.txt", added),
    }
    assert {(f["path"], f["line"], f["column"]) for f in found} == {
        ("big.log", lines + 1, 3),
        ("z.txt", 1, 1),
    }
