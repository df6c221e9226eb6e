"""A plain scan loads only what it uses: archive, compression and report modules are imported
when an input or an option needs them (each costs every start-up a few milliseconds)."""

from __future__ import annotations

import gzip
import subprocess
import sys
import zipfile
from pathlib import Path

# Modules a scan of plain text with a text report never needs.
LAZY = ("tarfile", "zipfile", "tempfile", "bz2", "lzma", "json", "httpx", "hygiene.api")

# Modules the interpreter's start-up loaded (an editable install's finder imports zipfile and
# tempfile through importlib.resources) are forgotten first: an import by the scan loads them
# again.
_PROBE = """
import sys
lazy = {lazy!r}
for name in [n for n in sys.modules if n.split(".")[0] in lazy]:
    del sys.modules[name]
from hygiene.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(",".join(m for m in lazy if m in sys.modules))
"""


def _loaded(*args: str, cwd: Path) -> set[str]:
    probe = _PROBE.format(lazy=LAZY)
    proc = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, check=True, text=True
    )
    assert "in 1 file," in proc.stderr  # the scan ran (its summary line)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return set(filter(None, last.split(",")))


def test_a_plain_scan_imports_no_archive_compression_or_json_module(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("print('hello')\n")
    assert _loaded("scan", "--no-config", "app.py", cwd=tmp_path) == set()


def test_the_modules_are_imported_when_an_input_needs_them(tmp_path: Path) -> None:
    # The probe must be able to fail: a zip input and a json report do load theirs.
    inner = gzip.compress(b"hello\n")
    with zipfile.ZipFile(tmp_path / "bundle.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("logs/app.log.gz", inner)
    loaded = _loaded("scan", "--no-config", "--format", "json", "bundle.zip", cwd=tmp_path)
    assert {"json", "zipfile"} <= loaded
    assert "httpx" not in loaded
