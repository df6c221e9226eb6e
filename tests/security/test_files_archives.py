"""Archives cannot make a scan unbounded: a million empty members, more members than the cap
spread over nested archives, a zip whose directory declares too many, deep nesting, a bomb.

Verdicts are exit codes, error lines, what was and was not found, and the child's own peak
memory (wait4), never seconds.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
import zlib
from pathlib import Path

from hygiene.detection import fingerprint
from hygiene.scan.limits import DecodeLimits
from hygiene.scan.request import ScanRequest, run_scan
from tests.helpers import SecretGuard
from tests.security.test_files import findings, run

_TAR_FIELDS = (
    (100, b"0000644\0"),
    (108, b"0000000\0"),
    (116, b"0000000\0"),
    (136, b"00000000000\0"),
    (148, b"        "),
    (156, b"0"),
    (257, b"ustar\0"),
    (263, b"00"),
)


def tar_header(name: bytes, size: int, typeflag: bytes = b"0") -> bytes:
    """A ustar header for a member (built by hand: tarfile takes minutes for 1M)."""
    header = bytearray(512)
    header[: len(name)] = name
    for offset, value in _TAR_FIELDS:
        header[offset : offset + len(value)] = value
    header[156:157] = typeflag
    header[124:136] = b"%011o\0" % size
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header)


def million_member_tar_gz(path: Path, secrets: dict[int, str], count: int = 1_000_000) -> None:
    """``count`` empty members (distinct names, so the gzip ratio stays ordinary), and at the
    indexes of ``secrets`` a member holding that line."""
    empty = tar_header(b"m0000000", 0)
    fixed_sum = sum(empty) - sum(b"m0000000") - sum(empty[148:156]) + sum(b"        ")
    head, tail = empty[9:148], empty[156:]
    gz = zlib.compressobj(1, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        for start in range(0, count, 10_000):
            block = []
            for i in range(start, min(count, start + 10_000)):
                name = b"m%07d" % i
                if i in secrets:
                    body = secrets[i].encode()
                    block.append(tar_header(name, len(body)))
                    block.append(body + b"\0" * (-len(body) % 512))
                else:
                    block.append(name + b"\0" + head + b"%06o\0 " % (fixed_sum + sum(name)) + tail)
            out.write(gz.compress(b"".join(block)))
        out.write(gz.compress(b"\0" * 1024) + gz.flush())


def test_the_builder_makes_a_real_tar(tmp_path: Path) -> None:
    path = tmp_path / "small.tar.gz"
    million_member_tar_gz(path, {3: "three\n"}, count=5)
    with tarfile.open(path) as archive:
        members = archive.getmembers()
        assert [m.name for m in members] == [f"m{i:07d}" for i in range(5)]
        extracted = archive.extractfile(members[3])
        assert extracted is not None
        assert extracted.read() == b"three\n"


def test_a_million_empty_members_stop_at_the_cap_in_flat_memory(
    tmp_path: Path, guard: SecretGuard
) -> None:
    early, late = guard.pat(), guard.pat()
    path = tmp_path / "many.tar.gz"
    million_member_tar_gz(path, {10: f"key={early}\n", 500_000: f"key={late}\n"})
    proc = run(guard, "scan", "many.tar.gz", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [(f["path"], f["fingerprint"]) for f in findings(proc)] == [
        ("many.tar.gz!m0000010", fingerprint(early))
    ]
    assert (
        "hygiene: error: many.tar.gz: holds more than 100000 archive members; rest not scanned"
        in proc.stderr.splitlines()
    )
    assert json.loads(proc.stdout)["stats"]["skipped"] == 1
    # The old scanner kept every header: 470 MB for this file. Now the member list is not kept
    # and reading stops at the cap.
    assert proc.maxrss_kb < 150_000, proc.maxrss_kb


def test_a_huge_long_name_header_is_refused_not_held(tmp_path: Path, guard: SecretGuard) -> None:
    """A GNU long-name header claiming 256 MB (zeros, 230x compressed: no bomb by ratio), which
    tarfile would read whole into memory before the member it names."""
    pat = guard.pat()
    body = f"key={pat}\n".encode()
    gz = zlib.compressobj(1, zlib.DEFLATED, 31)
    with (tmp_path / "long.tar.gz").open("wb") as out:
        out.write(gz.compress(tar_header(b"first.txt", len(body)) + body.ljust(512, b"\0")))
        out.write(gz.compress(tar_header(b"././@LongLink", 256 << 20, b"L")))
        for _ in range(256):
            out.write(gz.compress(bytes(1 << 20)))
        out.write(gz.compress(tar_header(b"after.txt", 0) + bytes(1024)) + gz.flush())
    proc = run(guard, "scan", "long.tar.gz", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [f["path"] for f in findings(proc)] == ["long.tar.gz!first.txt"]
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert errors == [
        "hygiene: error: long.tar.gz: not a valid or a truncated tar archive "
        f"(an extended header of {256 << 20} bytes)"
    ]
    assert proc.maxrss_kb < 150_000, proc.maxrss_kb


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_zip_declaring_more_members_than_the_cap_is_not_opened_as_one(
    tmp_path: Path, guard: SecretGuard
) -> None:
    stored = guard.pat()
    members = {f"f{i}.txt": b"nothing\n" for i in range(60)}
    members["f30.txt"] = f"key={stored}\n".encode()
    (tmp_path / "wide.zip").write_bytes(_zip(members))
    request = ScanRequest(paths=(str(tmp_path / "wide.zip"),), limits=DecodeLimits(max_members=50))
    result = run_scan(request)
    guard.capture(*result.errors)
    assert [e.rsplit(": ", 1)[-1] for e in result.errors] == [
        "declares 60 archive members, more than the 50 one input may hold; "
        "its bytes scanned as they are"
    ]
    # Its bytes were still read as they are: a stored member's text is plain in them.
    assert [f.fingerprint for f in result.findings] == [fingerprint(stored)]


def test_members_of_nested_archives_count_together(tmp_path: Path, guard: SecretGuard) -> None:
    late = guard.pat()
    inner = {f"n{i}.txt": b"nothing\n" for i in range(5)}
    outer = {f"part{i}.tar": _tar(inner) for i in range(5)}
    outer["part4.tar"] = _tar({**inner, "n4.txt": f"key={late}\n".encode()})
    (tmp_path / "nested.zip").write_bytes(_zip(outer, zipfile.ZIP_DEFLATED))
    request = ScanRequest(
        paths=(str(tmp_path / "nested.zip"),), limits=DecodeLimits(max_members=20)
    )
    result = run_scan(request)
    guard.capture(*result.errors)
    assert len(result.errors) == 1
    assert result.errors[0].endswith("holds more than 20 archive members; rest not scanned")
    assert result.findings == []  # the 30th member, past the cap, was never read


def test_deep_nesting_is_reported_not_followed(tmp_path: Path, guard: SecretGuard) -> None:
    """(Bombs: tests/scan/decoders/test_limits.py.)"""
    deep_pat = guard.pat()
    data = f"key={deep_pat}\n".encode()
    for level in range(8):
        data = _zip({f"level{level}.zip" if level else "secret.txt": data})
    (tmp_path / "deep.zip").write_bytes(gzip.compress(data))
    proc = run(guard, "scan", "deep.zip", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith("hygiene: error: deep.zip!level7.zip!")
    assert errors[0].endswith("nested deeper than 4 levels; not scanned")


def test_a_zip64_directory_count_is_read_too(tmp_path: Path) -> None:
    """Past 65,535 members the count lives in the zip64 end record only."""
    from hygiene.scan.decoders.archives import zip_entry_count

    path = tmp_path / "wide64.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(65_536):
            archive.writestr(f"{i}", b"")
    with path.open("rb") as f:
        assert zip_entry_count(f) == 65_536
        assert f.tell() == 0
    result = run_scan(ScanRequest(paths=(str(path),), limits=DecodeLimits(max_members=65_535)))
    assert len(result.errors) == 1
    assert "declares 65536 archive members, more than the 65535" in result.errors[0]
    assert result.skipped == 1
