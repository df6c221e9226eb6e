"""Fixtures shared by every test package."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from hygiene.testing import ControlPlane
from tests.fast_selection import KEPT_REALWORLD, is_slow
from tests.helpers import DEEP_EXAMPLES, SecretGuard, Watch, git, start_watch_process

# The stand-in's fixtures (control_plane, hostile_server), enabled the way a user's suite does:
# installing the package loads no pytest plugin into anyone's test session.
pytest_plugins = ["hygiene.testing.pytest_plugin"]

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None)
# A long hunt for rare counterexamples before a property lands (properties that pin their own
# count take tests.helpers.examples(n), which the deep profile raises too).
settings.register_profile(
    "deep", max_examples=DEEP_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


# Conftest hooks run newest first: tests/masking/realworld/conftest.py marks its items before
# this one runs, and pytest's -m selection runs after both.
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real-library battery is slow too: ``-m "not slow"``, the fast selection, leaves out
    every test that costs long (CI runs them all: plain ``python -m pytest``), but for one
    case a module. So are the tests tests/fast_selection.txt lists, and those on the
    PostgreSQL server."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        realworld = item.get_closest_marker("realworld") is not None
        if (realworld and item.nodeid not in KEPT_REALWORLD) or is_slow(
            item.nodeid, fixtures, params
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def guard() -> Iterator[SecretGuard]:
    """Make secrets with ``guard.pat()``; every output given to ``guard.capture`` is checked."""
    g = SecretGuard()
    yield g
    g.check()


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository in a temp folder, with an identity and no global config."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    return repo


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A real PostgreSQL server on loopback: (superuser URL without password, password).

    ``.ci/run`` starts one (tests/pgcluster.py) and names it in ``HYGIENE_TEST_POSTGRES_URL``;
    elsewhere one is started here where PostgreSQL is installed. Under CI a missing server
    fails the run: no PostgreSQL test is skipped there.
    """
    from tests import pgcluster

    url, folder = os.environ.get("HYGIENE_TEST_POSTGRES_URL"), None
    if url:
        password = (Path(os.environ["HYGIENE_TEST_POSTGRES_DIR"]) / "password").read_text()
    else:
        try:
            import psycopg  # noqa: F401 - only to know the driver is there

            folder, url = pgcluster.start()
        except (ImportError, RuntimeError, OSError, subprocess.CalledProcessError) as exc:
            if os.environ.get("CI"):
                raise
            pytest.skip(f"no PostgreSQL here ({exc})")
        password = (folder / "password").read_text()
    pgcluster.wait_ready(url, password)
    yield url, password
    if folder is not None:
        pgcluster.stop(folder)


@pytest.fixture
def postgres_url(
    postgres_server: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A fresh, empty database on the test server; its password is in ``PGPASSWORD`` (as a team
    would set it), never in the URL."""
    import psycopg

    admin, password = postgres_server
    name = "inv_" + secrets.token_hex(6)
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    monkeypatch.setenv("PGPASSWORD", password)
    yield admin.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def inventory_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where an inventory lives, once per store: a SQLite file, then a PostgreSQL URL (the
    value users put in ``HYGIENE_INVENTORY``)."""
    if request.param == "sqlite":
        return str(tmp_path / "inventory.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def inventory(tmp_path: Path) -> Path:
    """Where the test's SQLite inventory lives (``start_watch`` points the watcher at it)."""
    return tmp_path / "inventory.sqlite3"


@pytest.fixture
def watch_processes(guard: SecretGuard, tmp_path: Path) -> Iterator[Callable[..., Watch]]:
    """``start(*args, env=..., stdin=None)``: a ``hygiene watch --format json ARGS`` in
    tmp_path with exactly ``env`` (see :func:`tests.helpers.start_watch_process`); whichever
    still runs at teardown is killed."""
    running: list[Watch] = []

    def start(*args: str, env: dict[str, str], stdin: int | None = None) -> Watch:
        watch = start_watch_process(args, cwd=tmp_path, env=env, guard=guard, stdin=stdin)
        running.append(watch)
        return watch

    yield start
    for watch in running:
        if watch.proc.poll() is None:
            watch.proc.kill()
            watch.proc.wait()


@pytest.fixture
def start_watch(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    watch_processes: Callable[..., Watch],
) -> Callable[..., Watch]:
    """``start(*args, env=None, stdin=None)``: a watcher against the stand-in, on the
    ``inventory`` fixture's file; ``env`` adds to the environment."""
    guard.remember(control_plane.password)
    base = {**os.environ, **control_plane.env(), "HYGIENE_INVENTORY": str(inventory)}

    def start(*args: str, env: dict[str, str] | None = None, stdin: int | None = None) -> Watch:
        return watch_processes(*args, env={**base, **(env or {})}, stdin=stdin)  # type: ignore[no-any-return]

    return start
