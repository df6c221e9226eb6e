"""A PostgreSQL inventory without psycopg: one line naming what an index can install."""

from __future__ import annotations

import os
import subprocess
import sys

# psycopg made unimportable, as in an install without the postgres extra.
RUN = (
    "import sys; sys.modules['psycopg'] = None\n"
    "from hygiene.cli import main\n"
    "sys.exit(main(['tokens', 'list']))\n"
)


def test_a_postgres_url_without_the_driver_names_the_requirement() -> None:
    env = {**os.environ, "HYGIENE_INVENTORY": "postgresql://inventory@127.0.0.1:9/none"}
    proc = subprocess.run(
        [sys.executable, "-c", RUN], capture_output=True, env=env, timeout=120, check=False
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    [line] = err.splitlines()
    assert line.startswith("hygiene: error: ")
    assert "pip install 'psycopg[binary]>=3.1' (the postgres extra)" in line
    assert "aic-token-hygiene[" not in line  # no index has the toolkit
