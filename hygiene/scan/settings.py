"""The project's scan settings: ``.hygiene.toml`` or ``[tool.hygiene]`` in ``pyproject.toml``.

Found at the repository root (the git work tree's top folder, else the current folder);
``.hygiene.toml`` wins over ``pyproject.toml`` (a dedicated file is the more deliberate one).
Keys (``.hygiene.toml`` holds them at its top level)::

    [tool.hygiene]
    exclude = ["vendor/", "*.min.js"]      # globs, as --exclude (which adds to them)
    types = ["aic-pat"]                    # report only these types
    allow-paths = ['^tests/fixtures/']     # regexes searched in a finding's path
    allow-lines = ['EXAMPLE_ONLY']         # regexes searched in a finding's line
    [[tool.hygiene.allow]]                 # a fingerprint never reported, with its reason
    fingerprint = "sha256:..."
    reason = "revoked 2026-01-04, kept in a test fixture"
    [tool.hygiene.decoders]
    max_depth = 4
    max_bytes = 1073741824
    max_ratio = 1000

A broken file (bad TOML, an unknown key, a wrong type, a regex that does not compile or nests
quantifiers) is a :class:`~hygiene.errors.UsageError` naming the file and the key: exit 2.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene.detection import TYPE_IDS
from hygiene.errors import UsageError
from hygiene.scan.findings import Finding
from hygiene.scan.limits import DecodeLimits
from hygiene.scan.matcher.allowlines import check_pattern

DEDICATED = ".hygiene.toml"
PYPROJECT = "pyproject.toml"
_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")
_KEYS = frozenset({"exclude", "types", "allow-paths", "allow-lines", "allow", "decoders"})
_DECODER_KEYS = ("max_depth", "max_bytes", "max_ratio")


@dataclass(frozen=True)
class Settings:
    """What a settings file says (empty: no file, or ``--no-config``)."""

    source: str | None = None
    excludes: tuple[str, ...] = ()
    types: frozenset[str] | None = None
    allowed: Mapping[str, str] = field(default_factory=dict)  # fingerprint -> reason
    allow_paths: tuple[re.Pattern[str], ...] = ()
    allow_lines: tuple[re.Pattern[bytes], ...] = ()
    limits: DecodeLimits | None = None


def repository_root(cwd: Path) -> Path:
    """Where the settings file lives: the top of the git work tree holding ``cwd`` (what
    ``git rev-parse --show-toplevel`` prints: the nearest folder with a ``.git`` folder or
    file, as in worktrees and submodules), else ``cwd``. Looked up without running git: a
    pre-commit run would pay a process start for it."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def keeps(settings: Settings, finding: Finding) -> bool:
    """Whether ``finding`` is reported under ``settings`` (its type reported, its
    fingerprint not allowed, its path not allowlisted)."""
    if settings.types is not None and finding.type not in settings.types:
        return False
    if finding.fingerprint in settings.allowed:
        return False
    return not any(p.search(finding.path) for p in settings.allow_paths)


def settings_file(root: Path) -> Path | None:
    """The settings file at ``root``: ``.hygiene.toml``, else a ``pyproject.toml`` holding
    ``[tool.hygiene]``, else None."""
    dedicated = root / DEDICATED
    if dedicated.is_file():
        return dedicated
    pyproject = root / PYPROJECT
    if pyproject.is_file() and b"[tool.hygiene" in pyproject.read_bytes():
        return pyproject
    return None


class _Reader:
    """Reads one table of a settings file; every error names the file and the key."""

    def __init__(self, path: Path, table: dict[str, Any], prefix: str) -> None:
        self.path, self.table, self.prefix = path, table, prefix

    def fail(self, key: str, problem: str) -> UsageError:
        return UsageError(f"{self.path}: {self.prefix}{key}: {problem}")

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return tuple(value)

    def patterns(self, key: str) -> list[re.Pattern[str]]:
        compiled = []
        for text in self.strings(key):
            problem = check_pattern(text)
            if problem:
                raise self.fail(key, f"{text!r}: {problem}")
            compiled.append(re.compile(text))
        return compiled


def _allowed(reader: _Reader) -> dict[str, str]:
    entries = reader.table.get("allow", [])
    if not isinstance(entries, list):
        raise reader.fail("allow", "must be an array of tables ([[...allow]])")
    allowed = {}
    for entry in entries:
        fp = entry.get("fingerprint") if isinstance(entry, dict) else None
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not isinstance(fp, str) or not _FINGERPRINT.fullmatch(fp):
            raise reader.fail("allow.fingerprint", 'must be "sha256:" and 64 hex digits')
        if not isinstance(reason, str) or not reason.strip():
            raise reader.fail("allow.reason", f"{fp[:19]}…: every allowed fingerprint needs one")
        if set(entry) - {"fingerprint", "reason"}:
            raise reader.fail(
                "allow", f"unknown key {sorted(set(entry) - {'fingerprint', 'reason'})[0]!r}"
            )
        allowed[fp] = reason
    return allowed


def _limits(reader: _Reader) -> DecodeLimits | None:
    table = reader.table.get("decoders")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise reader.fail("decoders", "must be a table")
    sub = _Reader(reader.path, table, reader.prefix + "decoders.")
    values = {}
    for key in table:
        if key not in _DECODER_KEYS:
            raise sub.fail(key, f"unknown key (known: {', '.join(_DECODER_KEYS)})")
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise sub.fail(key, "must be a positive integer")
        values[key] = value
    return DecodeLimits(**values)


def _types(reader: _Reader) -> frozenset[str] | None:
    if "types" not in reader.table:
        return None
    types = reader.strings("types")
    unknown = sorted(set(types) - set(TYPE_IDS))
    if unknown or not types:
        raise reader.fail("types", f"unknown type {unknown[0]!r}" if unknown else "is empty")
    return frozenset(types)


def _table(path: Path) -> tuple[dict[str, Any], str]:
    # Imported here: a scan without a settings file never pays for the TOML parser.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the 3.10 backport has the same API
        import tomli as tomllib

    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    if path.name != PYPROJECT:
        return doc, ""
    table = doc.get("tool", {}).get("hygiene", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: tool.hygiene: must be a table")
    return table, "tool.hygiene."


def load_settings(path: Path) -> Settings:
    """The settings in ``path`` (a ``.hygiene.toml`` or a ``pyproject.toml``)."""
    table, prefix = _table(path)
    reader = _Reader(path, table, prefix)
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise reader.fail(unknown[0], f"unknown key (known: {', '.join(sorted(_KEYS))})")
    lines = [
        re.compile(p.pattern.encode("utf-8", "surrogateescape"))
        for p in reader.patterns("allow-lines")
    ]
    return Settings(
        source=str(path),
        excludes=reader.strings("exclude"),
        types=_types(reader),
        allowed=_allowed(reader),
        allow_paths=tuple(reader.patterns("allow-paths")),
        allow_lines=tuple(lines),
        limits=_limits(reader),
    )


__all__ = [
    "DEDICATED",
    "PYPROJECT",
    "Settings",
    "keeps",
    "load_settings",
    "repository_root",
    "settings_file",
]
