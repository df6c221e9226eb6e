"""``hygiene mask`` on compressed logs, UTF-16 text and archives: real processes.

A compressed log is written decompressed and masked (stderr says so); UTF-16 comes back in
UTF-16 with its BOM; an archive, a compression no decoder reads, a corrupt stream or a bomb
is one line on stderr, exit 2, and nothing of that input written. Never a silent copy.
"""

from __future__ import annotations

import codecs
import gzip
import time
from pathlib import Path

import pytest

from hygiene.testing.bombs import bomb
from tests.helpers import SecretGuard, run_hygiene
from tests.scan.decoders.containers import bzipped, gzipped, tarred, xzipped, zipped

COMPRESSORS = {"gzip": gzipped, "bzip2": bzipped, "xz": xzipped}


def _log(guard: SecretGuard) -> tuple[bytes, list[str]]:
    pat, session = guard.pat(), guard.session_token()
    text = (
        f"INFO start\nDEBUG sending AIC_TOKEN={pat}\n"
        f"DEBUG GET /me Authorization: Bearer {session}\nINFO done\n"
    )
    return text.encode(), [pat, session]


def _assert_masked(guard: SecretGuard, out: bytes, secrets: list[str]) -> None:
    text = out.decode("utf-8", "replace")
    for secret in secrets:
        assert secret not in text
    assert "INFO start" in text
    assert "INFO done" in text
    guard.capture(out)


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("name", ["app.log.1.{ext}", "app.log", "rotated"])
def test_a_compressed_log_is_written_decompressed_and_masked(
    guard: SecretGuard, tmp_path: Path, kind: str, name: str
) -> None:
    # Known by its content: a suffix that lies (or none) changes nothing.
    data, secrets = _log(guard)
    ext = {"gzip": "gz", "bzip2": "bz2", "xz": "xz"}[kind]
    path = tmp_path / name.format(ext=ext)
    path.write_bytes(COMPRESSORS[kind](data))
    proc = run_hygiene(guard, "mask", str(path))
    assert proc.returncode == 0, proc.stderr
    _assert_masked(guard, proc.stdout, secrets)
    assert proc.stdout.count(b"\n") == data.count(b"\n")
    assert (
        proc.stderr.decode() == f"hygiene mask: {path}: {kind}-compressed, written decompressed\n"
    )


def test_standard_input_and_concatenated_members(guard: SecretGuard) -> None:
    first, secrets_a = _log(guard)
    second, secrets_b = _log(guard)
    proc = run_hygiene(guard, "mask", input=gzip.compress(first) + gzip.compress(second))
    assert proc.returncode == 0, proc.stderr
    _assert_masked(guard, proc.stdout, secrets_a + secrets_b)
    assert proc.stdout.count(b"INFO start") == 2
    assert b"standard input: gzip-compressed" in proc.stderr


def test_a_plain_file_named_gz_is_masked_as_text(guard: SecretGuard, tmp_path: Path) -> None:
    data, secrets = _log(guard)
    (tmp_path / "x.gz").write_bytes(data)
    proc = run_hygiene(guard, "mask", str(tmp_path / "x.gz"))
    assert (proc.returncode, proc.stderr) == (0, b"")
    _assert_masked(guard, proc.stdout, secrets)


