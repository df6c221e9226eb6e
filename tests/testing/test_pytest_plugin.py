"""The ``control_plane`` pytest plugin is opt-in: installing the toolkit adds nothing to a
service's own test session; ``pytest_plugins = [...]`` or ``-p`` enables it.

The package's metadata is built from this tree (``setup.py egg_info``) and read as pip would
install it. A service's suite is a real pytest process in a temp folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

PLUGIN = "hygiene.testing.pytest_plugin"
# The entry point name of earlier releases.
OLD_ENTRY_POINT = "aic_control_plane"

SERVICE_TEST = """
import httpx


def test_uses_the_stand_in(control_plane):
    env = control_plane.env()
    assert env["AIC_BASE_URL"].startswith("http://127.0.0.1:")
    response = httpx.get(env["AIC_BASE_URL"] + "/no-such-route", timeout=30)
    assert response.status_code >= 400
    assert control_plane.requests


def test_hostile_server_too(hostile_server):
    assert hostile_server is not None
"""


@pytest.fixture(scope="module")
def metadata(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``.egg-info`` folder this tree's pyproject.toml gives (what an install records)."""
    base = tmp_path_factory.mktemp("egg")
    subprocess.run(
        [sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(base)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    [info] = base.glob("*.egg-info")
    return info


def test_the_package_registers_no_pytest_plugin(metadata: Path) -> None:
    entry_points_txt = metadata / "entry_points.txt"
    text = entry_points_txt.read_text() if entry_points_txt.exists() else ""
    assert "[pytest11]" not in text
    assert PLUGIN not in text
    assert "hygiene = hygiene.cli:main" in text  # the console scripts are still there


def test_detect_secrets_is_only_in_extras(metadata: Path) -> None:
    requires = (metadata / "requires.txt").read_text()
    runtime = requires.split("\n[", 1)[0]
    assert "detect-secrets" not in runtime
    sections = {
        block.split("]", 1)[0]: block.split("]", 1)[1] for block in requires.split("\n[")[1:]
    }
    assert "detect-secrets" in sections["detect-secrets"]
    assert "detect-secrets" in sections["test"]


def _service_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def _stale_block() -> list[str]:
    """This machine's install may predate the change (an editable install keeps the metadata
    of the tree it was made from): its old entry point is blocked by name, so the service's
    session sees what an install of this tree registers, which the metadata tests check."""
    # Every distribution on the path, as pytest loads them (entry_points() would keep only
    # the first of each name, and an in-tree build's metadata can hide the installed one).
    for dist in distributions():
        if any(ep.group == "pytest11" and ep.name == OLD_ENTRY_POINT for ep in dist.entry_points):
            return ["-p", f"no:{OLD_ENTRY_POINT}"]
    return []


def _service_suite(
    tmp_path: Path, conftest: str | None, *args: str
) -> subprocess.CompletedProcess[str]:
    service = tmp_path / "service"
    (service / "tests").mkdir(parents=True)
    (service / "tests" / "test_service.py").write_text(SERVICE_TEST)
    if conftest is not None:
        (service / "tests" / "conftest.py").write_text(conftest)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_stale_block(), *args],
        cwd=service,
        env=_service_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


# Each case is two nested pytest runs: the fast selection keeps the first (CI runs all).
NESTED = pytest.mark.slow


@pytest.mark.parametrize(
    "conftest",
    [
        None,
        pytest.param("", marks=NESTED),
        pytest.param("import hygiene\nimport hygiene.testing\n", marks=NESTED),
    ],
    ids=["no-conftest", "empty-conftest", "imports-the-package"],
)
def test_a_service_suite_gets_no_fixture_without_opting_in(
    tmp_path: Path, conftest: str | None
) -> None:
    proc = _service_suite(tmp_path, conftest)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "fixture 'control_plane' not found" in proc.stdout
    assert "fixture 'hostile_server' not found" in proc.stdout
    assert PLUGIN not in _plugins_listed(tmp_path)


def _plugins_listed(tmp_path: Path) -> str:
    """What ``pytest --trace-config`` says is registered in the service's session."""
    proc = _service_suite(tmp_path / "trace", None, "--trace-config", "--collect-only")
    return proc.stdout


def test_conftest_pytest_plugins_enables_it(tmp_path: Path) -> None:
    proc = _service_suite(tmp_path, f"pytest_plugins = [{PLUGIN!r}]\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout


def test_dash_p_enables_it(tmp_path: Path) -> None:
    proc = _service_suite(tmp_path, None, "-p", PLUGIN)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout


def test_this_repository_enables_it_the_same_way() -> None:
    from tests import conftest

    assert conftest.pytest_plugins == [PLUGIN]


def test_the_fixture_works_here(control_plane: object) -> None:
    assert control_plane is not None
