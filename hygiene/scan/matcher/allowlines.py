"""Allowlist patterns from the settings file, compiled so they cannot slow a scan.

The settings file belongs to the repository being scanned, so its patterns are hostile input:
they are compiled with RE2 (``google-re2``), whose matching time is linear in the text for any
pattern (Python's ``re`` backtracks: ``(a|aa)*#`` on a long run of ``a`` never ends). A pattern
RE2 cannot compile (backreferences, lookaround) is refused when the settings are read.

Its ``exclude`` globs are translated to RE2 the same way (:class:`GlobSet`): ``fnmatch``
compiles globs to backtracking ``re`` patterns, superlinear on Python 3.10 for globs such as
``*a*a*a*a*b`` against a long name.

A line pattern is searched only in lines that hold a finding, and only in the :data:`REACH`
bytes on each side of the finding: however long the line (a minified bundle), the work per
finding is bounded. Line patterns work on bytes (Latin-1 mode: one byte is one character, as in
a ``bytes`` pattern of ``re``); path patterns on text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, AnyStr, Generic, Protocol, TypeVar

REACH = 512

_Text = TypeVar("_Text", str, bytes)


class Searcher(Protocol, Generic[_Text]):
    """A compiled pattern: what the matcher needs of one (RE2's and ``re``'s both fit)."""

    @property
    def pattern(self) -> _Text: ...

    def search(self, text: _Text, /) -> object | None: ...


class PatternError(ValueError):
    """A pattern RE2 cannot compile; the message says why, in one line."""


def _re2() -> Any:
    # Imported when a settings file is read: a scan without one never loads it.
    import re2  # type: ignore[import-untyped]

    return re2


def compile_pattern(text: AnyStr) -> Searcher[AnyStr]:
    """``text`` compiled with RE2 (bytes in Latin-1 mode, text as UTF-8)."""
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False  # RE2 would log the pattern to stderr through absl
    if isinstance(text, bytes):
        options.encoding = re2.Options.Encoding.LATIN1
    try:
        compiled: Searcher[AnyStr] = re2.compile(text, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "cannot be compiled"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "backslashreplace")
        raise PatternError(" ".join(str(reason).split())[:200]) from None
    return compiled


def check_pattern(text: str) -> str | None:
    """Why ``text`` cannot be an allowlist pattern, or None when it can."""
    try:
        compile_pattern(text)
    except PatternError as exc:
        return f"RE2 cannot compile it ({exc}); RE2 has no backreferences or lookaround"
    return None


def _literal(char: str) -> str:
    return char if char.isalnum() else f"\\x{{{ord(char):x}}}"


def _bracket(glob: str, i: int) -> tuple[str, int] | None:
    """The RE2 class for the bracket expression opening at ``glob[i]`` (``[``) and the index
    after it, or None where it does not close (the ``[`` is then a literal, as in fnmatch)."""
    j = i + 1
    j += glob[j : j + 1] == "!"
    j += glob[j : j + 1] == "]"
    end = glob.find("]", j)
    if end == -1:
        return None
    body, negated = glob[i + 1 : end], glob[i + 1 : i + 2] == "!"
    body = body[1:] if negated else body
    items, k = [], 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low <= high:  # fnmatch drops a reversed range
                items.append(f"{_literal(low)}-{_literal(high)}")
            k += 3
        else:
            items.append(_literal(body[k]))
            k += 1
    if not items:  # matches nothing ([!] matches any character)
        return ("[\\x{0}-\\x{10ffff}]" if negated else "[^\\x{0}-\\x{10ffff}]"), end + 1
    return "[" + ("^" if negated else "") + "".join(items) + "]", end + 1


def glob_pattern(glob: str) -> str:
    """``glob`` (fnmatch's syntax: ``*``, ``?``, ``[...]``, ``[!...]``) as an RE2 pattern
    matching a whole string; ``*`` crosses ``/``, as in fnmatch."""
    out, i = ["^"], 0
    while i < len(glob):
        char = glob[i]
        if char == "*":
            while glob[i : i + 1] == "*":
                i += 1
            out.append(".*")
            continue
        bracket = _bracket(glob, i) if char == "[" else None
        if bracket is not None:
            out.append(bracket[0])
            i = bracket[1]
            continue
        out.append("." if char == "?" else _literal(char))
        i += 1
    return "".join(out) + "$"


class GlobSet:
    """The settings' ``exclude`` globs, matched as ``--exclude`` is (gitignore-style: the
    relative path or its basename; a glob naming a folder covers what is below it), in linear
    time per glob (RE2), each path asked once."""

    def __init__(self, globs: Sequence[str]) -> None:
        cleaned = [g.rstrip("/").removeprefix("./").removeprefix("/") for g in globs]
        self.globs = tuple(g for g in cleaned if g)
        self._compiled: list[Searcher[str]] = []
        self._seen: dict[str, bool] = {}
        if self.globs:
            re2 = _re2()
            options = re2.Options()
            options.log_errors = False
            options.dot_nl = True
            try:
                self._compiled = [re2.compile(glob_pattern(g), options) for g in self.globs]
            except re2.error as exc:  # too large for RE2's memory bound
                raise PatternError(f"a glob RE2 cannot compile ({exc})"[:200]) from None

    def excludes(self, rel: str) -> bool:
        rel = rel.replace(os.sep, "/").removeprefix("./")
        if rel not in self._seen:
            base = rel.rsplit("/", 1)[-1]
            self._seen[rel] = any(
                p.search(rel) is not None or p.search(base) is not None for p in self._compiled
            ) or any(rel.startswith(g + "/") for g in self.globs)
        return self._seen[rel]


def line_allowed(line: bytes, start: int, end: int, patterns: Sequence[Searcher[bytes]]) -> bool:
    """Whether a pattern matches near the finding at ``line[start:end]``."""
    window = line[max(0, start - REACH) : end + REACH]
    return any(p.search(window) is not None for p in patterns)


__all__ = [
    "REACH",
    "GlobSet",
    "PatternError",
    "Searcher",
    "check_pattern",
    "compile_pattern",
    "glob_pattern",
    "line_allowed",
]
