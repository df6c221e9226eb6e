"""The project's scan settings: ``.hygiene.toml`` or ``[tool.hygiene]`` in ``pyproject.toml``.

Found at the repository root (the git work tree's top folder, else the current folder);
``.hygiene.toml`` wins over ``pyproject.toml`` (a dedicated file is the more deliberate one).
The file belongs to the repository being scanned, so it is read as hostile input:

* a repository owned by another user is not trusted (as git's ``safe.directory``): where the
  root folder, its ``.git`` or the settings file belongs to another uid than the caller's,
  :func:`discover` says so and no settings are used from it;
* its patterns and globs are compiled with RE2 (linear time, see
  :mod:`hygiene.scan.matcher.allowlines`), and their number and length are bounded;
* nothing it hides is hidden silently: :func:`sift` counts what each key suppressed, and every
  report says it. Its ``exclude`` globs do not stop a folder from being read: the command layer
  scans those paths too and counts their findings as suppressed (``--exclude`` on the command
  line is the caller's own choice: those paths are not read).

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

A broken file (bad TOML, an unknown key, a wrong type, a pattern RE2 cannot compile) is a
:class:`~hygiene.errors.UsageError` naming the file and the key: exit 2.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene.detection import TYPE_IDS, mask_secrets
from hygiene.errors import UsageError
from hygiene.fingerprints import FINGERPRINT_PATTERN
from hygiene.scan.findings import Finding
from hygiene.scan.limits import DecodeLimits
from hygiene.scan.matcher.allowlines import GlobSet, PatternError, Searcher, compile_pattern

DEDICATED = ".hygiene.toml"
PYPROJECT = "pyproject.toml"
_FINGERPRINT = re.compile(FINGERPRINT_PATTERN)
_KEYS = frozenset({"exclude", "types", "allow-paths", "allow-lines", "allow", "decoders"})
_DECODER_KEYS = ("max_depth", "max_bytes", "max_ratio")
MAX_ENTRIES = 1000
MAX_ENTRY_LENGTH = 4096


@dataclass(frozen=True)
class Settings:
    """What a settings file says (empty: no file, or ``--no-config``)."""

    source: str | None = None
    excludes: tuple[str, ...] = ()
    types: frozenset[str] | None = None
    allowed: Mapping[str, str] = field(default_factory=dict)  # fingerprint -> reason
    allow_paths: tuple[Searcher[str], ...] = ()
    allow_lines: tuple[Searcher[bytes], ...] = ()
    limits: DecodeLimits | None = None


@dataclass(frozen=True)
class Discovery:
    """Where the settings for a folder are: ``file`` (None: none, or not trusted) and, when
    the repository belongs to another user, ``refused``: the settings file left unread and
    ``owner``, the uid it belongs to (the command layer says so once)."""

    root: Path
    file: Path | None = None
    refused: Path | None = None
    owner: int | None = None


def repository_root(cwd: Path) -> Path:
    """Where the settings file lives: the top of the git work tree holding ``cwd`` (what
    ``git rev-parse --show-toplevel`` prints: the nearest folder with a ``.git`` folder or
    file, as in worktrees and submodules), else ``cwd``. Looked up without running git: a
    pre-commit run would pay a process start for it."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _foreign_owner(paths: Iterable[Path], uid: int) -> int | None:
    """The owner of the first of ``paths`` that exists and is not owned by ``uid`` (links not
    followed: a link planted in the repository is the repository's)."""
    for path in paths:
        try:
            owner = os.stat(path, follow_symlinks=False).st_uid
        except OSError:
            continue
        if owner != uid:
            return owner
    return None


def discover(cwd: Path, uid: int | None = None) -> Discovery:
    """The settings file for a scan run in ``cwd`` by ``uid`` (default: the process's real
    uid). A repository whose root folder, ``.git`` or settings file belongs to another uid is
    not trusted: its file is returned as ``refused``, never read. The walk stops at the nearest
    repository either way (a repository above an untrusted one is not its settings)."""
    root = repository_root(cwd)
    found = settings_file(root)
    if found is not None and uid is None:
        getuid = getattr(os, "getuid", None)
        if getuid is None:  # Windows: no owners to compare
            return Discovery(root, found)
        uid = getuid()
    owner = None if found is None else _foreign_owner((root, root / ".git", found), uid or 0)
    if owner is not None:
        return Discovery(root, None, found, owner)
    return Discovery(root, found)


# What each key of the file is counted under when it hides a finding (allow-lines is counted
# by the matcher, which applies it).
EXCLUDE, TYPES, ALLOW_PATHS, ALLOW = "exclude", "types", "allow-paths", "allow"


def _relative(path: str, roots: Sequence[str]) -> str:
    """``path`` as the walk of the folder it was found under saw it (``--exclude`` globs
    are matched relative to the folder walked)."""
    for root in roots:
        prefix = root.rstrip("/" + os.sep) + os.sep
        if root not in (".", "") and path.startswith(prefix):
            return path[len(prefix) :]
    return path


