"""``hygiene scan`` with a settings file: found at the repository root, flags override it."""

from __future__ import annotations

import json
from pathlib import Path

from hygiene.detection import fingerprint
from tests.helpers import SecretGuard, git, run_hygiene


def _paths(stdout: bytes) -> list[str]:
    return sorted(f["path"] for f in json.loads(stdout)["findings"])


def _tree(root: Path, guard: SecretGuard) -> dict[str, str]:
    """Files with one finding each; returns path -> the secret planted there."""
    planted = {
        "src/app.py": guard.pat(),
        "vendor/lib.js": guard.pat(),
        "tests/fixtures/case.json": guard.pat(),
        "notes.txt": guard.pat(),
        "headers.log": guard.session_token(),
    }
    for rel, secret in planted.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel == "headers.log":
            (root / rel).write_text(f"Authorization: Bearer {secret}\n")
        elif rel == "notes.txt":
            (root / rel).write_text(f"k = {secret}  # demo: EXAMPLE_ONLY\n")
        else:
            (root / rel).write_text(f"k = '{secret}'\n")
    return planted


def _config(planted: dict[str, str]) -> str:
    return f"""
exclude = ["vendor/"]
types = ["aic-pat"]
allow-paths = ['^tests/fixtures/']
allow-lines = ['EXAMPLE_ONLY']
[[allow]]
fingerprint = "{fingerprint(planted["src/app.py"])}"
reason = "revoked, kept in the demo"
"""


def test_settings_at_the_repository_root_apply_from_a_subfolder(
    git_repo: Path, guard: SecretGuard
) -> None:
    planted = _tree(git_repo, guard)
    extra = git_repo / "src" / "more.py"
    extra.write_text(f"k = '{guard.pat()}'\n")
    (git_repo / ".hygiene.toml").write_text(_config(planted))
    everything = run_hygiene(guard, "scan", "--no-config", "--format", "json", cwd=git_repo)
    assert len(_paths(everything.stdout)) == 6
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert _paths(proc.stdout) == ["src/more.py"]
    inside = run_hygiene(guard, "scan", "--format", "json", ".", cwd=git_repo / "src")
    assert _paths(inside.stdout) == ["more.py"]


def test_pyproject_table_and_exclude_flag_adds(git_repo: Path, guard: SecretGuard) -> None:
    planted = _tree(git_repo, guard)
    table = _config(planted).replace("[[allow]]", "[[tool.hygiene.allow]]")
    (git_repo / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.hygiene]\n" + table)
    (git_repo / "other.py").write_text(f"k = '{guard.pat()}'\n")
    base = run_hygiene(guard, "scan", "--format", "json", cwd=git_repo)
    assert _paths(base.stdout) == ["other.py"]
    more = run_hygiene(guard, "scan", "--exclude", "other.py", cwd=git_repo)
    assert more.returncode == 0, more.stdout


def test_config_flag_names_the_file_and_no_config_ignores_it(
    tmp_path: Path, guard: SecretGuard
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    planted = _tree(work, guard)
    elsewhere = tmp_path / "team.toml"
    elsewhere.write_text("types = ['bearer-token']\n")
    (work / ".hygiene.toml").write_text(_config(planted))
    chosen = run_hygiene(guard, "scan", "--config", str(elsewhere), "--format", "json", cwd=work)
    assert _paths(chosen.stdout) == ["headers.log"]
    both = run_hygiene(guard, "scan", "--config", str(elsewhere), "--no-config", cwd=work)
    assert both.returncode == 2
    missing = run_hygiene(guard, "scan", "--config", str(tmp_path / "nope.toml"), cwd=work)
    assert missing.returncode == 2
    assert "nope.toml" in missing.stderr.decode()


def test_a_broken_file_is_exit_2_with_one_line(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "a.txt").write_text(f"{guard.pat()}\n")
    (tmp_path / ".hygiene.toml").write_text("[decoders]\nmax_ratio = -1\n")
    proc = run_hygiene(guard, "scan", cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1
    assert ".hygiene.toml: decoders.max_ratio: must be a positive integer" in lines[0]
    assert proc.stdout == b""


def test_settings_apply_to_staged_and_history(git_repo: Path, guard: SecretGuard) -> None:
    planted = _tree(git_repo, guard)
    (git_repo / ".hygiene.toml").write_text(_config(planted))
    git(git_repo, "add", "-A")
    staged = run_hygiene(guard, "scan", "--staged", cwd=git_repo)
    assert staged.returncode == 0, staged.stdout
    git(git_repo, "commit", "-qm", "all")
    history = run_hygiene(guard, "scan", "--history", cwd=git_repo)
    assert history.returncode == 0, history.stdout
