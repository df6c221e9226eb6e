"""The token inventory, on both stores: fingerprints not values, states, the listing, where it
lives by default, concurrency, corruption."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hygiene.detection import fingerprint, sha1_hex
from hygiene.errors import InputError
from hygiene.inventory import (
    ACTIVE,
    EXPIRED,
    REVOKED,
    Location,
    default_location,
    open_inventory,
)
from tests.helpers import SecretGuard, run_hygiene


def days_from_now(days: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=days)).isoformat()


def _dump(location: str) -> bytes:
    """Everything the store holds, as bytes: the file, or every row of every table."""
    if "://" not in location:
        return Path(location).read_bytes()
    import psycopg

    with psycopg.connect(location) as conn:
        rows = [conn.execute(f"SELECT * FROM {t}").fetchall() for t in ("tokens", "claims")]
    return repr(rows).encode()


def test_records_fingerprints_never_the_value(inventory_location: str, guard: SecretGuard) -> None:
    value = guard.pat()
    with open_inventory(inventory_location) as inventory:
        entry = inventory.add(
            "tok_1",
            value,
            name="ci",
            scopes=["safes:read"],
            expires_at=days_from_now(30),
            org_id="org_main",
        )
        assert entry.fingerprint == fingerprint(value)
        assert inventory.by_fingerprint(fingerprint(value)) == entry
        assert inventory.by_fingerprint(sha1_hex(value)) == entry
        assert inventory.by_fingerprint("sha256:" + "0" * 64) is None
        assert inventory.get("tok_1") == entry
    guard.capture(_dump(inventory_location))
    if "://" not in inventory_location:
        assert oct(Path(inventory_location).stat().st_mode)[-3:] == "600"


def test_states_and_near_expiry(inventory_location: str, guard: SecretGuard) -> None:
    now = datetime.now(timezone.utc)
    with open_inventory(inventory_location) as inventory:
        soon = inventory.add("a", guard.pat(), name="a", scopes=[], expires_at=days_from_now(3))
        later = inventory.add("b", guard.pat(), name="b", scopes=[], expires_at=days_from_now(90))
        past = inventory.add("c", guard.pat(), name="c", scopes=[], expires_at=days_from_now(-1))
        assert inventory.mark(["b", "unknown"], REVOKED) == 1
        revoked = inventory.get("b")
    assert (soon.current_state(now), soon.near_expiry(now)) == (ACTIVE, True)
    assert (later.current_state(now), later.near_expiry(now)) == (ACTIVE, False)
    assert past.current_state(now) == EXPIRED
    assert revoked is not None
    assert revoked.state == REVOKED


def test_tokens_list_is_a_table_with_a_header(inventory_location: str, guard: SecretGuard) -> None:
    with open_inventory(inventory_location) as inventory:
        inventory.add(
            "tok_soon", guard.pat(), name="ci", scopes=["safes:read"], expires_at=days_from_now(3)
        )
        inventory.add(
            "tok_a_longer_id", guard.pat(), name="deploy", scopes=[], expires_at=days_from_now(90)
        )
    proc = run_hygiene(guard, "tokens", "list", env={"HYGIENE_INVENTORY": inventory_location})
    assert proc.returncode == 0
    # Where the inventory lives, on stderr (a URL without any password).
    assert (
        proc.stderr.decode().splitlines()[0]
        == f"inventory: {Location(url=inventory_location) if '://' in inventory_location else inventory_location}"
    )
    header, *rows = proc.stdout.decode().splitlines()
    assert header.split() == ["TOKEN", "ID", "STATE", "EXPIRES", "FINGERPRINT", "NAME", "[SCOPES]"]
    assert [row.split()[:2] for row in rows] == [
        ["tok_soon", "active"],
        ["tok_a_longer_id", "active"],
    ]
    # Columns line up under the header, whatever the ids' lengths.
    state_at = header.index("STATE")
    assert all(row[state_at:].startswith("active") for row in rows)
    assert rows[0].endswith("ci [safes:read]  (expires soon)")
    assert rows[1].endswith("deploy []")


@pytest.mark.parametrize(
    ("env", "platform", "expected"),
    [
        ({"HYGIENE_INVENTORY": "/x/inv.db"}, "linux", "/x/inv.db"),
        ({"HOME": "/h", "XDG_DATA_HOME": "/d"}, "linux", "/d/aic-token-hygiene/inventory.sqlite3"),
        ({"HOME": "/h"}, "linux", "/h/.local/share/aic-token-hygiene/inventory.sqlite3"),
        (
            {"HOME": "/h"},
            "darwin",
            "/h/Library/Application Support/aic-token-hygiene/inventory.sqlite3",
        ),
        ({"HOME": "/h", "LOCALAPPDATA": "/l"}, "win32", "/l/aic-token-hygiene/inventory.sqlite3"),
    ],
)
def test_default_location(env: dict[str, str], platform: str, expected: str) -> None:
    assert default_location(env, platform) == Location(path=Path(expected))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://aic@db.internal/tokens", "postgresql://aic@db.internal/tokens"),
        ("postgres://aic:s3cret@db.internal:6432/t", "postgres://aic@db.internal:6432/t"),
        ("postgresql://db/t?sslmode=verify-full&password=s3cret", "postgresql://db/t"),
        ("postgresql://[::1]:5432/t", "postgresql://[::1]:5432/t"),
    ],
)
def test_a_postgresql_url_is_shown_without_its_password(url: str, shown: str) -> None:
    location = default_location({"HYGIENE_INVENTORY": url}, "linux")
    assert location.is_postgres
    assert location.display == shown
    assert "s3cret" not in repr(location) + str(location)


def test_corrupt_file_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "inv.sqlite3"
    path.write_bytes(b"this is not a database, just some bytes" * 100)
    with pytest.raises(InputError, match="inventory"), open_inventory(path):
        pass
    proc = run_hygiene(None, "tokens", "list", env={"HYGIENE_INVENTORY": str(path)})
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1
    assert b"Traceback" not in proc.stderr


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE songs (title TEXT)")
    with pytest.raises(InputError, match="not a token inventory"), open_inventory(path):
        pass


WRITER = """
import secrets, sys
from hygiene.inventory import open_inventory
where, tag = sys.argv[1], sys.argv[2]
for n in range(40):
    with open_inventory(where) as inv:
        inv.add(f"{tag}-{n}", "pat_AIC_" + secrets.token_urlsafe(24), name=tag, scopes=["x"],
                expires_at=None)
        inv.mark([f"{tag}-{n // 2}"], "revoked")
"""


def test_concurrent_processes_do_not_corrupt_it(inventory_location: str) -> None:
    with open_inventory(inventory_location):
        pass  # made first: the writers race on records, not on creating the schema
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, inventory_location, f"p{i}"], stderr=subprocess.PIPE
        )
        for i in range(4)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    with open_inventory(inventory_location) as inventory:
        entries = inventory.entries()
    assert len(entries) == 160
    assert len({e.fingerprint for e in entries}) == 160
    assert sum(e.state == REVOKED for e in entries) == 4 * 20
    if "://" not in inventory_location:
        with sqlite3.connect(inventory_location) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_readers_do_not_create_the_file(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "inv.sqlite3"
    with open_inventory(path, create=False) as inventory:
        assert inventory.entries() == []
    assert not path.parent.exists()
    proc = run_hygiene(None, "tokens", "list", env={"HYGIENE_INVENTORY": str(path)})
    assert proc.returncode == 0
    assert not path.parent.exists()
