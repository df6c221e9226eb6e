"""Regex dialects: the core's Python patterns as RE2, JavaScript or Hyperscan text.

The core's patterns use four constructs the targets differ on:

* named groups ``(?P<name>...)``: RE2, Rust and Hyperscan read them; JavaScript spells them
  ``(?<name>...)``;
* scoped flags ``(?i:...)``: RE2, Rust and Hyperscan read them; JavaScript before ES2025
  (Node.js 20) does not, so the letters become classes (``[Aa]``);
* counted repetition up to the core's longest token (``MAX_TOKEN_LENGTH``, the scanner's
  read-ahead bound): RE2 and Go refuse counts above 1000, so an export leaves the upper bound
  open (RE2 runs in linear time anyway);
* a trailing lookahead (what may follow a credential): RE2 has no lookaround, so detectors
  consume the following character instead and redactions put it back.
"""

from __future__ import annotations

import re

from hygiene import detection
from hygiene.rules.model import ExportRule, RuleTranslationError, class_end, group_end

RE2_MAX_REPEAT = 1000
# The limits note of every RE2 export: its numbers come from the core and this module.
LENGTH_NOTE = (
    f"the core caps a credential at {detection.MAX_TOKEN_LENGTH} characters; RE2 counts stop "
    f"at {RE2_MAX_REPEAT}, so the bound is open"
)
_COUNTED = re.compile(r"\{(\d+),(\d+)\}")
_NAMED = re.compile(r"\(\?P<(\w+)>")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def open_long_repeats(pattern: str) -> str:
    """``{m,n}`` with ``n`` above RE2's limit becomes ``{m,}``."""

    def repl(m: re.Match[str]) -> str:
        low, high = m.group(1), int(m.group(2))
        return m.group(0) if high <= RE2_MAX_REPEAT else "{" + low + ",}"

    return _COUNTED.sub(repl, pattern)


def uncapture(pattern: str) -> str:
    """Named groups made non-capturing, so a detector's only group is the secret."""
    return _NAMED.sub("(?:", pattern)


def lookahead_body(tail: str) -> str | None:
    """The inside of ``tail`` when it is one lookahead ``(?=X)``; None when ``tail`` is empty."""
    if not tail:
        return None
    if not tail.startswith("(?=") or group_end(tail, 0) != len(tail) - 1:
        raise RuleTranslationError(f"cannot translate the pattern tail {tail!r}")
    return tail[3:-1]


def check_no_lookaround(pattern: str) -> str:
    """``pattern`` itself, or an error naming the lookaround RE2 and Hyperscan cannot run."""
    for construct in _LOOKAROUND:
        if construct in pattern:
            raise RuleTranslationError(f"{construct} has no RE2 equivalent")
    return pattern


def detector(rule: ExportRule) -> str:
    """The rule as one RE2 regex whose only capturing group, ``secret``, is the token.

    The token is what the core reports: for a PAT the prefix and secret part, for a keyword
    rule the credential alone.
    """
    lead, body = uncapture(rule.lead), uncapture(rule.body)
    after = lookahead_body(rule.tail)
    tail = "" if after is None else f"(?:{after})"
    if rule.token_includes_lead:
        text = f"(?P<secret>{lead}{body}){tail}"
    else:
        text = f"{lead}(?P<secret>{body}){tail}"
    return check_no_lookaround(open_long_repeats(text))


def redactor(rule: ExportRule) -> str:
    """The rule as an RE2 regex with groups ``keep`` (before the secret part) and ``end``.

    Replacing a match with ``${keep}…${end}`` masks the secret part and keeps the rest: the
    keyword, the quotes, the PAT prefix and the character after the credential.
    """
    after = lookahead_body(rule.tail) or ""
    text = f"(?P<keep>{uncapture(rule.lead)}){uncapture(rule.body)}(?P<end>{after})"
    return check_no_lookaround(open_long_repeats(text))


def to_javascript(pattern: str) -> str:
    """A Python pattern as JavaScript (``u``-less) regex source."""
    text = _NAMED.sub(lambda m: f"(?<{m.group(1)}>", pattern)
    return expand_scoped_ignorecase(text)


def expand_scoped_ignorecase(pattern: str) -> str:
    """Every ``(?i:...)`` group as a plain group with each letter outside classes as ``[Xx]``.

    Only letters outside character classes are widened; the core's scoped groups hold words
    and ``[_-]`` classes, which need no widening.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("(?i:", i):
            end = group_end(pattern, i)
            out.append("(?:" + _caseless(pattern[i + 4 : end]) + ")")
            i = end + 1
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def _caseless(inner: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(inner):
        char = inner[i]
        if char == "\\":
            out.append(inner[i : i + 2])
            i += 2
            continue
        if char == "[":
            end = class_end(inner, i)
            out.append(inner[i : end + 1])
            i = end + 1
            continue
        if char == "{":  # a count: copied whole, its digits are not letters anyway
            end = inner.index("}", i)
            out.append(inner[i : end + 1])
            i = end + 1
            continue
        out.append(f"[{char.upper()}{char.lower()}]" if char.isalpha() else char)
        i += 1
    return "".join(out)


def to_hyperscan(pattern: str) -> str:
    """A Python pattern as Hyperscan (PCRE subset) text: no named groups, no lookaround."""
    return check_no_lookaround(uncapture(open_long_repeats(pattern)))


def to_re2(pattern: str) -> str:
    """A Python pattern without lookaround as RE2 text (open long counts)."""
    return check_no_lookaround(open_long_repeats(pattern))
