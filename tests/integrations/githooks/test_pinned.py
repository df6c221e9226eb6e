"""The plain git hooks run the hygiene of the interpreter that installed them.

``hygiene install-hooks`` writes that interpreter on the hook's ``HYGIENE_PYTHON=`` line, so a
commit made from a shell where the venv is not active still runs the scan; when that interpreter
is gone the hook falls back to ``hygiene`` on PATH, or refuses with a message naming how to
install it from git. The repository being committed holds what it likes: a ``hygiene/`` folder
in it is never imported in place of the installed package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene.integrations.githooks import NAMES, hook_text, install_hooks, pinned_text
from tests.helpers import SCRIPTS_DIR, SecretGuard, git, run_hygiene
from tests.security.test_git_hooks import HOSTILE_NAMES


def _bare_path(tmp_path: Path) -> str:
    """A PATH holding git and sh (and what they need) but no ``hygiene``: a shell without the
    venv's scripts, as an IDE or a fresh terminal starts commits."""
    bare = tmp_path / "bare-bin"
    bare.mkdir(exist_ok=True)
    for tool in ("git", "sh", "cat", "head", "env"):
        found = shutil.which(tool)
        assert found is not None, tool
        target = bare / tool
        if not target.exists():
            target.symlink_to(found)
    path = str(bare)
    assert shutil.which("hygiene", path=path) is None
    return path


