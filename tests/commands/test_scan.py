"""``hygiene scan`` as users run it: a real process, every output checked for secrets."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, run_hygiene


def _lines(out: bytes) -> list[str]:
    return out.decode().splitlines()


def test_finding_line_format_and_exit_1(tmp_path: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (tmp_path / "app.py").write_text(f'import x\nclient = Client(token="{pat}")\n')
    proc = run_hygiene(guard, "scan", "app.py", cwd=tmp_path)
    assert proc.returncode == 1
    digest = fingerprint(pat).removeprefix("sha256:")[:12]
    assert _lines(proc.stdout) == [f"app.py:2:24: aic-pat pat_AIC_…{pat[-4:]} {digest}"]
    assert len(_lines(proc.stderr)) == 1
    assert "1 finding" in proc.stderr.decode()


def test_clean_folder_exits_0(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "a.txt").write_text("token = pat_AIC_xxxxxxxx\n")
    proc = run_hygiene(guard, "scan", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_missing_path_is_one_line_exit_2(tmp_path: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "scan", "does-not-exist", cwd=tmp_path)
    assert proc.returncode == 2
    err = _lines(proc.stderr)
    assert len(err) == 1
    assert "does-not-exist" in err[0]
    assert "Traceback" not in err[0]


def test_walk_skips_git_and_survives_symlink_loops(tmp_path: Path, guard: SecretGuard) -> None:
    pat, hidden = guard.pat(), guard.pat()
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "c.cfg").write_text(f"key={pat}\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(f"key={hidden}\n")
    (tmp_path / "src" / "deep" / "loop").symlink_to(tmp_path / "src")
    proc = run_hygiene(guard, "scan", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert [line.split(":")[0] for line in _lines(proc.stdout)] == ["src/deep/c.cfg"]


def test_stdin_gz_and_binary(tmp_path: Path, guard: SecretGuard) -> None:
    in_gz, in_bin, on_stdin = guard.pat(), guard.pat(), guard.session_token()
    with gzip.open(tmp_path / "app.log.gz", "wb") as f:
        f.write(b"line\n" * 1000 + f"GET /x?t={in_gz}\n".encode())
    (tmp_path / "blob.bin").write_bytes(os.urandom(64).replace(b"\n", b"") + in_bin.encode())
    stdin = f"curl -H 'Authorization: Bearer {on_stdin}' https://x\n".encode()
    proc = run_hygiene(
        guard,
        "scan",
        "-",
        "app.log.gz",
        "blob.bin",
        "--format",
        "json",
        input=stdin,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    found = {(f["path"], f["line"], f["type"]) for f in json.loads(proc.stdout)["findings"]}
    assert found == {
        ("app.log.gz", 1001, "aic-pat"),
        ("blob.bin", 1, "aic-pat"),
        ("<stdin>", 1, "bearer-token"),
    }


def test_corrupt_gz_is_reported_and_the_scan_goes_on(tmp_path: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (tmp_path / "ok.txt").write_text(pat + "\n")
    proc = run_hygiene(guard, "scan", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "bad.gz" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    clean = run_hygiene(guard, "scan", "bad.gz", cwd=tmp_path)
    assert clean.returncode == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_file_exits_2_when_nothing_found(tmp_path: Path, guard: SecretGuard) -> None:
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text("x\n")
    secret_file.chmod(0)
    proc = run_hygiene(guard, "scan", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "secret.txt" in proc.stderr.decode()


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
def test_read_error_is_one_line_and_findings_still_win(tmp_path: Path, guard: SecretGuard) -> None:
    # Reading /proc/self/mem at offset 0 fails with EIO, even for root.
    proc = run_hygiene(guard, "scan", "/proc/self/mem", cwd=tmp_path)
    assert proc.returncode == 2
    assert "/proc/self/mem" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    (tmp_path / "a.txt").write_text(guard.pat() + "\n")
    assert run_hygiene(guard, "scan", "a.txt", "/proc/self/mem", cwd=tmp_path).returncode == 1


def test_crlf_and_token_across_a_read_boundary(tmp_path: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    head = b"a\r\n" * ((8 << 20) // 3)
    pad = b"y" * ((8 << 20) - len(head) - 10)
    (tmp_path / "big.log").write_bytes(head + pad + b" " + pat.encode() + b"\r\nend\r\n")
    proc = run_hygiene(guard, "scan", "big.log", "--format", "json", cwd=tmp_path)
    (finding,) = json.loads(proc.stdout)["findings"]
    assert (finding["line"], finding["column"]) == (head.count(b"\n") + 1, len(pad) + 2)


def test_json_shape(tmp_path: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    (tmp_path / "a.py").write_text(f"T = '{pat}'\n")
    proc = run_hygiene(guard, "scan", "a.py", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert set(doc) == {"tool", "version", "findings", "stats", "suppressed", "suppressed_by"}
    assert doc["tool"] == "aic-token-hygiene"
    assert doc["findings"] == [
        {
            "path": "a.py",
            "line": 1,
            "column": 6,
            "type": "aic-pat",
            "masked": "pat_AIC_…" + pat[-4:],
            "fingerprint": fingerprint(pat),
            "commit": None,
        }
    ]
    assert set(doc["stats"]) == {"files", "bytes", "seconds", "skipped"}
    assert doc["stats"]["files"] == 1
    assert doc["stats"]["bytes"] == len(pat) + 7


def test_output_file_and_baseline_round_trip(tmp_path: Path, guard: SecretGuard) -> None:
    old, new = guard.pat(), guard.pat()
    (tmp_path / "a.txt").write_text(old + "\n")
    first = run_hygiene(guard, "scan", "a.txt", "--write-baseline", "base.json", cwd=tmp_path)
    assert first.returncode == 0
    assert "hygiene: baseline written: 1 fingerprint(s) in base.json\n" in first.stderr.decode()
    base = json.loads((tmp_path / "base.json").read_text())
    assert base == {"version": 1, "fingerprints": [fingerprint(old)]}
    again = run_hygiene(guard, "scan", "a.txt", "--baseline", "base.json", cwd=tmp_path)
    assert again.returncode == 0
    (tmp_path / "a.txt").write_text(f"{old}\n{new}\n")
    proc = run_hygiene(
        guard,
        "scan",
        "a.txt",
        "--baseline",
        "base.json",
        "--output",
        "r.json",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (1, b"")
    report = json.loads((tmp_path / "r.json").read_text())
    assert [f["fingerprint"] for f in report["findings"]] == [fingerprint(new)]
    guard.capture((tmp_path / "r.json").read_text(), (tmp_path / "base.json").read_text())


@pytest.mark.parametrize(
    "content",
    ["{not json", '{"version": 2, "fingerprints": []}', '{"version": 1, "fingerprints": ["abc"]}'],
)
def test_broken_baseline_is_exit_2(tmp_path: Path, guard: SecretGuard, content: str) -> None:
    (tmp_path / "b.json").write_text(content)
    (tmp_path / "a.txt").write_text("nothing\n")
    proc = run_hygiene(guard, "scan", "a.txt", "--baseline", "b.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert len(_lines(proc.stderr)) == 1
    assert "b.json" in proc.stderr.decode()


def test_exclude_globs(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "vendor" / "lib").mkdir(parents=True)
    (tmp_path / "vendor" / "lib" / "x.js").write_text(guard.pat() + "\n")
    (tmp_path / "fixture.log").write_text(guard.pat() + "\n")
    kept = guard.pat()
    (tmp_path / "app.py").write_text(kept + "\n")
    proc = run_hygiene(guard, "scan", "--exclude", "vendor/", "--exclude", "*.log", cwd=tmp_path)
    assert [line.split(":")[0] for line in _lines(proc.stdout)] == ["app.py"]


def test_conflicting_sources_are_usage_errors(tmp_path: Path, guard: SecretGuard) -> None:
    for args in (["--staged", "--all-files"], ["--staged", "x"], ["--since", "HEAD"]):
        proc = run_hygiene(guard, "scan", *args, cwd=tmp_path)
        assert proc.returncode == 2, args
        assert len(_lines(proc.stderr)) == 1


def test_dangling_symlink_argument_is_skipped(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    (tmp_path / "a.txt").write_text("clean\n")
    proc = run_hygiene(guard, "scan", "gone", "a.txt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
