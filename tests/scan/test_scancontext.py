"""One context through the sources, results returned: the request builds the context once,
workers get its picklable part, and a source hands back what it found even when its input
fails partway (the layers yield their parts as they go)."""

from __future__ import annotations

import dataclasses
import errno
import gzip
import io
import os
import pickle
import zipfile
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.progress import ScanProgress
from hygiene.scan.decoders import finder_for, scan_layers
from hygiene.scan.decoders.bounds import RATIO_FLOOR
from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.matcher.allowlines import compile_pattern
from hygiene.scan.request import ScanRequest
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.one_file import scan_stream, scan_target
from tests.helpers import SecretGuard

CHUNK = 4096


class _Failing(io.RawIOBase):
    """A stream that hands out ``data`` in pieces of at most ``piece`` bytes, then fails with
    EIO (a disk or a pipe gone bad mid-read)."""

    def __init__(self, data: bytes, piece: int = CHUNK) -> None:
        self.data, self.piece, self.at = data, piece, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if self.at >= len(self.data):
            raise OSError(errno.EIO, "Input/output error")
        size = min(self.piece, len(self.data) - self.at, n if n >= 0 else len(self.data))
        out = self.data[self.at : self.at + size]
        self.at += size
        return out


def _filler(size: int) -> bytes:
    """Lines of random hex (no secret shape; compressed, barely smaller)."""
    line = 64
    return b"".join(os.urandom(line // 2).hex().encode()[:-1] + b"\n" for _ in range(size // line))


def test_the_request_builds_the_context_once() -> None:
    allow = (compile_pattern(b"FIXTURE"),)
    progress = ScanProgress()
    request = ScanRequest(
        paths=("x",),
        excludes=("vendor",),
        keep_secrets=True,
        chunk_size=CHUNK,
        limits=DecodeLimits(max_depth=2),
        allow_lines=allow,
        markers=False,
        progress=progress,
    )
    ctx = request.context()
    assert ctx == ScanContext(
        chunk_size=CHUNK,
        limits=DecodeLimits(max_depth=2),
        allow=AllowLines(allow, markers=False),
        keep_secrets=True,
        excludes=("vendor",),
    )
    assert ctx.progress is progress
    assert ctx.finder is None  # each run picks its own, by size


def test_workers_get_a_picklable_part_without_callbacks_or_finder() -> None:
    allow = AllowLines((compile_pattern(b"FIXTURE"),), markers=False)
    ctx = ScanContext(
        chunk_size=CHUNK,
        allow=allow,
        keep_secrets=False,
        jobs=2,
        on_wait=lambda line: None,
        progress=ScanProgress(),
        finder=finder_for(None),
    )
    shared = ctx.for_workers()
    assert (shared.on_wait, shared.progress, shared.finder) == (None, None, None)
    again = pickle.loads(pickle.dumps(shared))  # noqa: S301 - what we just pickled
    # (Compiled patterns compare by identity: the allowlist is compared by its parts.)
    assert dataclasses.replace(again, allow=ctx.allow) == ctx
    assert again.allow.markers is False
    assert len(again.allow.patterns) == 1
    assert again.allow.patterns[0].search(b"x FIXTURE y")


@pytest.mark.parametrize("pieces", [1, 2, 5])
def test_a_stream_failing_midway_keeps_what_it_held(guard: SecretGuard, pieces: int) -> None:
    pats = [guard.pat() for _ in range(pieces)]
    # One secret per chunk, then chunks of filler the scanner reads on (it holds back the end
    # of what it read, which a match could run on from): the failure comes well after them.
    body = b"".join(f"t = {p}\n".encode().ljust(CHUNK, b"#")[: CHUNK - 1] + b"\n" for p in pats)
    body += _filler(4 * CHUNK)
    result = scan_stream(_Failing(body), "bad.log", ScanContext(chunk_size=CHUNK))  # type: ignore[arg-type]
    guard.capture(repr(result.findings), *result.errors)
    assert sorted(f.fingerprint for f in result.findings) == sorted(map(fingerprint, pats))
    assert result.errors == ["bad.log: Input/output error"]
    assert result.files == 0  # not read to its end
    assert result.bytes == len(body)


def test_a_stream_failing_at_once_is_one_error_line() -> None:
    result = scan_stream(_Failing(b""), "gone", ScanContext())  # type: ignore[arg-type]
    assert (result.detections, result.errors, result.files) == ([], ["gone: Input/output error"], 0)


def test_a_compressed_stream_failing_midway_keeps_what_it_held(guard: SecretGuard) -> None:
    pat = guard.pat()
    data = gzip.compress(f"t = {pat}\n".encode() + _filler(CHUNK * 8))
    # The gzip's whole first half, then EIO: what was inflated and scanned is kept.
    result = scan_stream(_Failing(data, piece=len(data) // 2 + 1), "a.gz", ScanContext())  # type: ignore[arg-type]
    guard.capture(repr(result.findings), *result.errors)
    assert [f.fingerprint for f in result.findings] == [fingerprint(pat)]
    assert result.errors == ["a.gz: Input/output error"]


def test_a_bomb_member_keeps_the_secret_before_it(guard: SecretGuard) -> None:
    pat = guard.pat()
    other = guard.pat()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("a.txt", f"t = {pat}\n".encode() + bytes(RATIO_FLOOR * 4))
        z.writestr("b.txt", f"t = {other}\n")
    data = buf.getvalue()
    pieces = [data]

    def read(n: int) -> bytes:
        out, pieces[0] = pieces[0][:n], pieces[0][n:]
        return out

    ctx = ScanContext(limits=DecodeLimits(max_ratio=10))
    result = scan_layers(read, "bomb.zip", ctx)
    guard.capture(repr(result.findings), *result.errors)
    # The member's first line was scanned before the ratio tripped; the rest is skipped.
    assert [f.fingerprint for f in result.findings] == [fingerprint(pat)]
    assert [f.path for f in result.findings] == ["bomb.zip!a.txt"]
    assert len(result.errors) == 1
    assert result.errors[0].startswith("bomb.zip!a.txt: expands more than 10x")
    assert result.skipped == 1


def test_each_scan_returns_a_result_of_its_own(tmp_path: Path, guard: SecretGuard) -> None:
    path = tmp_path / "a.env"
    path.write_text(f"AIC_TOKEN={guard.pat()}\n")
    target = FileTarget("a.env", str(path), path.stat().st_size)
    ctx = ScanContext(finder=finder_for(0))
    first, second = scan_target(target, ctx), scan_target(target, ctx)
    assert first is not second
    assert first.findings == second.findings
    assert (first.files, len(first.detections)) == (1, 1)
    first.add(second)
    assert (first.files, len(first.detections), len(second.detections)) == (2, 2, 1)
    guard.capture(repr(first.findings))
