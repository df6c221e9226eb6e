"""``aic-detect-secrets audit`` prints masked forms only, and refuses its interactive session
without a terminal (detect-secrets itself shows raw tokens and ends in a traceback there)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from hygiene.commands.detect_secrets_hook import MaskingStream
from tests.helpers import SecretGuard

HOOK = [sys.executable, "-m", "hygiene.commands.detect_secrets_hook"]


def _baseline(tmp_path: Path, pat: str) -> Path:
    (tmp_path / "a.py").write_text(f'token = "{pat}"\n', encoding="utf-8")
    scan = subprocess.run(
        [
            str(Path(sys.executable).parent / "detect-secrets"),
            "scan",
            "--plugin",
            str(Path(__file__).resolve().parents[3] / "plugins" / "aic_tokens.py"),
            "a.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    )
    path = tmp_path / ".secrets.baseline"
    path.write_bytes(scan.stdout)
    return path


def test_report_shows_masked_forms_only(tmp_path: Path, guard: SecretGuard) -> None:
    pat = guard.pat()
    baseline = _baseline(tmp_path, pat)
    proc = subprocess.run(
        [*HOOK, "audit", "--report", str(baseline)],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=60,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stderr
    assert f"pat_AIC_…{pat[-4:]}" in proc.stdout.decode()


def test_interactive_audit_needs_a_terminal(tmp_path: Path, guard: SecretGuard) -> None:
    baseline = _baseline(tmp_path, guard.pat())
    proc = subprocess.run(
        [*HOOK, "audit", str(baseline)],
        cwd=tmp_path,
        input=b"y\n",
        capture_output=True,
        check=False,
        timeout=60,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    assert proc.stdout == b""
    (line,) = proc.stderr.decode().splitlines()
    assert "terminal" in line
    assert "--report" in line


def test_masking_stream_masks_whole_lines_and_prompts(guard: SecretGuard) -> None:
    pat = guard.pat()
    target = io.StringIO()
    stream = MaskingStream(target)
    stream.write(f"line with {pat[:12]}")
    stream.write(f"{pat[12:]} end\nprompt {pat}? ")
    stream.flush()
    text = target.getvalue()
    guard.capture(text)
    assert text.count(f"pat_AIC_…{pat[-4:]}") == 2
