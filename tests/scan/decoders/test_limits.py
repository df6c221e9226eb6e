"""Every decoder's limits: a zip bomb, a gzip bomb, deep nesting, truncated and corrupt
archives. Each is one line on stderr, the other files are still scanned, and the exit status is
the SPEC's: 1 when anything is reported, else 2 because something could not be read."""

from __future__ import annotations

import gzip
import io
import json
import os
import zipfile
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.scan import ScanRequest, run_scan
from hygiene.scan.limits import DecodeLimits
from tests.helpers import SecretGuard, run_hygiene
from tests.scan.decoders.containers import tarred, zipped

MB = 1 << 20


def _zeros_zip(members: int, size: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for i in range(members):
            with z.open(f"zeros{i}.bin", "w", force_zip64=True) as f:
                for _ in range(size // MB):
                    f.write(bytes(MB))
    return buf.getvalue()


def _gzip_bomb() -> bytes:
    # Gzip of gzip: 512 MB of zeros in a few kilobytes.
    inner = io.BytesIO()
    with gzip.GzipFile(fileobj=inner, mode="wb", compresslevel=9) as f:
        for _ in range(512):
            f.write(bytes(MB))
    return gzip.compress(inner.getvalue(), 9)


def _nested_zip(depth: int, innermost: bytes) -> bytes:
    data = zipped({"config.yml": innermost})
    for level in range(depth - 1):
        data = zipped({f"level{level}.zip": data})
    return data


def _truncated_tgz(pat: str) -> bytes:
    data = tarred(
        {"a/.env": f"AIC_TOKEN={pat}\n".encode(), "b/big.bin": bytes(range(256)) * 4000}, "w:gz"
    )
    return data[: len(data) // 2]


def _truncated_zip(pat: str) -> bytes:
    data = zipped(
        {".env": f"AIC_TOKEN={pat}\n".encode(), "pad.bin": bytes(range(256)) * 400}, stored=True
    )
    return data[: len(data) - 30]  # the central directory is gone


CASES = {
    "zip bomb": lambda pat: ("bomb.zip", _zeros_zip(3, 128 * MB), "decompression bomb"),
    "gzip bomb": lambda pat: ("logs.gz", _gzip_bomb(), "decompression bomb"),
    "deep nesting": lambda pat: ("deep.zip", _nested_zip(6, b"x: 1\n"), "nested deeper than 4"),
    "truncated tgz": lambda pat: ("cut.tgz", _truncated_tgz(pat), "gzip"),
    "truncated zip": lambda pat: ("cut.zip", _truncated_zip(pat), "zip archive"),
    "corrupt gzip": lambda pat: ("bad", b"\x1f\x8b\x08\x00" + b"not deflate" * 50, "gzip"),
}


@pytest.fixture(scope="module")
def built() -> dict[str, tuple[str, bytes, str]]:
    # The bombs take a second to build: once for the module (they hold no secret).
    return {name: make("") for name, make in CASES.items() if "bomb" in name}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_line_the_other_files_scanned_exit_1(
    guard: SecretGuard, tmp_path: Path, case: str, built: dict[str, tuple[str, bytes, str]]
) -> None:
    pat, other = guard.pat(), guard.pat()
    name, data, words = built.get(case) or CASES[case](pat)
    (tmp_path / name).write_bytes(data)
    (tmp_path / "z.env").write_text(f"AIC_TOKEN={other}\n")
    proc = run_hygiene(guard, "scan", "--format", "json", ".", cwd=tmp_path)
    errors = proc.stderr.decode().splitlines()[:-1]
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"hygiene: error: {name}")
    assert words in errors[0]
    assert proc.returncode == 1
    found = {f["fingerprint"] for f in json.loads(proc.stdout)["findings"]}
    assert fingerprint(other) in found
    alone = run_hygiene(guard, "scan", name, cwd=tmp_path)
    if case.startswith("truncated"):
        # What could be read before the cut is still reported.
        assert alone.returncode == 1
        assert fingerprint(pat).removeprefix("sha256:")[:12] in alone.stdout.decode()
    else:
        assert alone.returncode == 2
        assert alone.stdout == b""


def test_a_bomb_stops_within_its_budget_in_memory(tmp_path: Path) -> None:
    # 3 x 128 MB of zeros: the first member trips the ratio; the rest is never inflated.
    (tmp_path / "bomb.zip").write_bytes(_zeros_zip(3, 128 * MB))
    result = run_scan(ScanRequest(paths=(str(tmp_path),)))
    assert len(result.errors) == 1
    assert result.bytes < 130 * MB


def test_limits_are_the_requests(guard: SecretGuard, tmp_path: Path) -> None:
    pat = guard.pat()
    (tmp_path / "n.zip").write_bytes(_nested_zip(3, f"t: {pat}\n".encode()))
    lines = "".join(f"{i} {os.urandom(16).hex()}\n" for i in range(4 * MB // 40))
    (tmp_path / "z.gz").write_bytes(gzip.compress(lines.encode()))
    shallow = run_scan(ScanRequest(paths=(str(tmp_path),), limits=DecodeLimits(max_depth=2)))
    assert [f.fingerprint for f in shallow.findings] == []
    assert any("nested deeper than 2" in e for e in shallow.errors)
    deep = run_scan(ScanRequest(paths=(str(tmp_path),), limits=DecodeLimits(max_depth=3)))
    assert [f.fingerprint for f in deep.findings] == [fingerprint(pat)]
    assert deep.errors == []
    tight = run_scan(
        ScanRequest(paths=(str(tmp_path / "z.gz"),), limits=DecodeLimits(max_bytes=MB))
    )
    assert len(tight.errors) == 1
    assert "more than 1048576 bytes" in tight.errors[0]
