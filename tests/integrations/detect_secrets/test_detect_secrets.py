"""The detect-secrets plugin through the real detect-secrets CLI, and our hook wrapper."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene.detection import sha1_hex
from hygiene.integrations.detect_secrets.plugin import SECRET_TYPE, AicTokenDetector
from tests.helpers import REPO_ROOT, SecretGuard, console_script, git

PLUGIN = REPO_ROOT / "plugins" / "aic_tokens.py"
HOOK_MODULE = "hygiene.commands.detect_secrets_hook"
NO_INDIRECT = ["--disable-filter", "detect_secrets.filters.heuristic.is_indirect_reference"]


def _run(guard: SecretGuard, cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    command = [console_script(args[0]) if not Path(args[0]).is_absolute() else args[0], *args[1:]]
    proc = subprocess.run(command, cwd=cwd, capture_output=True, timeout=120, check=False)
    guard.capture(proc.stdout, proc.stderr)
    return proc


def _hook(guard: SecretGuard, cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return _run(guard, cwd, sys.executable, "-m", HOOK_MODULE, *args)


@pytest.fixture
def leaky_repo(git_repo: Path, guard: SecretGuard) -> tuple[Path, str]:
    pat = guard.pat()
    text = f'c = Client(token="{pat}")\nplaceholder = "pat_AIC_xxxxxxxx"\n'
    (git_repo / "client.py").write_text(text)
    git(git_repo, "add", ".")
    return git_repo, pat


def test_plugin_finds_pats_only_and_not_placeholders() -> None:
    plugin = AicTokenDetector()
    body, session = "Q" + "k3" * 10, "zz9ZZ9" * 2
    line = f"a = 'pat_AIC_{body}' b = 'pat_AIC_xxxxxxxx' Authorization: Bearer {session}"
    assert list(plugin.analyze_string(line)) == ["pat_AIC_" + body]


def test_scan_with_plugin_file_finds_token_inside_a_call(
    leaky_repo: tuple[Path, str], guard: SecretGuard
) -> None:
    repo, pat = leaky_repo
    proc = _run(guard, repo, "detect-secrets", "scan", "--plugin", str(PLUGIN), *NO_INDIRECT)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]["client.py"]
    ours = [r for r in results if r["type"] == SECRET_TYPE]
    assert [(r["line_number"], r["hashed_secret"]) for r in ours] == [(1, sha1_hex(pat))]


def test_baseline_then_audit_stats_does_not_crash(
    leaky_repo: tuple[Path, str], guard: SecretGuard
) -> None:
    repo, _ = leaky_repo
    scan = _run(guard, repo, "detect-secrets", "scan", "--plugin", str(PLUGIN), *NO_INDIRECT)
    (repo / ".secrets.baseline").write_bytes(scan.stdout)
    audit = _hook(guard, repo, "audit", "--stats", "--json", ".secrets.baseline")
    assert audit.returncode == 0, audit.stderr
    assert "AicTokenDetector" in audit.stdout.decode()
    assert "Traceback" not in audit.stderr.decode()


def test_hook_blocks_a_token_without_any_plugin_path(
    leaky_repo: tuple[Path, str], guard: SecretGuard
) -> None:
    repo, _ = leaky_repo
    proc = _hook(guard, repo, "client.py")
    assert proc.returncode == 1
    assert SECRET_TYPE in proc.stdout.decode()
    (repo / "clean.py").write_text("x = 1\n")
    assert _hook(guard, repo, "clean.py").returncode == 0


def test_hook_fails_loudly_on_a_baseline_with_a_missing_plugin_path(
    leaky_repo: tuple[Path, str], guard: SecretGuard
) -> None:
    repo, _ = leaky_repo
    baseline = {
        "version": "1.5.0",
        "plugins_used": [{"name": "AicTokenDetector", "path": "file:///nowhere/aic_tokens.py"}],
        "filters_used": [],
        "results": {},
    }
    (repo / ".secrets.baseline").write_text(json.dumps(baseline))
    plain = _run(guard, repo, "detect-secrets-hook", "--baseline", ".secrets.baseline", "client.py")
    ours = _hook(guard, repo, "--baseline", ".secrets.baseline", "client.py")
    assert ours.returncode == 2
    assert "/nowhere/aic_tokens.py" in ours.stderr.decode()
    assert len(ours.stderr.decode().splitlines()) == 1
    # What we guard against: plain detect-secrets does not block the token here.
    assert SECRET_TYPE not in plain.stdout.decode()


def _frozen_config(commit: str) -> str:
    """What `pre-commit autoupdate --freeze` writes: the rev pinned to a commit id."""
    return (
        "repos:\n"
        "  - repo: https://github.com/your-org/aic-token-hygiene\n"
        f"    rev: {commit}  # frozen: v0.1.0\n"
        "    hooks:\n"
        "      - id: aic-token-scan\n"
    )


def test_a_rev_pinned_to_a_commit_is_no_secret_but_the_same_hex_elsewhere_is(
    git_repo: Path, guard: SecretGuard
) -> None:
    commit = secrets.token_hex(20)  # a git object id, as random as one
    (git_repo / ".pre-commit-config.yaml").write_text(_frozen_config(commit))
    (git_repo / "settings.yaml").write_text(f"signing_key: {commit}\n")
    plain = _run(guard, git_repo, "detect-secrets-hook", ".pre-commit-config.yaml")
    assert plain.returncode == 1  # what users met: the pin taken for a hex secret
    assert _hook(guard, git_repo, ".pre-commit-config.yaml").returncode == 0
    assert _hook(guard, git_repo, "settings.yaml").returncode == 1


def test_a_baselines_own_line_exclusions_still_apply(git_repo: Path, guard: SecretGuard) -> None:
    commit = secrets.token_hex(20)  # a git object id, as random as one
    (git_repo / "clean.py").write_text("x = 1\n")
    baseline = _run(
        guard, git_repo, "detect-secrets", "scan", "--exclude-lines", "SKIPME", "clean.py"
    )
    (git_repo / ".secrets.baseline").write_bytes(baseline.stdout)
    (git_repo / "vendored.py").write_text(f'key = "{commit}"  # SKIPME\n')
    (git_repo / ".pre-commit-config.yaml").write_text(_frozen_config(commit))
    files = ["vendored.py", ".pre-commit-config.yaml"]
    ours = _hook(guard, git_repo, "--baseline", ".secrets.baseline", *files)
    assert ours.returncode == 0, ours.stdout
    assert (git_repo / ".secrets.baseline").read_bytes() == baseline.stdout
