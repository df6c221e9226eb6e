"""kingfisher: its YAML custom-rule format, with a validation request against the service.

kingfisher matches with Vectorscan (no lookaround) and takes a rule's one unnamed capture as
the secret (``{{ TOKEN }}``). It has no regex allowlist: its filters are
``pattern_requirements`` (a minimum count of digits or of each letter case, and
case-insensitive words a match must not contain). So the exported patterns carry the core's
minimum length, the placeholder words that are plain words become ``ignore_if_contains``, and
a keyword-anchored credential must hold a digit. A PAT rule validates a found token against
the memberships call (``GET /api/v1/org/memberships`` with the PAT as the bearer): 200 is
live, anything else is not.
"""

from __future__ import annotations

import re

from hygiene import shapes
from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted, single_quoted
from hygiene.rules.model import ExportRule, RuleTranslationError, class_end, export_rules

USAGE = (
    "Use: kingfisher scan --rules-path aic-kingfisher.yaml PATH (kingfisher's own rules stay",
    "on; --load-builtins=false keeps these alone). Export with AIC_BASE_URL set for the",
    "validation request; kingfisher validates unless --no-validate is given. A service on a",
    "private address needs --allow-internal-ips (kingfisher refuses those by default).",
    "kingfisher also loads the betterleaks export (--format betterleaks) and applies its",
    "filters over the secret (placeholders stay quiet), but without this validation request.",
)
LIMITS: tuple[str, ...] = (
    "no lookahead in Vectorscan: the character after a keyword-anchored credential is part "
    "of the match (the capture is still the credential alone)",
    "no regex allowlist: the core's allowlist markers, one repeated character, x runs, "
    "template syntax, scheme words and documented examples are not filtered; only the "
    "placeholder words below are",
    "a keyword-anchored credential must hold a digit: pattern_requirements cannot say 'a digit "
    "or both letter cases', so a credential of letters alone is not reported",
    "validation sees 200 (live) or not: a 401 (dead) and a 500 (unknown) both read inactive",
    dialects.LENGTH_NOTE,
)
MEMBERSHIPS_PATH = "/api/v1/org/memberships"
_LITERAL_WORD = re.compile(r"(?:[a-z]|\\[.*])+")
_WORD_CHOICE = re.compile(r"([a-z]+)\[([_-]+)\]\?\(\?:([a-z|]+)\)")
_REPEATED = re.compile(r"([a-z])\{(\d+),\}")


def render(base_url: str | None = None) -> str:
    """The kingfisher rules (YAML); with ``base_url``, PAT rules carry a validation request."""
    limits = LIMITS
    if base_url is None:
        limits += ("validation: AIC_BASE_URL was not set when exporting, so none is exported",)
    lines = ["rules:"]
    for rule in export_rules():
        lines += _rule(rule, base_url)
    return header("kingfisher", USAGE, limits) + "\n".join(lines) + "\n"


def _rule(rule: ExportRule, base_url: str | None) -> list[str]:
    lines = [
        f"  - name: {quoted(rule.description)}",
        f"    id: {quoted('aic.' + rule.id)}",
        f"    pattern: {quoted(pattern(rule))}",
        "    confidence: high" if rule.token_includes_lead else "    confidence: medium",
        "    pattern_requirements:",
    ]
    if rule.anchored_by_keyword:
        lines.append("      min_digits: 1")
    lines += ["      ignore_if_contains:", *(f"        - {quoted(w)}" for w in placeholder_words())]
    if base_url is not None and rule.token_includes_lead:
        lines += validation(base_url)
    return lines


def pattern(rule: ExportRule) -> str:
    """The rule as one regex whose only capture (unnamed) is the token the core reports."""
    lead = dialects.uncapture(rule.lead)
    body = dialects.uncapture(rule.body)
    if rule.anchored_by_keyword:
        # The core's minimum length in the pattern, as kingfisher has no other place for it.
        body = re.sub(r"\{1,(\d+)\}$", f"{{{shapes.MIN_CREDENTIAL_LENGTH},}}", body)
    after = dialects.lookahead_body(rule.tail)
    tail = "" if after is None else f"(?:{after})"
    text = f"({lead}{body}){tail}" if rule.token_includes_lead else f"{lead}({body}){tail}"
    return dialects.check_no_lookaround(dialects.open_long_repeats(text))


def placeholder_words() -> list[str]:
    """The alternatives of the core's placeholder-word pattern that are plain words."""
    words = []
    for alternative in top_level_alternatives(shapes.PLACEHOLDER_WORDS_PATTERN):
        repeated = _REPEATED.fullmatch(alternative)
        if repeated:  # `x{6,}`: six of them are a substring of any longer run
            words.append(repeated.group(1) * int(repeated.group(2)))
        elif (choice := _WORD_CHOICE.fullmatch(alternative)) is not None:
            # `your[_-]?(?:token|pat)`: each joint (none, `_`, `-`) with each word
            words += [
                choice.group(1) + joint + word
                for joint in ("", *choice.group(2))
                for word in choice.group(3).split("|")
            ]
        elif _LITERAL_WORD.fullmatch(alternative):
            words.append(alternative.replace("\\", ""))
        elif not alternative.isascii():
            words.append(alternative)  # the ellipsis character
    return words


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at the ``|`` outside groups and classes."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 1
        elif char == "[":
            i = class_end(pattern, i)
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*out, pattern[start:]]


def validation(base_url: str) -> list[str]:
    """The Http validation block: the memberships call with the found token as the bearer."""
    if "{{" in base_url or "{%" in base_url:
        raise RuleTranslationError("AIC_BASE_URL must not hold Liquid template syntax")
    url = base_url.rstrip("/") + MEMBERSHIPS_PATH
    return [
        "    validation:",
        "      type: Http",
        "      content:",
        "        request:",
        "          method: GET",
        f"          url: {quoted(url)}",
        "          headers:",
        f"            Authorization: {single_quoted('Bearer {{ TOKEN }}')}",
        "          response_matcher:",
        "            - report_response: false",
        "            - type: StatusMatch",
        "              status: [200]",
    ]