def _env(path: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = path
    return env


def _with_scripts_path(tmp_path: Path) -> str:
    return os.pathsep.join([str(SCRIPTS_DIR), _bare_path(tmp_path)])


def _git_run(
    guard: SecretGuard, repo: Path, path: str, *args: str
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, timeout=120, check=False, env=_env(path)
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


def _leak(repo: Path, guard: SecretGuard, name: str = "leak.py") -> None:
    (repo / name).write_text(f"T = '{guard.pat()}'\n")
    git(repo, "add", "--", name)


def _wrapper(folder: Path, body: str) -> str:
    """An executable standing in for an interpreter (a venv's python), at ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    python = folder / "python"
    python.write_text(f"#!/bin/sh\n{body}\n")
    python.chmod(0o755)
    return str(python)


def _exec_python(folder: Path) -> str:
    return _wrapper(folder, f'exec "{sys.executable}" "$@"')


def _out(proc: subprocess.CompletedProcess[bytes]) -> str:
    # git hands a pre-commit hook's stdout to stderr, a pre-push hook's to stdout.
    return (proc.stdout + proc.stderr).decode()


def _hook_lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return [line for line in proc.stderr.decode().splitlines() if line.startswith("pre-")]


def test_install_hooks_pins_the_interpreter_that_ran_it(git_repo: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "install-hooks", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    for name in NAMES:
        text = (git_repo / ".git" / "hooks" / name).read_text()
        assert text == pinned_text(name, sys.executable)
        assert f"\nHYGIENE_PYTHON={sys.executable}\n" in text


def test_a_pinned_pre_commit_hook_runs_where_hygiene_is_not_on_path(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    assert run_hygiene(guard, "install-hooks", cwd=git_repo).returncode == 0
    path = _bare_path(tmp_path)
    (git_repo / "ok.txt").write_text("fine\n")
    git(git_repo, "add", "ok.txt")
    clean = _git_run(guard, git_repo, path, "commit", "-qm", "clean")
    assert clean.returncode == 0, clean.stderr
    _leak(git_repo, guard)
    refused = _git_run(guard, git_repo, path, "commit", "-qm", "leak")
    assert refused.returncode != 0
    assert "leak.py:1:6: aic-pat pat_AIC_…" in _out(refused)
    assert git(git_repo, "log", "--format=%s") == "clean\n"


def test_a_pinned_pre_push_hook_runs_where_hygiene_is_not_on_path(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(git_repo, "remote", "add", "origin", str(remote))
    assert run_hygiene(guard, "install-hooks", "--hook", "pre-push", cwd=git_repo).returncode == 0
    path = _bare_path(tmp_path)
    (git_repo / "a.txt").write_text("one\n")
    git(git_repo, "add", "a.txt")
    git(git_repo, "commit", "-qm", "one")
    pushed = _git_run(guard, git_repo, path, "push", "-q", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    _leak(git_repo, guard, "b.txt")
    git(git_repo, "commit", "-qm", "leak")
    refused = _git_run(guard, git_repo, path, "push", "-q", "origin", "main")
    assert refused.returncode != 0
    assert ":b.txt:1:6: aic-pat pat_AIC_…" in _out(refused)


def test_a_pinned_hook_still_scans_files_named_like_options(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    """The #25 protection holds through the pinned interpreter: every name after ``--``."""
    assert run_hygiene(guard, "install-hooks", cwd=git_repo).returncode == 0
    for name in HOSTILE_NAMES:
        _leak(git_repo, guard, name)
    proc = _git_run(guard, git_repo, _bare_path(tmp_path), "commit", "-qm", "leak")
    assert proc.returncode != 0
    out = "\n" + _out(proc)
    for name in HOSTILE_NAMES:
        assert f"\n{name}:1:6: aic-pat pat_AIC_…" in out, name
    assert git(git_repo, "rev-list", "--all") == ""


@pytest.mark.parametrize("hostile", ["package", "module", "both"])
def test_a_hygiene_folder_in_the_checkout_is_never_imported(
    hostile: str, tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    """``python -c`` puts the working folder first on the import path: a repository holding
    ``hygiene/`` (or ``hygiene.py``) would run its own code in place of the scan."""
    assert run_hygiene(guard, "install-hooks", cwd=git_repo).returncode == 0
    marker = tmp_path / "ran-the-checkout-s-code"
    payload = (
        f"import pathlib, sys\npathlib.Path({str(marker)!r}).write_text('x')\n"
        "def main():\n    return 0\n"
    )
    if hostile in ("package", "both"):
        (git_repo / "hygiene").mkdir()
        (git_repo / "hygiene" / "__init__.py").write_text(payload)
        (git_repo / "hygiene" / "cli.py").write_text(payload)
    if hostile in ("module", "both"):
        (git_repo / "hygiene.py").write_text(payload)
    _leak(git_repo, guard)
    refused = _git_run(guard, git_repo, _bare_path(tmp_path), "commit", "-qm", "leak")
    assert refused.returncode != 0
    assert "leak.py:1:6: aic-pat pat_AIC_…" in _out(refused)
    assert not marker.exists()
    assert git(git_repo, "rev-list", "--all") == ""


@pytest.mark.parametrize(
    "folder",
    [
        "venv with spaces",
        "$(touch injected)",
        "`touch injected`",
        "it's; touch injected",
        'quo"te $HOME \\',
        "ünïcödé",
    ],
)
def test_the_pinned_interpreter_path_is_quoted(
    folder: str, tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    python = _exec_python(tmp_path / folder / "bin")
    install_hooks(
        ["pre-commit"], force=False, folder=str(git_repo / ".git" / "hooks"), python=python
    )
    _leak(git_repo, guard)
    refused = _git_run(guard, git_repo, _bare_path(tmp_path), "commit", "-qm", "leak")
    assert refused.returncode != 0, refused.stderr
    assert "leak.py:1:6: aic-pat pat_AIC_…" in _out(refused)
    assert not (git_repo / "injected").exists()
    assert not list(tmp_path.rglob("injected"))


def test_a_gone_interpreter_falls_back_to_hygiene_on_path(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    python = _exec_python(tmp_path / "old-venv" / "bin")
    for name in NAMES:
        install_hooks([name], force=False, folder=str(git_repo / ".git" / "hooks"), python=python)
    shutil.rmtree(tmp_path / "old-venv")
    _leak(git_repo, guard)
    refused = _git_run(guard, git_repo, _with_scripts_path(tmp_path), "commit", "-qm", "leak")
    assert refused.returncode != 0
    err = _out(refused)
    assert "leak.py:1:6: aic-pat pat_AIC_…" in err  # the scan ran, with the hygiene on PATH
    [note] = _hook_lines(refused)
    assert note == (
        f"pre-commit: {python} is gone; using the hygiene on PATH "
        "(run hygiene install-hooks again to pin it)"
    )


@pytest.mark.parametrize("hook", sorted(NAMES))
def test_a_gone_interpreter_and_no_hygiene_is_one_line_naming_the_git_install(
    hook: str, tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(git_repo, "remote", "add", "origin", str(remote))
    python = _exec_python(tmp_path / "old-venv" / "bin")
    install_hooks([hook], force=False, folder=str(git_repo / ".git" / "hooks"), python=python)
    shutil.rmtree(tmp_path / "old-venv")
    _leak(git_repo, guard)
    path = _bare_path(tmp_path)
    if hook == "pre-commit":
        proc = _git_run(guard, git_repo, path, "commit", "-qm", "leak")
        assert git(git_repo, "rev-list", "--all") == ""
    else:
        git(git_repo, "commit", "-qm", "leak")
        proc = _git_run(guard, git_repo, path, "push", "-q", "origin", "main")
        assert (
            subprocess.run(
                ["git", "-C", str(remote), "rev-parse", "-q", "--verify", "main"],
                capture_output=True,
                check=False,
            ).returncode
            != 0
        )  # nothing reached the remote
    assert proc.returncode != 0
    [line] = _hook_lines(proc)
    act = "commit" if hook == "pre-commit" else "push"
    assert line.startswith(f"{hook}: hygiene is not installed ({python} is gone); install it")
    assert '"aic-token-hygiene @ git+https://' in line
    assert line.endswith(f"then run hygiene install-hooks; {act} refused")
    assert "pip install aic-token-hygiene;" not in line  # no index has it


def test_a_pinned_interpreter_without_hygiene_says_so_in_one_line(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    """The interpreter is there, hygiene was uninstalled from it: one line, no traceback."""
    python = _wrapper(tmp_path / "venv" / "bin", f'exec "{sys.executable}" -I -S "$@"')
    install_hooks(
        ["pre-commit"], force=False, folder=str(git_repo / ".git" / "hooks"), python=python
    )
    _leak(git_repo, guard)
    proc = _git_run(guard, git_repo, _with_scripts_path(tmp_path), "commit", "-qm", "leak")
    assert proc.returncode != 0
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith(f"pre-commit: hygiene is not installed for {python}; install it with")
    assert line.endswith("then run hygiene install-hooks; commit refused")
    assert git(git_repo, "rev-list", "--all") == ""


def test_reinstalling_from_another_interpreter_updates_its_own_hook(
    tmp_path: Path, git_repo: Path, guard: SecretGuard
) -> None:
    folder = git_repo / ".git" / "hooks"
    old = _exec_python(tmp_path / "old" / "bin")
    install_hooks(["pre-commit"], force=False, folder=str(folder), python=old)
    proc = run_hygiene(guard, "install-hooks", "--hook", "pre-commit", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith("pre-commit: updated (")
    assert (folder / "pre-commit").read_text() == pinned_text("pre-commit", sys.executable)
    assert not (folder / "pre-commit.bak").exists()
    again = run_hygiene(guard, "install-hooks", "--hook", "pre-commit", cwd=git_repo)
    assert again.stdout.decode().startswith("pre-commit: unchanged (")


def test_a_hook_of_ours_edited_beyond_its_interpreter_is_not_ours(
    git_repo: Path, guard: SecretGuard
) -> None:
    hook = git_repo / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    edited = pinned_text("pre-commit", "/opt/py/bin/python").replace("--staged --", "--staged")
    hook.write_text(edited)
    refused = run_hygiene(guard, "install-hooks", "--hook", "pre-commit", cwd=git_repo)
    assert refused.returncode == 2
    assert hook.read_text() == edited


@pytest.mark.parametrize("python", [None, "", "python3", "bin/python", "/opt/a\nb/python"])
def test_an_interpreter_no_line_can_name_leaves_the_hook_on_path(python: str | None) -> None:
    for name in NAMES:
        assert pinned_text(name, python) == hook_text(name)


def test_both_hooks_find_hygiene_the_same_way() -> None:
    """The block that finds hygiene is one text in both hooks (each says only its name)."""
    blocks = []
    for name in NAMES:
        text = hook_text(name)
        start = text.index("\n# How hygiene is run")
        end = text.index("\nfi\n", start)
        blocks.append(text[start:end])
        assert text.count("\nHYGIENE_PYTHON=''\n") == 1
    assert blocks[0] == blocks[1]
