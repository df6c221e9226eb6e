"""Allowlist patterns for lines (from the settings file), bounded so they cannot slow a scan.

A pattern is searched only in lines that hold a finding, and only in the :data:`REACH` bytes
on each side of the finding: however long the line (a minified bundle), the work per finding
is bounded. Patterns that nest quantifiers (``(a+)+``), whose backtracking can grow
exponentially with the text, are refused when the settings are read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

REACH = 512


def check_pattern(text: str) -> str | None:
    """Why ``text`` cannot be an allowlist pattern, or None when it can."""
    try:
        re.compile(text)
    except re.error as exc:
        return f"not a regular expression ({exc})"
    if _nested_quantifier(text):
        return "a quantified group holds a quantifier (its backtracking could stall a scan)"
    return None


def _nested_quantifier(text: str) -> bool:
    """Whether a group holding ``*``, ``+`` or ``{`` is itself followed by one of them."""
    stack: list[bool] = []  # per open group: whether it holds a quantifier
    i, in_class = 0, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1 if text[i + 1 : i + 2] != "]" else 2  # `[]...]` holds a literal `]`
            continue
        elif char == "(":
            stack.append(False)
        elif char == ")" and stack:
            held = stack.pop()
            if held and text[i + 1 : i + 2] in ("*", "+", "{"):
                return True
            if stack:
                stack[-1] = stack[-1] or held
        elif char in "*+{" and stack:
            stack[-1] = True
        i += 1
    return False


def line_allowed(line: bytes, start: int, end: int, patterns: Sequence[re.Pattern[bytes]]) -> bool:
    """Whether a pattern matches near the finding at ``line[start:end]``."""
    window = line[max(0, start - REACH) : end + REACH]
    return any(p.search(window) for p in patterns)


__all__ = ["REACH", "check_pattern", "line_allowed"]
