"""Attacks through the names of the files a hook is given: every name is data, never an option.

pre-commit appends the staged file names after a hook's ``entry``: a file named
``--exclude=*``, ``--help`` or ``-`` must be scanned as the file it is, by ``hygiene scan``
and by the detect-secrets wrapper, through the entries exactly as ``.pre-commit-hooks.yaml``
writes them, through the real pre-commit framework, and through the plain git hooks.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import (
    REPO_ROOT,
    SecretGuard,
    console_script,
    env_with_scripts,
    git,
    run_hygiene,
)
from tests.integrations.test_pre_commit_framework import (  # noqa: F401 - fixtures
    pre_commit_home,
    project_snapshot,
)

# Names that are options of `hygiene scan` or of detect-secrets-hook (or its wrapper's
# `audit`), standard input, or the end of options itself.
HOSTILE_NAMES = (
    "--exclude=*",
    "--write-baseline=x",
    "--no-config",
    "-",
    "--format=json",
    "-x",
    "--help",
    "-h",
    "--",
    "--version",
    "--output=o.txt",
    "--config=c.toml",
    "--baseline=b.json",
    "--exclude-files=.*",
    "--exclude-lines=.*",
    "--json",
    "audit",
)
# The brief's measured bypasses and a few more, for the slow runs through pre-commit itself.
FRAMEWORK_NAMES = ("--exclude=*", "--write-baseline=x", "--no-config", "-", "--format=json",
                   "-x", "--help", "--", "audit")  # fmt: skip

HOOK_IDS = ("aic-token-scan", "aic-detect-secrets")


def _shown(hook: str, name: str) -> str:
    """How each hook names the file in its report."""
    if hook == "aic-token-scan":
        return ("./-" if name == "-" else name) + ":1:7: aic-pat pat_AIC_…"
    return f"Location:    {'./' if name.startswith('-') else ''}{name}:1"


def _leak(repo: Path, guard: SecretGuard, name: str) -> None:
    (repo / name).write_text(f"key = {guard.pat()}\n")
    git(repo, "add", "--", name)


def _entry(hook: str) -> list[str]:
    """The hook's entry from .pre-commit-hooks.yaml, run with this interpreter's tools."""
    [spec] = [h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
              if h["id"] == hook]  # fmt: skip
    argv = shlex.split(spec["entry"])
    tools = {"hygiene": console_script("hygiene"), "python": sys.executable}
    return [tools.get(argv[0], argv[0]), *argv[1:]]


def test_every_entry_ends_its_options() -> None:
    for hook in HOOK_IDS:
        assert _entry(hook)[-1] == "--", hook


@pytest.mark.parametrize("hook", HOOK_IDS)
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_the_hook_entry_scans_a_file_named_like_an_option(
    hook: str, name: str, git_repo: Path, guard: SecretGuard
) -> None:
    _leak(git_repo, guard, name)
    (git_repo / "clean.py").write_text("x = 1\n")
    git(git_repo, "add", "clean.py")
    proc = subprocess.run(
        [*_entry(hook), *sorted([name, "clean.py"])],  # in git's order, as pre-commit passes
        cwd=git_repo,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1, proc.stderr
    assert _shown(hook, name) in proc.stdout.decode(), proc.stdout
    assert not (git_repo / "x").exists()  # no baseline written where a name pointed
    assert not (git_repo / "o.txt").exists()


def test_scan_reads_a_file_named_dash_after_the_end_of_options(
    git_repo: Path, guard: SecretGuard
) -> None:
    on_stdin, in_file = guard.pat(), guard.pat()
    (git_repo / "-").write_text(f"key = {in_file}\n")
    proc = run_hygiene(guard, "scan", "--", "-", cwd=git_repo, input=f"{on_stdin}\n".encode())
    assert proc.returncode == 1, proc.stderr
    [line] = proc.stdout.decode().splitlines()  # the file, not standard input
    assert line.startswith("./-:1:7: aic-pat pat_AIC_…")
    # Before --, - is still standard input.
    piped = run_hygiene(guard, "scan", "-", cwd=git_repo, input=f"{on_stdin}\n".encode())
    assert piped.returncode == 1, piped.stderr
    assert piped.stdout.decode().startswith("<stdin>:1:1: aic-pat")


def test_a_dash_dash_that_is_an_option_s_value_ends_nothing(
    git_repo: Path, guard: SecretGuard
) -> None:
    """``--exclude --`` excludes ``--``: the ``-`` after it is still standard input."""
    proc = run_hygiene(guard, "scan", "--exclude", "--", "-", cwd=git_repo, input=b"clean\n")
    assert proc.returncode == 0, proc.stderr
    assert "in 1 file, 6 bytes" in proc.stderr.decode()


def test_the_detect_secrets_wrapper_refuses_an_option_after_the_end_of_options(
    git_repo: Path, guard: SecretGuard
) -> None:
    """An option put in a hook's ``args:`` lands after the entry's ``--``: a clear error, not a
    missing file scanned as nothing."""
    (git_repo / "a.py").write_text("x = 1\n")
    proc = subprocess.run(
        [*_entry("aic-detect-secrets"), "--baseline", ".secrets.baseline", "a.py"],
        cwd=git_repo,
        capture_output=True,
        timeout=120,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith("aic-detect-secrets: error: --baseline: no such file")


def test_the_plain_pre_commit_hook_refuses_files_named_like_options(
    git_repo: Path, guard: SecretGuard
) -> None:
    assert run_hygiene(guard, "install-hooks", cwd=git_repo).returncode == 0
    for name in HOSTILE_NAMES:
        _leak(git_repo, guard, name)
    proc = subprocess.run(
        ["git", "commit", "-qm", "leak"],
        cwd=git_repo,
        capture_output=True,
        timeout=120,
        check=False,
        env=env_with_scripts(),
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode != 0
    out = (proc.stdout + proc.stderr).decode()  # git hands a hook's stdout to stderr
    for name in HOSTILE_NAMES:
        assert f"\n{name}:1:7: aic-pat pat_AIC_…" in "\n" + out, name
    assert git(git_repo, "rev-list", "--all") == ""  # nothing was committed


def test_the_plain_pre_push_hook_refuses_a_file_named_like_an_option(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(git_repo, "remote", "add", "origin", str(remote))
    assert run_hygiene(guard, "install-hooks", "--hook", "pre-push", cwd=git_repo).returncode == 0
    for name in ("--exclude=*", "-"):
        _leak(git_repo, guard, name)
    git(git_repo, "commit", "-qm", "leak", "--no-verify")
    proc = subprocess.run(
        ["git", "push", "-q", "origin", "main"],
        cwd=git_repo,
        capture_output=True,
        timeout=120,
        check=False,
        env=env_with_scripts(),
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode != 0
    out = (proc.stdout + proc.stderr).decode()
    assert ":--exclude=*:1:7: aic-pat pat_AIC_…" in out
    assert ":-:1:7: aic-pat pat_AIC_…" in out


# The real pre-commit framework: `pre-commit install`, then `git commit`.


@pytest.mark.slow
@pytest.mark.parametrize("name", FRAMEWORK_NAMES)
def test_pre_commit_refuses_a_commit_of_a_file_named_like_an_option(
    name: str,
    git_repo: Path,
    guard: SecretGuard,
    project_snapshot: Path,  # noqa: F811 - the imported fixture
    pre_commit_home: Path,  # noqa: F811
) -> None:
    hooks = "".join(f"      - id: {hook}\n" for hook in HOOK_IDS)
    (git_repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {project_snapshot}\n    rev: {git(project_snapshot, 'rev-parse', 'HEAD').strip()}\n    hooks:\n{hooks}"
    )
    git(git_repo, "add", ".pre-commit-config.yaml")
    env = env_with_scripts({"PRE_COMMIT_HOME": str(pre_commit_home)})
    subprocess.run(
        [console_script("pre-commit"), "install"], cwd=git_repo, env=env, check=True, timeout=120
    )
    _leak(git_repo, guard, name)
    proc = subprocess.run(
        ["git", "commit", "-qm", "leak"],
        cwd=git_repo,
        capture_output=True,
        timeout=900,
        check=False,
        env=env,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode != 0
    out = (proc.stdout + proc.stderr).decode()
    for hook in HOOK_IDS:
        assert _shown(hook, name) in out, (hook, out)
    assert git(git_repo, "rev-list", "--all") == ""


def test_install_hooks_still_honours_the_users_hooks_path(
    git_repo: Path, guard: SecretGuard
) -> None:
    """Every other git call pins core.hooksPath; asking where hooks go keeps the user's."""
    git(git_repo, "config", "core.hooksPath", "my-hooks")
    proc = run_hygiene(guard, "install-hooks", "--hook", "pre-commit", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert (git_repo / "my-hooks" / "pre-commit").is_file()
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()


@pytest.mark.slow
def test_options_still_reach_the_hooks_through_an_overridden_entry(
    git_repo: Path,
    guard: SecretGuard,
    project_snapshot: Path,  # noqa: F811 - the imported fixture
    pre_commit_home: Path,  # noqa: F811
) -> None:
    """Options a user needs go before the ``--`` of an ``entry:`` the config overrides."""
    (git_repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {project_snapshot}\n    rev: {git(project_snapshot, 'rev-parse', 'HEAD').strip()}\n    hooks:\n"
        "      - id: aic-token-scan\n"
        "        entry: hygiene scan --exclude 'vendor/*' --\n"
    )
    git(git_repo, "add", ".pre-commit-config.yaml")
    env = env_with_scripts({"PRE_COMMIT_HOME": str(pre_commit_home)})
    subprocess.run(
        [console_script("pre-commit"), "install"], cwd=git_repo, env=env, check=True, timeout=120
    )
    (git_repo / "vendor").mkdir()
    _leak(git_repo, guard, "vendor/third-party.txt")
    accepted = subprocess.run(
        ["git", "commit", "-qm", "vendored"],
        cwd=git_repo,
        capture_output=True,
        env=env,
        timeout=600,
        check=False,
    )
    guard.capture(accepted.stdout, accepted.stderr)
    assert accepted.returncode == 0, accepted.stderr
    _leak(git_repo, guard, "--exclude=vendor")
    refused = subprocess.run(
        ["git", "commit", "-qm", "leak"],
        cwd=git_repo,
        capture_output=True,
        env=env,
        timeout=600,
        check=False,
    )
    guard.capture(refused.stdout, refused.stderr)
    assert refused.returncode != 0
    assert "--exclude=vendor:1:7: aic-pat pat_AIC_…" in (refused.stdout + refused.stderr).decode()
