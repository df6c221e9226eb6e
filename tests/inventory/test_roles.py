"""Least privilege, as docs/team-inventory.md prints it: its SQL runs here as written, then each
role does its duty through the real commands and is refused the rest in one line."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import REVOKED, open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import REPO_ROOT, SecretGuard, run_hygiene

DOC = REPO_ROOT / "docs" / "team-inventory.md"
LOGINS = ("aic_owner", "ci_creator", "oncall_responder", "watch_sidecar")
# Roles and databases belong to the whole server: two test runs sharing one (CI's) would drop
# each other's. Every name the page's SQL gives is made this run's own with a suffix.
RUN = "_" + secrets.token_hex(4)
_NAMES = re.compile(r"\b(aic_tokens|aic_creators|aic_responders|" + "|".join(LOGINS) + r")\b")


def own(sql: str) -> str:
    """``sql`` with the page's role and database names made this run's own."""
    return _NAMES.sub(lambda m: m.group(1) + RUN, sql)


def _sql_blocks() -> list[list[str]]:
    """Each ```sql block of the page as its statements (comment lines dropped)."""
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    code = ["\n".join(x for x in b.splitlines() if not x.lstrip().startswith("--")) for b in blocks]
    return [[s for s in c.split(";") if s.strip()] for c in code]


def _drop_all(conn: object) -> None:
    run = conn.execute  # type: ignore[attr-defined]
    run(own("DROP DATABASE IF EXISTS aic_tokens WITH (FORCE)"))
    for role in (*LOGINS, "aic_creators", "aic_responders"):
        run(own(f"DROP ROLE IF EXISTS {role}"))


@pytest.fixture(scope="module")
def team(postgres_server: tuple[str, str]) -> Iterator[dict[str, str]]:
    """The documented setup on the test server; each login's URL (password in PGPASSWORD)."""
    import psycopg

    admin, password = postgres_server
    superuser_block, owner_block = _sql_blocks()
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        _drop_all(conn)
        for statement in superuser_block:
            conn.execute(own(statement))
        for role in LOGINS:
            conn.execute(own(f"ALTER ROLE {role} PASSWORD '{password}'"))
    host = admin.split("@", 1)[1].rsplit("/", 1)[0]
    urls = {role: own(f"postgresql://{role}@{host}/aic_tokens") for role in LOGINS}
    env = {"HYGIENE_INVENTORY": urls["aic_owner"], "PGPASSWORD": password}
    proc = run_hygiene(None, "inventory", "migrate", env=env)
    assert proc.returncode == 0, proc.stderr
    with psycopg.connect(urls["aic_owner"], password=password, autocommit=True) as conn:
        for statement in owner_block:
            conn.execute(own(statement))
    yield {**urls, "password": password}
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        _drop_all(conn)


def _env(team: dict[str, str], role: str, plane: ControlPlane | None = None) -> dict[str, str]:
    env = {"HYGIENE_INVENTORY": team[role], "PGPASSWORD": team["password"]}
    return {**(plane.env() if plane else {}), **env}


def test_the_documented_sql_is_two_blocks() -> None:
    assert len(_sql_blocks()) == 2


def test_a_creator_creates_and_a_responder_revokes(
    team: dict[str, str],
    control_plane: ControlPlane,
    tmp_path: Path,
    guard: SecretGuard,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guard.remember(control_plane.password)
    monkeypatch.setenv("PGPASSWORD", team["password"])
    proc = run_hygiene(
        None,
        "tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "5",
        env=_env(team, "ci_creator", control_plane),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    value = guard.remember(proc.stdout.decode().strip())
    guard.capture(proc.stderr)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"findings": [{"fingerprint": fingerprint(value)}]}))
    proc = run_hygiene(
        guard, str(report), "--yes", env=_env(team, "oncall_responder", control_plane),
        prog="revoke-leaked",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with open_inventory(team["oncall_responder"], create=False) as inventory:
        entry = inventory.by_fingerprint(fingerprint(value))
    assert entry is not None
    assert entry.state == REVOKED


def test_a_responder_cannot_add_or_delete_records(
    team: dict[str, str], guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    proc = run_hygiene(
        guard, "tokens", "register", "--token-id", "tok_sneaky",
        input=(guard.pat() + "\n").encode(), env=_env(team, "watch_sidecar"),
    )  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert "permission denied" in line
    url = team["oncall_responder"]
    with (
        psycopg.connect(url, password=team["password"]) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("DELETE FROM tokens")
    monkeypatch.setenv("PGPASSWORD", team["password"])
    with open_inventory(team["watch_sidecar"], create=False) as inventory:
        assert inventory.claim("sha256:" + "a" * 64, "sidecar-1") == (True, None)
        assert inventory.claim("sha256:" + "a" * 64, "sidecar-2") == (False, None)
        inventory.settle("sha256:" + "a" * 64, "sidecar-1", "revoked")
        assert inventory.claim("sha256:" + "a" * 64, "sidecar-2") == (False, "revoked")


def test_a_creator_cannot_migrate(team: dict[str, str], guard: SecretGuard) -> None:
    import psycopg

    with psycopg.connect(team["aic_owner"], password=team["password"], autocommit=True) as conn:
        conn.execute("UPDATE hygiene_schema SET version = 1")
    try:
        proc = run_hygiene(guard, "inventory", "migrate", env=_env(team, "ci_creator"))
        assert proc.returncode == 2
        (line,) = proc.stderr.decode().splitlines()
        assert "permission denied" in line
    finally:
        with psycopg.connect(team["aic_owner"], password=team["password"], autocommit=True) as c:
            c.execute("UPDATE hygiene_schema SET version = 2")


def test_a_record_the_shared_inventory_refuses_goes_to_the_local_file(
    team: dict[str, str], control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:  # the local file needs no password
    guard.remember(control_plane.password)
    env = {**_env(team, "oncall_responder", control_plane), "XDG_DATA_HOME": str(tmp_path)}
    proc = run_hygiene(
        None, "tokens", "create", "--name", "x", "--scope", "safes:read", "--days", "5", env=env
    )
    assert proc.returncode == 2
    value = guard.remember(proc.stdout.decode().strip())
    guard.capture(proc.stderr)
    assert "recorded in" in proc.stderr.decode()
    local = tmp_path / "aic-token-hygiene" / "inventory.sqlite3"
    with open_inventory(local, create=False) as inventory:
        assert inventory.by_fingerprint(fingerprint(value)) is not None


def test_a_value_no_inventory_takes_is_never_shown_and_the_token_is_revoked(
    team: dict[str, str], control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the local inventory's folder would be")
    env = {**_env(team, "oncall_responder", control_plane), "XDG_DATA_HOME": str(blocked)}
    before = {p.token_id for p in control_plane.state.pats()}
    proc = run_hygiene(
        guard, "tokens", "create", "--name", "x", "--scope", "safes:read", "--days", "5", env=env
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert "never shown" in proc.stderr.decode()
    (new,) = [p for p in control_plane.state.pats() if p.token_id not in before]
    assert new.revoked
