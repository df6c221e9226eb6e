"""``hygiene.masking`` imports and masks on every other CPython the package supports (3.10 on)
that this machine has: the suite itself runs on one version, and a regex written in 3.11's
syntax once broke ``import hygiene.masking`` on 3.10 unseen."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, SecretGuard

SUPPORTED = ("3.10", "3.12", "3.13")  # pyproject's requires-python, less the suite's own


def _interpreter(version: str) -> str | None:
    if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
        return None
    candidates = [shutil.which(f"python{version}") or ""]
    # pyenv keeps versions it does not put on PATH (its shims answer "command not found").
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates += sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"))
    for path in candidates:
        if path and subprocess.run([path, "-c", ""], capture_output=True).returncode == 0:
            return path
    return None


FOUND = {v: p for v in SUPPORTED if (p := _interpreter(v)) is not None}

# The package's own imports only (no third-party one is installed for those interpreters):
# mask(), and a record through the filter (the Python twins: the extension in the tree is
# built for this interpreter alone).
SCRIPT = """
import io, logging, sys
sys.path.insert(0, sys.argv[1])
from hygiene.masking import RedactingFilter, mask
from hygiene.masking.fastpath import COMPILED
sink = io.StringIO()
handler = logging.StreamHandler(sink)
handler.addFilter(RedactingFilter())
logger = logging.Logger("v")
logger.addHandler(handler)
logger.warning("created %s for %s", sys.argv[2], "alice")
logger.warning("user %s logged in", "alice")
print(mask("password=" + sys.argv[2] + " <password>x</password>"))
print(sink.getvalue(), end="")
"""


@pytest.mark.skipif(not FOUND, reason="no other supported CPython on this machine")
@pytest.mark.parametrize("version", sorted(FOUND))
def test_masking_works_on_every_supported_python_here(version: str, guard: SecretGuard) -> None:
    pat = guard.pat()
    done = subprocess.run(
        [FOUND[version], "-c", SCRIPT, str(REPO_ROOT), pat],
        capture_output=True,
        text=True,
        timeout=120,
    )
    guard.capture(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "password=… <password>…</password>",
        f"created {pat[:8]}…{pat[-4:]} for alice",
        "user alice logged in",
    ]
