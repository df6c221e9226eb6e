"""Schema versions on both stores: an old inventory is upgraded, a newer one is refused in one
line; export and import carry records between stores without a value."""

from __future__ import annotations

import json
import secrets
import sqlite3
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import LATEST, REVOKED, open_inventory
from hygiene.inventory.schema import MIGRATIONS
from tests.helpers import SecretGuard, run_hygiene


def _execute(location: str, *statements: str) -> None:
    if "://" in location:
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)
    else:
        with sqlite3.connect(location) as db:
            for statement in statements:
                db.execute(statement)


def _set_version(location: str, version: int) -> None:
    if "://" in location:
        _execute(
            location,
            "CREATE TABLE IF NOT EXISTS hygiene_schema (version INTEGER NOT NULL)",
            "DELETE FROM hygiene_schema",
            f"INSERT INTO hygiene_schema VALUES ({version})",
        )
    else:
        _execute(location, f"PRAGMA user_version = {version}")


def test_a_version_1_inventory_is_upgraded_and_keeps_its_records(
    inventory_location: str, guard: SecretGuard
) -> None:
    # What every release before the claims table wrote: version 1, the tokens table alone.
    _execute(inventory_location, *MIGRATIONS[1])
    _set_version(inventory_location, 1)
    value = guard.pat()
    _execute(
        inventory_location,
        "INSERT INTO tokens VALUES ('tok_old', 'old', '[]', NULL, 'active', 'org_main', "
        f"'{fingerprint(value)}', '{'0' * 40}', '2026-01-01T00:00:00+00:00', "
        "'2026-01-01T00:00:00+00:00')",
    )
    proc = run_hygiene(guard, "inventory", "migrate", env={"HYGIENE_INVENTORY": inventory_location})
    assert proc.returncode == 0, proc.stderr
    assert f"schema version 1 -> {LATEST}" in proc.stderr.decode()
    with open_inventory(inventory_location, create=False) as inventory:
        assert inventory.schema_version() == LATEST
        entry = inventory.by_fingerprint(fingerprint(value))
        assert entry is not None
        assert entry.token_id == "tok_old"
        assert inventory.claim(fingerprint(value), "me") == (True, None)


@pytest.mark.parametrize(
    "command", [("tokens", "list"), ("tokens", "export"), ("inventory", "migrate")]
)
def test_a_newer_schema_is_refused_in_one_line(
    inventory_location: str, command: tuple[str, str], guard: SecretGuard
) -> None:
    with open_inventory(inventory_location):
        pass
    _set_version(inventory_location, LATEST + 1)
    proc = run_hygiene(guard, *command, env={"HYGIENE_INVENTORY": inventory_location})
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert f"schema version {LATEST + 1}, newer than this aic-token-hygiene" in line


def _other(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A second, empty store of ``kind``: a file, or a second database on the test server."""
    if kind == "sqlite":
        return str(tmp_path / "other.sqlite3")
    import psycopg

    admin, password = request.getfixturevalue("postgres_server")
    request.getfixturevalue("monkeypatch").setenv("PGPASSWORD", password)
    name = "other_" + secrets.token_hex(6)
    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    request.addfinalizer(lambda: _drop(admin, password, name))
    return admin.rsplit("/", 1)[0] + "/" + name


def _drop(admin: str, password: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, password=password, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.mark.parametrize("target", ["sqlite", "postgresql"])
def test_export_then_import_moves_every_record_and_no_value(
    inventory_location: str,
    target: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    guard: SecretGuard,
) -> None:
    destination = _other(target, tmp_path, request)
    values = [guard.pat() for _ in range(3)]
    with open_inventory(inventory_location) as inventory:
        for n, value in enumerate(values):
            inventory.add(f"tok_{n}", value, name=f"n{n}", scopes=["safes:read"], expires_at=None)
        inventory.mark(["tok_2"], REVOKED)
    exported = run_hygiene(guard, "tokens", "export", env={"HYGIENE_INVENTORY": inventory_location})
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.decode().splitlines()
    assert [json.loads(line)["token_id"] for line in lines] == ["tok_0", "tok_1", "tok_2"]
    dump = tmp_path / "tokens.jsonl"
    dump.write_bytes(exported.stdout)
    imported = run_hygiene(
        guard, "tokens", "import", str(dump), env={"HYGIENE_INVENTORY": destination}
    )
    assert imported.returncode == 0, imported.stderr
    assert "3 added, 0 updated" in imported.stderr.decode()
    with open_inventory(destination, create=False) as inventory:
        moved = {e.token_id: e for e in inventory.entries()}
    assert {t: e.fingerprint for t, e in moved.items()} == {
        f"tok_{n}": fingerprint(v) for n, v in enumerate(values)
    }
    assert moved["tok_2"].state == REVOKED
    # Importing again changes nothing; an older "active" copy never revives a revoked token.
    again = run_hygiene(
        guard, "tokens", "import", str(dump), env={"HYGIENE_INVENTORY": destination}
    )
    assert "0 added, 0 updated, 3 unchanged" in again.stderr.decode()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not a JSON object"),
        ('{"token_id": "x"}', "expected an object with exactly"),
        ("VALUE", "token value, not a token id"),
        ('["a list"]', "expected an object"),
    ],
)
def test_an_import_with_one_bad_line_writes_nothing(
    inventory_location: str, line: str, why: str, tmp_path: Path, guard: SecretGuard
) -> None:
    good = {
        "token_id": "tok_ok", "name": "n", "scopes": [], "expires_at": None, "state": "active",
        "org_id": None, "fingerprint": "sha256:" + "1" * 64, "sha1": "2" * 40,
        "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    if line == "VALUE":
        line = json.dumps({**good, "token_id": guard.pat()})
    dump = tmp_path / "bad.jsonl"
    dump.write_text(json.dumps(good) + "\n" + line + "\n")
    proc = run_hygiene(
        guard, "tokens", "import", str(dump), env={"HYGIENE_INVENTORY": inventory_location}
    )
    assert proc.returncode == 2
    (message,) = proc.stderr.decode().splitlines()
    assert "line 2" in message
    assert why in message
    with open_inventory(inventory_location) as inventory:
        assert inventory.entries() == []
