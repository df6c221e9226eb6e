"""trufflehog: custom regex detectors (``--config``), with keywords and exclusions."""

from __future__ import annotations

from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted
from hygiene.rules.model import (
    ExportRule,
    export_rules,
    not_credential_regexes,
    placeholder_regexes,
)

USAGE = (
    "Use: trufflehog filesystem . --config aic-trufflehog.yaml (or git, with the same flag).",
    "Each regex has one capturing group, the token the core reports.",
)
LIMITS = (
    "the core's allowlist markers (`pragma: allowlist secret`, `hygiene: allow`): trufflehog "
    "filters see the match, not the line; use `trufflehog:ignore` on such lines",
    "no lookahead in Go's regexp: the character after a keyword-anchored credential is part "
    "of the match (the capture group is still the credential alone)",
    "verification: trufflehog would POST the token to a webhook of yours; the core's "
    "`hygiene scan --verify` asks the service directly, so no verify block is exported",
    dialects.LENGTH_NOTE,
)


def render() -> str:
    """The trufflehog configuration (YAML)."""
    parts = [header("trufflehog", USAGE, LIMITS), "detectors:\n"]
    parts.extend(_detector(rule) for rule in export_rules())
    return "".join(parts)


def _detector(rule: ExportRule) -> str:
    # A PAT's reported token holds its prefix, which the core's placeholder check skips.
    checks = placeholder_regexes("" if rule.anchored_by_keyword else rule.lead)
    if rule.anchored_by_keyword:
        checks += not_credential_regexes()
    lines = [
        f"  - name: {quoted(rule.id)}",
        "    keywords:",
        *(f"      - {quoted(k)}" for k in rule.keywords),
        "    regex:",
        f"      secret: {quoted(dialects.detector(rule))}",
        "    exclude_regexes_capture:",
        *(f"      # {why}\n      - {quoted(dialects.to_re2(regex))}" for why, regex in checks),
    ]
    return "\n".join(lines) + "\n"