@pytest.mark.parametrize(
    ("codec", "bom"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-16-le", b""),
        ("utf-16-be", b""),
    ],
)
@pytest.mark.parametrize("compressed", [False, True])
def test_utf16_is_masked_in_utf16(
    guard: SecretGuard, tmp_path: Path, codec: str, bom: bytes, compressed: bool
) -> None:
    # PowerShell output, a .reg export: every rule applies (a session token too, which no
    # decoder of fragments would see), and the output is UTF-16 again, its BOM kept.
    data, secrets = _log(guard)
    raw = bom + data.decode().replace("\n", "\r\n").encode(codec)
    path = tmp_path / "out.txt"
    path.write_bytes(gzipped(raw) if compressed else raw)
    proc = run_hygiene(guard, "mask", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(bom)
    text = proc.stdout[len(bom) :].decode(codec)
    guard.capture(text)
    for secret in secrets:
        assert secret not in text
    assert text.startswith("INFO start\r\n")
    assert text.endswith("INFO done\r\n")
    assert "Authorization: Bearer …" in text


def test_utf16_with_an_odd_last_byte_keeps_it(guard: SecretGuard, tmp_path: Path) -> None:
    data, secrets = _log(guard)
    raw = codecs.BOM_UTF16_LE + data.decode().encode("utf-16-le") + b"\x7f"
    (tmp_path / "odd.txt").write_bytes(raw)
    proc = run_hygiene(guard, "mask", str(tmp_path / "odd.txt"))
    assert proc.returncode == 0
    assert proc.stdout.endswith(b"\x7f")
    body = proc.stdout[2:-1].decode("utf-16-le")
    guard.capture(body)
    for secret in secrets:
        assert secret not in body


def _archives(secret_file: bytes) -> dict[str, bytes]:
    return {
        "bundle.zip": zipped({"config.yml": secret_file}),
        "stored.zip": zipped({"config.yml": secret_file}, stored=True),
        "app.jar": zipped({"META-INF/app.properties": secret_file}),
        "layer.tar": tarred({"etc/app.env": secret_file}),
        "chart.tgz": tarred({"chart/values.yaml": secret_file}, "w:gz"),
        "backup.tar.bz2": tarred({"home/.netrc": secret_file}, "w:bz2"),
        "release.tar.xz": tarred({"release/.env": secret_file}, "w:xz"),
        "misnamed.log": tarred({"a.env": secret_file}, "w:gz"),
        "zip.gz": gzipped(zipped({"a.env": secret_file})),
        "logs.7z": b"7z\xbc\xaf\x27\x1c" + bytes(32) + secret_file,
        "logs.zst": b"\x28\xb5\x2f\xfd" + bytes(8) + secret_file,
        "logs.rar": b"Rar!\x1a\x07\x00" + secret_file,
    }


def test_archives_are_refused_never_copied(guard: SecretGuard, tmp_path: Path) -> None:
    data, secrets = _log(guard)
    for name, blob in _archives(data).items():
        path = tmp_path / name
        path.write_bytes(blob)
        proc = run_hygiene(guard, "mask", str(path))
        assert (proc.returncode, proc.stdout) == (2, b""), name
        message = proc.stderr.decode()
        assert message.count("\n") == 1, name
        assert "Traceback" not in message, name
        assert "cannot be masked" in message, name
        assert name in message, name
        # The same through standard input: refused before any of it is written.
        piped = run_hygiene(guard, "mask", input=blob)
        assert (piped.returncode, piped.stdout) == (2, b""), name
    assert secrets  # (the guard checks every output for them at teardown)


def test_an_archive_among_files_stops_the_run_before_any_output(
    guard: SecretGuard, tmp_path: Path
) -> None:
    data, _ = _log(guard)
    (tmp_path / "a.log").write_bytes(data)
    (tmp_path / "b.zip").write_bytes(zipped({"x.env": data}))
    proc = run_hygiene(guard, "mask", str(tmp_path / "a.log"), str(tmp_path / "b.zip"))
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr.decode().count("\n") == 1


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "trailing garbage member"])
def test_a_broken_compressed_log_writes_nothing_of_itself(
    guard: SecretGuard, tmp_path: Path, damage: str
) -> None:
    data, _ = _log(guard)
    whole = gzipped(data * 2000)
    blob = {
        "truncated": whole[: len(whole) // 2],
        "corrupt": whole[:20] + bytes(64) + whole[84:],
        "trailing garbage member": whole + b"\x1f\x8b\x08" + bytes(40),
    }[damage]
    plain = b"INFO plain file, complete\n"
    (tmp_path / "first.log").write_bytes(plain)
    (tmp_path / "app.log.gz").write_bytes(blob)
    proc = run_hygiene(guard, "mask", str(tmp_path / "first.log"), str(tmp_path / "app.log.gz"))
    assert proc.returncode == 2
    # The file before it whole (or nothing, where the damage shows in the first bytes,
    # which are checked before any output), never any of the broken one.
    assert proc.stdout == (b"" if damage == "corrupt" else plain)
    message = proc.stderr.decode()
    assert message.count("\n") == 1
    assert "app.log.gz" in message
    assert "Traceback" not in message


def test_a_decompression_bomb_is_refused_with_nothing_written(
    guard: SecretGuard, tmp_path: Path
) -> None:
    blob = bomb("gzip", 96 << 20, prefix=b"INFO " + guard.pat().encode() + b"\n")
    assert blob is not None
    (tmp_path / "bomb.log.gz").write_bytes(blob)
    proc = run_hygiene(guard, "mask", str(tmp_path / "bomb.log.gz"))
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert "bomb" in proc.stderr.decode()
    assert proc.stderr.decode().count("\n") == 1


def test_a_short_first_line_on_a_pipe_comes_back_at_once(guard: SecretGuard) -> None:
    # The format is told from the first bytes; a first line shorter than any magic's check
    # must not wait for more input (`tail -f app.log | hygiene mask`).
    import subprocess
    import sys

    from tests.masking.test_cli import _read_line

    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "mask"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    try:
        proc.stdin.write(b"ok\n")
        proc.stdin.flush()
        assert _read_line(proc.stdout.fileno(), time.monotonic() + 60) == b"ok\n"
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        guard.capture(proc.stdout.read(), proc.stderr.read())
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0
