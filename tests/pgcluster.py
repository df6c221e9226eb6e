"""A throwaway PostgreSQL cluster for the inventory tests: Debian's ``postgresql`` binaries,
owned by an unprivileged user, listening on a free loopback port, password authentication.

``.ci/run`` starts one (``eval "$(python -m tests.pgcluster start)"`` sets its folder and URL,
without the password: that is in ``$HYGIENE_TEST_POSTGRES_DIR/password``) and stops it at
the end; a developer's run without
``HYGIENE_TEST_POSTGRES_URL`` gets one started by the session fixture instead.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUPERUSER = "hygiene_admin"


def bindir() -> Path | None:
    """The newest installed PostgreSQL's binaries, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major)
    return Path(found[-1]).parent if found else None


def _major(path: str) -> int:
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


def _owner() -> tuple[list[str], int, int]:
    """How to run as the cluster's unprivileged owner: initdb refuses root."""
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    user = pwd.getpwnam("postgres")
    return ["runuser", "-u", "postgres", "--"], user.pw_uid, user.pw_gid


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(*, durable: bool = False) -> tuple[Path, str]:
    """Create and start a cluster in a new folder of the system's temp folder (its owner must
    reach it); return the folder and the URL (no password in it: see ``folder/password``).
    ``durable``: fsync on, as a production server runs (the tests run without it)."""
    bins = bindir()
    if bins is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    prefix, uid, gid = _owner()
    root = Path(tempfile.mkdtemp(prefix="hygiene-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir(exist_ok=True)
    password = secrets.token_urlsafe(24)
    (root / "password").write_text(password)
    pwfile = root / "pwfile"
    pwfile.write_text(password + "\n")
    for p in (root, sockets, pwfile):
        os.chown(p, uid, gid)
    subprocess.run(
        [*prefix, str(bins / "initdb"), "-D", str(data), "-U", SUPERUSER, "--pwfile", str(pwfile),
         "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"],
        check=True, capture_output=True,
    )  # fmt: skip
    pwfile.unlink()
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={sockets} -c fsync={'on' if durable else 'off'} -c max_connections=200"
    (root / "options").write_text(options)
    subprocess.run(
        [*prefix, str(bins / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
         "-w", "-t", "60", "start"],
        check=True, capture_output=True,
    )  # fmt: skip
    (root / "port").write_text(str(port))
    return root, f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"


def _pg_ctl(root: Path, *args: str) -> None:
    bins = bindir()
    if bins is None:
        raise RuntimeError("PostgreSQL is not installed")
    prefix, _, _ = _owner()
    subprocess.run([*prefix, str(bins / "pg_ctl"), "-D", str(root / "data"), *args],
                   check=True, capture_output=True)  # fmt: skip


def stop_server(root: Path) -> None:
    """Stop the server at once, keeping its data (a database that goes away mid-run)."""
    _pg_ctl(root, "-m", "immediate", "-w", "stop")


def start_server(root: Path) -> None:
    """Start a stopped server again, on its port."""
    options = (root / "options").read_text()
    _pg_ctl(root, "-o", options, "-l", str(root / "log"), "-w", "-t", "60", "start")


def stop(root: Path) -> None:
    bins = bindir()
    if bins is None or not (root / "data").exists():
        return
    prefix, _, _ = _owner()
    subprocess.run(
        [*prefix, str(bins / "pg_ctl"), "-D", str(root / "data"), "-m", "immediate", "-w", "stop"],
        check=False, capture_output=True,
    )  # fmt: skip
    shutil.rmtree(root, ignore_errors=True)


def wait_ready(url: str, password: str, seconds: float = 30) -> None:
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, password=password, connect_timeout=5).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


if __name__ == "__main__":
    # start: prints shell lines to eval; stop DIR: stops and removes the cluster in DIR.
    if sys.argv[1] == "start":
        folder, address = start()
        print(f"export HYGIENE_TEST_POSTGRES_DIR={folder} HYGIENE_TEST_POSTGRES_URL={address}")
    else:
        stop(Path(sys.argv[2]))
