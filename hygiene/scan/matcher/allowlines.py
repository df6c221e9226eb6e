"""Allowlist patterns from the settings file, compiled so they cannot slow a scan.

The settings file belongs to the repository being scanned, so its patterns are hostile input:
they are compiled with RE2 (``google-re2``), whose matching time is linear in the text for any
pattern (Python's ``re`` backtracks: ``(a|aa)*#`` on a long run of ``a`` never ends). A pattern
RE2 cannot compile (backreferences, lookaround) is refused when the settings are read.

A line pattern is searched only in lines that hold a finding, and only in the :data:`REACH`
bytes on each side of the finding: however long the line (a minified bundle), the work per
finding is bounded. Line patterns work on bytes (Latin-1 mode: one byte is one character, as in
a ``bytes`` pattern of ``re``); path patterns on text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import AnyStr, Generic, Protocol, TypeVar

import re2  # type: ignore[import-untyped]

REACH = 512

_Text = TypeVar("_Text", str, bytes)


class Searcher(Protocol, Generic[_Text]):
    """A compiled pattern: what the matcher needs of one (RE2's and ``re``'s both fit)."""

    @property
    def pattern(self) -> _Text: ...

    def search(self, text: _Text, /) -> object | None: ...


class PatternError(ValueError):
    """A pattern RE2 cannot compile; the message says why, in one line."""


def compile_pattern(text: AnyStr) -> Searcher[AnyStr]:
    """``text`` compiled with RE2 (bytes in Latin-1 mode, text as UTF-8)."""
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
        raise PatternError(" ".join(str(reason).split())) from None
    return compiled


def check_pattern(text: str) -> str | None:
    """Why ``text`` cannot be an allowlist pattern, or None when it can."""
    try:
        compile_pattern(text)
    except PatternError as exc:
        return f"RE2 cannot compile it ({exc}); RE2 has no backreferences or lookaround"
    return None


def line_allowed(line: bytes, start: int, end: int, patterns: Sequence[Searcher[bytes]]) -> bool:
    """Whether a pattern matches near the finding at ``line[start:end]``."""
    window = line[max(0, start - REACH) : end + REACH]
    return any(p.search(window) is not None for p in patterns)


__all__ = ["REACH", "PatternError", "Searcher", "check_pattern", "compile_pattern", "line_allowed"]
