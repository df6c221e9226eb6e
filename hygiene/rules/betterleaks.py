"""betterleaks 2.x: its own TOML schema, where a rule's ``filter`` is an expression.

betterleaks 2 refuses gitleaks' ``secretGroup`` and ``[[rules.allowlists]]``: a rule names
its secret with ``valueGroup`` and drops a finding when its ``filter`` (an Expr program over
``finding["secret"]`` and ``finding["line"]``) is true. The regexes are the gitleaks export's
(RE2 syntax); the checks become one ``matchesAny`` over the secret and one ``containsAny``
over the line for the core's allowlist markers.
"""

from __future__ import annotations

from hygiene import detection
from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted
from hygiene.rules.model import (
    ExportRule,
    RuleTranslationError,
    export_rules,
    not_credential_regexes,
    placeholder_regexes,
)

USAGE = (
    "Use: betterleaks fs --config aic-betterleaks.toml . (or git; betterleaks' default rules",
    "stay on through [extend]). Keywords are the core's needles, lowercase.",
    "A rule's filter is true for what is not a secret: betterleaks then drops the finding.",
)
LIMITS = (
    "no lookahead in Go's regexp: the character after a keyword-anchored credential is part "
    "of the match (valueGroup still reports the credential alone)",
    dialects.LENGTH_NOTE,
    "the core's SHA-256 fingerprints and baselines: betterleaks has its own value fingerprints",
)
MIN_VERSION = "v2.0.0-rc.1"


def render() -> str:
    """The betterleaks 2 configuration (TOML)."""
    parts = [
        header("betterleaks", USAGE, LIMITS),
        f'title = "aic-token-hygiene"\nminVersion = {quoted(MIN_VERSION)}\n\n'
        "[extend]\nuseDefault = true\n",
    ]
    parts.extend(_rule(rule) for rule in export_rules())
    return "\n".join(parts)


def _rule(rule: ExportRule) -> str:
    program = filter_program(rule)
    if "'''" in program:  # it would end TOML's literal string early
        raise RuleTranslationError(f"the filter of {rule.id} holds three quotes")
    return "\n".join(
        [
            "[[rules]]",
            f"id = {quoted(rule.id)}",
            f"description = {quoted(rule.description)}",
            f"regex = {quoted(dialects.detector(rule))}",
            "valueGroup = 1",
            "keywords = [" + ", ".join(quoted(k) for k in rule.keywords) + "]",
            f"filter = '''\n{program}\n'''",
        ]
    )


def filter_program(rule: ExportRule) -> str:
    """The Expr program that is true for a finding of ``rule`` the core would not report."""
    # A PAT's reported token holds its prefix, which the core's placeholder check skips.
    checks = placeholder_regexes("" if rule.anchored_by_keyword else rule.lead)
    if rule.anchored_by_keyword:
        checks += not_credential_regexes()
    regexes = ",\n".join(f"  {expr_raw(dialects.to_re2(r))}" for _, r in checks)
    markers = ", ".join(quoted(m) for m in detection.ALLOW_MARKERS)
    return (
        f'matchesAny(finding["secret"], [\n{regexes}\n])\n'
        f'|| containsAny(finding["line"], [{markers}])'
    )


def expr_raw(regex: str) -> str:
    """``regex`` as an Expr raw string (backquoted, no escapes): a backquote becomes ``\\x60``."""
    return "`" + regex.replace("`", r"\x60") + "`"
