"""One inventory for a team: many machines create tokens into one PostgreSQL database, a
responder on another machine resolves and revokes them, and nothing leaks on the way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import REVOKED, open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene

CREATE = ("tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "5")


def _spellings(url: str) -> list[str]:
    """Several URLs a team's machines might use for the same database."""
    parts = urllib.parse.urlsplit(url)
    return [
        url,
        url.replace("postgresql://", "postgres://", 1),
        url + "?application_name=ci-runner",
        urllib.parse.urlunsplit(
            parts._replace(netloc=parts.netloc.replace("127.0.0.1", "localhost"))
        ),
    ]


def test_concurrent_creates_from_several_machines_lose_nothing_and_a_responder_revokes_them(
    control_plane: ControlPlane, postgres_url: str, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    run_hygiene(guard, "inventory", "migrate", env={"HYGIENE_INVENTORY": postgres_url})
    base = {k: v for k, v in os.environ.items() if not k.startswith("AIC_")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "hygiene", *CREATE],
            env={**base, **control_plane.env(), "HYGIENE_INVENTORY": url},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for url in _spellings(postgres_url) * 2
    ]
    values = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        (value,) = out.decode().splitlines()
        values.append(guard.remember(value))
        guard.capture(err)
    with open_inventory(postgres_url, create=False) as inventory:
        recorded = {e.fingerprint for e in inventory.entries()}
    assert recorded == {fingerprint(v) for v in values}

    # They leak; a CI scan reports them; the responder's machine has only that report and the
    # shared URL.
    (tmp_path / "leak.env").write_text("".join(f"TOKEN_{n}={v}\n" for n, v in enumerate(values)))
    report = tmp_path / "report.json"
    scan = run_hygiene(
        guard, "scan", "--format", "json", "--output", str(report), str(tmp_path / "leak.env")
    )
    assert scan.returncode == 1, scan.stderr
    proc = run_hygiene(
        guard,
        str(report),
        "--format",
        "json",
        "--yes",
        env={**control_plane.env(), "HYGIENE_INVENTORY": postgres_url},
        prog="revoke-leaked",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["revoked"] == len(values)
    assert summary["unresolved"] == 0
    with open_inventory(postgres_url, create=False) as inventory:
        assert {e.state for e in inventory.entries()} == {REVOKED}


def test_the_url_password_is_never_printed(postgres_url: str, guard: SecretGuard) -> None:
    password = guard.remember(os.environ["PGPASSWORD"])
    parts = urllib.parse.urlsplit(postgres_url)
    with_password = urllib.parse.urlunsplit(
        parts._replace(
            netloc=f"{parts.username}:{urllib.parse.quote(password)}@{parts.hostname}:{parts.port}"
        )
    )
    env = {"HYGIENE_INVENTORY": with_password, "PGPASSWORD": ""}
    for args in (("inventory", "migrate"), ("tokens", "list"), ("tokens", "export")):
        proc = run_hygiene(guard, *args, env=env)
        assert proc.returncode == 0, proc.stderr
    wrong = with_password.replace(
        urllib.parse.quote(password), "not-" + urllib.parse.quote(password)
    )
    guard.remember("not-" + password)
    proc = run_hygiene(guard, "tokens", "list", env={"HYGIENE_INVENTORY": wrong, "PGPASSWORD": ""})
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("hygiene: error: cannot reach token inventory postgresql://")


def test_an_unreachable_server_is_one_line_exit_2(tmp_path: Path, guard: SecretGuard) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://aic@127.0.0.1:{port}/tokens"
    for args in (("tokens", "list"), ("tokens", "export"), ("inventory", "migrate")):
        proc = run_hygiene(guard, *args, env={"HYGIENE_INVENTORY": url})
        assert proc.returncode == 2
        (line,) = proc.stderr.decode().splitlines()
        assert "cannot reach token inventory" in line
        assert "Traceback" not in line


def test_a_database_holding_other_tables_is_not_taken_over(
    postgres_url: str, guard: SecretGuard
) -> None:
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    proc = run_hygiene(guard, "inventory", "migrate", env={"HYGIENE_INVENTORY": postgres_url})
    assert proc.returncode == 2
    assert "not a token inventory" in proc.stderr.decode()
    with psycopg.connect(postgres_url) as conn:
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert tables == {"invoices"}


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_reader_of_an_empty_store_is_told_what_to_do(
    store: str, tmp_path: Path, request: pytest.FixtureRequest, guard: SecretGuard
) -> None:
    if store == "sqlite":
        proc = run_hygiene(
            guard, "tokens", "list", env={"HYGIENE_INVENTORY": str(tmp_path / "x.db")}
        )
        assert proc.returncode == 0
        assert "no tokens in" in proc.stderr.decode()
        return
    url = request.getfixturevalue("postgres_url")
    proc = run_hygiene(guard, "tokens", "list", env={"HYGIENE_INVENTORY": url})
    assert proc.returncode == 2
    assert "hygiene inventory migrate" in proc.stderr.decode()


def test_a_database_stopped_mid_run_gives_one_line_and_nothing_half_written(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import pgcluster

    folder, admin = pgcluster.start()
    try:
        password = (folder / "password").read_text()
        pgcluster.wait_ready(admin, password)
        monkeypatch.setenv("PGPASSWORD", password)
        env = {**control_plane.env(), "HYGIENE_INVENTORY": admin}
        guard.remember(control_plane.password)
        values = []
        for _ in range(2):
            made = run_hygiene(None, *CREATE, env=env)
            assert made.returncode == 0, made.stderr
            values.append(guard.remember(made.stdout.decode().strip()))
        report = tmp_path / "report.json"
        report.write_text(
            json.dumps({"findings": [{"fingerprint": fingerprint(v)} for v in values]})
        )
        # The database goes away while revoke-leaked is talking to the service: the service
        # revokes, the inventory cannot record it.
        revoke = control_plane.state.revoke_pat

        lost = threading.Lock()

        def revoke_then_lose_the_database(org_id: str, token_id: str) -> bool:
            with lost:  # the first DELETE takes the database down; the others find it gone
                if (folder / "data" / "postmaster.pid").exists():
                    pgcluster.stop_server(folder)
            return revoke(org_id, token_id)

        monkeypatch.setattr(control_plane.state, "revoke_pat", revoke_then_lose_the_database)
        proc = run_hygiene(guard, str(report), "--yes", env=env, prog="revoke-leaked")
        # Revoked at the service, not recorded: not a clean run (exit 1), said in one line.
        assert proc.returncode == 1
        # One line for each burst of answers it could not record, each naming the inventory.
        errors = [line for line in proc.stderr.decode().splitlines() if "recorded" in line]
        assert errors, proc.stderr
        assert all("could not be recorded" in e and "token inventory" in e for e in errors)
        assert "Traceback" not in proc.stderr.decode()
        # Back up: every record is whole, and none says revoked for a DELETE it never saw.
        pgcluster.start_server(folder)
        pgcluster.wait_ready(admin, password)
        with open_inventory(admin, create=False) as inventory:
            entries = inventory.entries()
        assert {e.fingerprint for e in entries} == {fingerprint(v) for v in values}
        assert all(e.state in ("active", REVOKED) for e in entries)
    finally:
        pgcluster.stop(folder)


def test_two_responders_at_once_end_every_token_revoked(
    control_plane: ControlPlane, postgres_url: str, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    values = []
    with open_inventory(postgres_url) as inventory:
        for n in range(6):
            pat, value = control_plane.state.create_pat(
                control_plane.email, "org_main", f"t{n}", ["safes:read"], 30
            )
            inventory.add(
                pat.token_id, guard.remember(value), name=f"t{n}", scopes=[], expires_at=None
            )
            values.append(value)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"findings": [{"fingerprint": fingerprint(v)} for v in values]}))
    env = {**os.environ, **control_plane.env(), "HYGIENE_INVENTORY": postgres_url}
    entry = "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", entry, str(report), "--yes", "--format", "json"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        guard.capture(out, err)
        assert proc.returncode == 0, err
        # Each token ends revoked by one run and not_found (already gone) for the other.
        summary = json.loads(out)["summary"]
        assert summary["revoked"] + summary["not_found"] == len(values)
    with open_inventory(postgres_url, create=False) as inventory:
        assert {e.state for e in inventory.entries()} == {REVOKED}