def excluded(excluder: GlobSet, finding: Finding, roots: Sequence[str] = ()) -> bool:
    """Whether the walk would have skipped ``finding``'s file: the file (an archive's, for a
    member) or a folder above it is excluded."""
    path = finding.path
    if finding.member is not None:
        path = path[: len(path) - len(finding.member) - 1]
    if not path:
        return False  # a commit message
    parts = _relative(path, roots).replace(os.sep, "/").split("/")
    return any(excluder.excludes("/".join(parts[:n])) for n in range(1, len(parts) + 1))


def hidden_by(
    settings: Settings,
    finding: Finding,
    roots: Sequence[str] = (),
    excluder: GlobSet | None = None,
) -> str | None:
    """Which key of ``settings`` hides ``finding`` (None: reported): ``exclude``, ``types``,
    ``allow`` (its fingerprint) or ``allow-paths``; the first that applies, in that order.
    ``excluder``: the settings' globs, built once by a caller asking for many findings."""
    excluder = excluder or GlobSet(settings.excludes)
    if excluder.globs and excluded(excluder, finding, roots):
        return EXCLUDE
    if settings.types is not None and finding.type not in settings.types:
        return TYPES
    if finding.fingerprint in settings.allowed:
        return ALLOW
    if any(p.search(finding.path) is not None for p in settings.allow_paths):
        return ALLOW_PATHS
    return None


def keeps(settings: Settings, finding: Finding) -> bool:
    """Whether ``finding`` is reported under ``settings`` (see :func:`hidden_by`)."""
    return hidden_by(settings, finding) is None


def sift(
    settings: Settings, findings: Iterable[Finding], roots: Sequence[str] = ()
) -> tuple[list[Finding], Counter[str]]:
    """The findings ``settings`` keep, and how many each key hid (``roots``: the folders the
    scan walked, see :func:`excluded`)."""
    kept: list[Finding] = []
    hidden: Counter[str] = Counter()
    excluder = GlobSet(settings.excludes)
    for finding in findings:
        key = hidden_by(settings, finding, roots, excluder)
        if key is None:
            kept.append(finding)
        else:
            hidden[key] += 1
    return kept, hidden


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
        # Bounded: each glob and pattern is tried on every finding, so a hostile file holding
        # very many could stall the scan.
        if len(value) > MAX_ENTRIES:
            raise self.fail(key, f"more than {MAX_ENTRIES} entries")
        if any(len(v) > MAX_ENTRY_LENGTH for v in value):
            raise self.fail(key, f"an entry is longer than {MAX_ENTRY_LENGTH} characters")
        return tuple(value)

    def patterns(self, key: str) -> list[Searcher[str]]:
        return [self._compiled(key, n, text) for n, text in enumerate(self.strings(key), 1)]

    def byte_patterns(self, key: str) -> list[Searcher[bytes]]:
        return [
            self._compiled(key, n, text.encode("utf-8", "surrogateescape"))
            for n, text in enumerate(self.strings(key), 1)
        ]

    def _compiled(self, key: str, n: int, text: Any) -> Any:
        try:
            return compile_pattern(text)
        except PatternError as exc:
            # The pattern is the repository's text: shown with any token in it masked.
            raise self.fail(
                key,
                f"pattern {n}: RE2 cannot compile it ({mask_secrets(str(exc))}; RE2 has "
                "no backreferences or lookaround, and matches in linear time)",
            ) from None


def _allowed(reader: _Reader) -> dict[str, str]:
    entries = reader.table.get("allow", [])
    if not isinstance(entries, list):
        raise reader.fail("allow", "must be an array of tables ([[...allow]])")
    allowed = {}
    for entry in entries:
        fp = entry.get("fingerprint") if isinstance(entry, dict) else None
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not isinstance(fp, str) or not _FINGERPRINT.fullmatch(fp):
            raise reader.fail(
                "allow.fingerprint", 'must be "sha256:" or "scrypt:" and 64 hex digits'
            )
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
    excludes = reader.strings("exclude")
    try:
        GlobSet(excludes)  # compiled now, so that a glob RE2 refuses is this file's error
    except PatternError as exc:
        raise reader.fail("exclude", str(exc)) from None
    return Settings(
        source=str(path),
        excludes=excludes,
        types=_types(reader),
        allowed=_allowed(reader),
        allow_paths=tuple(reader.patterns("allow-paths")),
        allow_lines=tuple(reader.byte_patterns("allow-lines")),
        limits=_limits(reader),
    )


__all__ = [
    "ALLOW",
    "ALLOW_PATHS",
    "DEDICATED",
    "EXCLUDE",
    "MAX_ENTRIES",
    "MAX_ENTRY_LENGTH",
    "PYPROJECT",
    "TYPES",
    "Discovery",
    "Settings",
    "discover",
    "excluded",
    "hidden_by",
    "keeps",
    "load_settings",
    "repository_root",
    "settings_file",
    "sift",
]
