"""gitleaks: TOML rules with keywords and allowlists, usable alone or through ``[extend]``."""

from __future__ import annotations

from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted
from hygiene.rules.model import (
    ExportRule,
    allow_marker_regex,
    export_rules,
    not_credential_regexes,
    placeholder_regexes,
)

USAGE = (
    "Use alone: gitleaks git --config aic-gitleaks.toml (gitleaks' default rules stay on).",
    'Or from your own gitleaks.toml: [extend] path = "aic-gitleaks.toml".',
    "Keywords are the core's needles: substrings every match holds (gitleaks lowercases).",
)
LIMITS = (
    "no lookahead in Go's regexp: the character after a keyword-anchored credential is part "
    "of the match (secretGroup still reports the credential alone)",
    dialects.LENGTH_NOTE,
    "the core's SHA-256 fingerprints and baselines: gitleaks fingerprints file:rule:line",
)


def render() -> str:
    """The gitleaks configuration."""
    parts = [
        header("gitleaks", USAGE, LIMITS),
        'title = "aic-token-hygiene"\n\n[extend]\nuseDefault = true\n',
    ]
    parts.extend(_rule(rule) for rule in export_rules())
    return "\n".join(parts)


def _rule(rule: ExportRule) -> str:
    lines = [
        "[[rules]]",
        f"id = {quoted(rule.id)}",
        f"description = {quoted(rule.description)}",
        f"regex = {quoted(dialects.detector(rule))}",
        "secretGroup = 1",
        "keywords = [" + ", ".join(quoted(k) for k in rule.keywords) + "]",
    ]
    # A PAT's reported token holds its prefix, which the core's placeholder check skips.
    checks = placeholder_regexes("" if rule.anchored_by_keyword else rule.lead)
    if rule.anchored_by_keyword:
        checks += not_credential_regexes()
    lines += _allowlist("not a secret: " + ", ".join(why for why, _ in checks), "secret", checks)
    marker = (("allowlist marker", allow_marker_regex()),)
    lines += _allowlist("a line with the core's allowlist marker", "line", marker)
    return "\n".join(lines) + "\n"


def _allowlist(description: str, target: str, regexes: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        "",
        "[[rules.allowlists]]",
        f"description = {quoted(description)}",
        f"regexTarget = {quoted(target)}",
        "regexes = [",
        *(f"    {quoted(dialects.to_re2(regex))},  # {why}" for why, regex in regexes),
        "]",
    ]
