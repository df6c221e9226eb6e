"""detect-secrets is the ``detect-secrets`` extra: without it the toolkit works, and what
needs it says in one line how to install it; ``hygiene plugin-path`` serves installs that have
no ``plugins/`` folder, through the real detect-secrets CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from hygiene.detection import sha1_hex
from hygiene.integrations.detect_secrets.extra import INSTALL_HINT, REQUIREMENT
from tests.helpers import REPO_ROOT, SecretGuard, console_script, git, run_hygiene

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport has the same API
    import tomli as tomllib

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
HOOK_MODULE = "hygiene.commands.detect_secrets_hook"
NO_INDIRECT = ["--disable-filter", "detect_secrets.filters.heuristic.is_indirect_reference"]
# A fresh interpreter in which `import detect_secrets` fails as if it were not installed
# (None in sys.modules is Python's own "this module is absent"), then runs `code`.
WITHOUT = "import sys\nsys.modules['detect_secrets'] = None\n"


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name for r in requirements}


def test_detect_secrets_is_an_extra_not_a_runtime_dependency() -> None:
    assert "detect-secrets" not in _names(PYPROJECT["project"]["dependencies"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extras["detect-secrets"] == [REQUIREMENT]
    assert REQUIREMENT in extras["test"]


def test_the_pre_commit_hook_installs_the_same_range() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["aic-detect-secrets"]["additional_dependencies"] == [REQUIREMENT]
    # The scanner hook needs no detect-secrets.
    assert "additional_dependencies" not in hooks["aic-token-scan"]


def _without(
    guard: SecretGuard, code: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT + code],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


def _assert_install_hint(proc: subprocess.CompletedProcess[bytes]) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err == f"aic-detect-secrets: error: {INSTALL_HINT}\n"
    assert "pip install 'detect-secrets>=1.5,<2'" in err  # what an index has
    assert proc.stdout == b""


HOOK_RUN = f"from {HOOK_MODULE} import main\nsys.exit(main(sys.argv[1:]))\n"


@pytest.mark.parametrize(
    "args",
    [
        ["--", "leak.py"],
        ["--baseline", ".secrets.baseline", "--", "leak.py"],
        ["audit", "--report", ".secrets.baseline"],
        ["audit", ".secrets.baseline"],
        [],
    ],
    ids=["hook", "hook-baseline", "audit-report", "audit-interactive", "no-args"],
)
def test_the_hook_without_detect_secrets_says_how_to_install_it(
    tmp_path: Path, guard: SecretGuard, args: list[str]
) -> None:
    (tmp_path / "leak.py").write_text(f"TOKEN = '{guard.pat()}'\n")
    (tmp_path / ".secrets.baseline").write_text(json.dumps({"version": "1.5.0", "results": {}}))
    argv = ", ".join(repr(a) for a in args)
    proc = _without(guard, f"sys.argv[1:] = [{argv}]\n" + HOOK_RUN, cwd=tmp_path)
    _assert_install_hint(proc)


def test_python_dash_m_hook_without_detect_secrets(tmp_path: Path, guard: SecretGuard) -> None:
    # The pre-commit entry's own form: `python -m hygiene.commands.detect_secrets_hook -- F`.
    (tmp_path / "leak.py").write_text(f"TOKEN = '{guard.pat()}'\n")
    code = f"import runpy\nsys.argv[1:] = ['--', 'leak.py']\nrunpy.run_module('{HOOK_MODULE}', run_name='__main__')\n"
    _assert_install_hint(_without(guard, code, cwd=tmp_path))


@pytest.mark.parametrize("module", ["hygiene.integrations.detect_secrets.plugin"])
def test_importing_the_plugin_without_detect_secrets_is_an_import_error_naming_the_extra(
    guard: SecretGuard, module: str
) -> None:
    code = (
        "from hygiene.errors import MissingExtra\n"
        "try:\n"
        f"    import {module}\n"
        "except ImportError as exc:\n"
        "    assert isinstance(exc, MissingExtra), type(exc)\n"
        "    print(exc)\n"
        "else:\n"
        "    sys.exit('imported')\n"
    )
    proc = _without(guard, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == INSTALL_HINT + "\n"


def test_the_package_and_the_hook_module_load_without_detect_secrets(guard: SecretGuard) -> None:
    code = (
        "import hygiene.integrations.detect_secrets as ds\n"
        f"import {HOOK_MODULE}\n"
        "print(sorted(ds.__all__))\n"
        "try:\n"
        "    ds.AicTokenDetector\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    proc = _without(guard, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines()[-1] == "MissingExtra"


def test_scan_and_plugin_path_need_no_detect_secrets(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "leak.py").write_text(f"TOKEN = '{guard.pat()}'\n")
    code = "from hygiene.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    scan = _without(guard, "sys.argv[1:] = ['scan', 'leak.py']\n" + code, cwd=tmp_path)
    assert scan.returncode == 1, scan.stderr  # findings
    assert b"leak.py" in scan.stdout
    path = _without(guard, "sys.argv[1:] = ['plugin-path']\n" + code, cwd=tmp_path)
    assert path.returncode == 0, path.stderr
    assert path.stdout.decode().strip().endswith("plugin.py")


def test_plugin_path_is_the_installed_plugin_module(guard: SecretGuard) -> None:
    from hygiene.integrations.detect_secrets import plugin

    proc = run_hygiene(guard, "plugin-path")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    printed = proc.stdout.decode()
    assert printed.endswith("\n")
    assert printed.count("\n") == 1
    path = Path(printed[:-1])
    assert path.is_absolute()
    assert path.is_file()
    assert path.samefile(plugin.__file__)
    assert "plugins" not in path.parts  # the package's module, not this checkout's file


def test_plugin_path_takes_no_arguments(guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "plugin-path", "extra")
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert proc.stdout == b""


def _plugin_path(guard: SecretGuard) -> str:
    proc = run_hygiene(guard, "plugin-path")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode().rstrip("\n")


def _detect_secrets(
    guard: SecretGuard, cwd: Path, *args: str
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [console_script(args[0]), *args[1:]], cwd=cwd, capture_output=True, timeout=180, check=False
    )
    guard.capture(proc.stdout, proc.stderr)
    return proc


def test_real_detect_secrets_scans_with_plugin_path_outside_the_checkout(
    tmp_path: Path, guard: SecretGuard
) -> None:
    service = tmp_path / "service with space"
    service.mkdir()
    pats = [guard.pat(), guard.pat()]
    (service / "client.py").write_text(f'c = Client(token="{pats[0]}")\n')
    (service / "settings.env").write_text(f"X=1\nAIC_TOKEN={pats[1]}\n")
    plugin = _plugin_path(guard)
    proc = _detect_secrets(
        guard, service, "detect-secrets", "scan", "--all-files", "--plugin", plugin, *NO_INDIRECT
    )
    assert proc.returncode == 0, proc.stderr
    baseline = json.loads(proc.stdout)
    assert {"name": "AicTokenDetector", "path": "file://" + plugin} in baseline["plugins_used"]
    found = {
        (name, r["line_number"], r["hashed_secret"])
        for name, results in baseline["results"].items()
        for r in results
        if r["type"] == "AIC Personal Access Token"
    }
    assert found == {("client.py", 1, sha1_hex(pats[0])), ("settings.env", 2, sha1_hex(pats[1]))}


def test_a_baseline_written_with_plugin_path_works_with_both_hooks(
    git_repo: Path, guard: SecretGuard
) -> None:
    # A service's repository (no plugins/ folder): the baseline names the installed module.
    (git_repo / "old.py").write_text(f"T = '{guard.pat()}'\n")
    git(git_repo, "add", ".")  # detect-secrets scans what git tracks
    plugin = _plugin_path(guard)
    scan = _detect_secrets(guard, git_repo, "detect-secrets", "scan", "--plugin", plugin)
    assert scan.returncode == 0, scan.stderr
    (git_repo / ".secrets.baseline").write_bytes(scan.stdout)
    (git_repo / "new.py").write_text(f"T = '{guard.pat()}'\n")
    git(git_repo, "add", ".")
    plain = _detect_secrets(
        guard, git_repo, "detect-secrets-hook", "--baseline", ".secrets.baseline", "new.py"
    )
    assert plain.returncode == 1, plain.stderr
    assert b"AIC Personal Access Token" in plain.stdout
    assert b"new.py:1" in plain.stdout
    ours = subprocess.run(
        [sys.executable, "-m", HOOK_MODULE, "--baseline", ".secrets.baseline", "--", "new.py"],
        cwd=git_repo,
        capture_output=True,
        timeout=180,
        check=False,
    )
    guard.capture(ours.stdout, ours.stderr)
    assert ours.returncode == 1, ours.stderr
    assert b"AIC Personal Access Token" in ours.stdout
    # The baselined token is not reported again.
    again = _detect_secrets(
        guard, git_repo, "detect-secrets-hook", "--baseline", ".secrets.baseline", "old.py"
    )
    assert again.returncode == 0, again.stdout
