"""Which scan settings a change edits: prints ``.hygiene.toml`` and/or ``pyproject.toml``.

Usage: settings_changed.py BASE_DIR ROOT. BASE_DIR holds the base revision's copies of the
two files (absent when the base has none), ROOT is the work tree being scanned. A
``pyproject.toml`` counts as changed when its ``[tool.hygiene]`` table (however it is
spelled: a header, dotted keys, an inline table) differs; an unreadable file counts as
changed when its bytes differ. Run by action/scan.sh with the action's own interpreter.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # the action's requirements install tomli on 3.10
    import tomli as tomllib


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _table(data: bytes) -> Any:
    doc = tomllib.loads(data.decode("utf-8"))
    tool = doc.get("tool", {})
    return tool.get("hygiene") if isinstance(tool, dict) else tool


def changed(base_dir: Path, root: Path) -> list[str]:
    """The names of the settings files whose scan settings differ between the two trees."""
    names = []
    base, head = _read(base_dir / ".hygiene.toml"), _read(root / ".hygiene.toml")
    if base != head:
        names.append(".hygiene.toml")
    base, head = _read(base_dir / "pyproject.toml"), _read(root / "pyproject.toml")
    if base != head:
        try:
            tables = [_table(data) if data is not None else None for data in (base, head)]
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            tables = [base, head]  # unreadable: any change to its bytes counts
        if tables[0] != tables[1]:
            names.append("pyproject.toml")
    return names


if __name__ == "__main__":
    for name in changed(Path(sys.argv[1]), Path(sys.argv[2])):
        print(name)
