"""GitHub secret scanning: custom patterns, field by field as the "New custom pattern" form
asks (Settings → Code security → Secret scanning → Custom patterns).

GitHub runs custom patterns with Hyperscan: no lookaround, no capture; the form's "before
secret" and "after secret" boxes hold the context the core's keyword and lookahead express.
"""

from __future__ import annotations

import base64
import hashlib

from hygiene import detection
from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted
from hygiene.rules.model import (
    ExportRule,
    RuleTranslationError,
    class_end,
    export_rules,
    not_credential_regexes,
    placeholder_regexes,
)

USAGE = (
    "Use: for each pattern below, open New custom pattern, choose More options, copy each",
    "field into the box of the same name, paste the test lines into Test string, and check",
    "that the must_match lines are highlighted and the must_not_match lines are not.",
    "The sample credentials are derived from a hash of a fixed text: no token of anyone.",
)
LIMITS = (
    "the core's allowlist markers: custom patterns see the secret and its neighbours only",
    "a secret longer than GitHub's limit for custom patterns is not reported there",
    "before the PAT prefix the core needs nothing; the form's box is set to any character",
    "no lookahead: the after-secret box holds what the core's lookahead tests",
)
# A line that holds each rule's secret as it appears in the wild; the sample is filled in.
_SHAPES = {
    "aic-pat": "AIC_TOKEN=pat_AIC_{}",
    "aic-pat-urlencoded": "GET /api/v1/orgs?token=pat%5FAIC%5F{} HTTP/1.1",
    "aic-bearer-authorization": 'headers = {{"Authorization": "Bearer {}"}}',
    "aic-access-token": "access_token={}&token_type=bearer",
}
_PLACEHOLDER_LINES = (
    "AIC_TOKEN=pat_AIC_" + "x" * 16,  # a placeholder, built so no token-shaped literal stands here
    "AIC_TOKEN=pat_AIC_your_token_here",
    "Authorization: Bearer ${AIC_TOKEN}",
    "Authorization: Bearer <token>",
    '{"access_token": "REDACTED-EXAMPLE"}',
)
ALLOW_NOTE = "  # pragma: allowlist secret"


def render() -> str:
    """The custom patterns (YAML, one entry per core rule)."""
    parts = [header("GitHub secret scanning custom patterns", USAGE, LIMITS), "patterns:\n"]
    parts.extend(_pattern(rule) for rule in export_rules())
    return "".join(parts)


def _pattern(rule: ExportRule) -> str:
    checks = placeholder_regexes(rule.lead if rule.token_includes_lead else "")
    if rule.anchored_by_keyword:
        checks += not_credential_regexes()
    lines = [
        f"  - name: {quoted(rule.description)}",
        f"    secret_format: {quoted(secret_format(rule))}",
        f"    before_secret: {quoted(before_secret(rule))}",
        f"    after_secret: {quoted(after_secret(rule))}",
        "    additional_secret_requirements:",
        "      must_not_match:",
        *(f"        # {why}\n        - {quoted(dialects.to_hyperscan(r))}" for why, r in checks),
        "    test_string:",
        "      must_match:",
        *(f"        - {quoted(line)}" for line in sample_lines(rule)),
        "      must_not_match:",
        *(f"        - {quoted(line)}" for line in _PLACEHOLDER_LINES),
    ]
    return "\n".join(lines) + "\n"


def secret_format(rule: ExportRule) -> str:
    """The secret itself: the token the core reports."""
    body = rule.lead + rule.body if rule.token_includes_lead else rule.body
    return dialects.to_hyperscan(body)


def before_secret(rule: ExportRule) -> str:
    """What must precede the secret: the keyword for keyword rules, anything for a PAT."""
    return dialects.to_hyperscan(rule.lead) if rule.anchored_by_keyword else r"\A|[\s\S]"


def after_secret(rule: ExportRule) -> str:
    """What must follow: the core's lookahead, or any character the secret cannot hold."""
    after = dialects.lookahead_body(rule.tail)
    if after is not None:
        return dialects.to_hyperscan(after.replace("|$", r"|\z"))
    # The body's first character class: `[...]{n,m}`, or `(?:[...]|%5[Ff]|...){n,m}` where a
    # PAT's secret part may hold URL escapes (a `%` then ends the match here: close enough).
    start = 3 if rule.body.startswith("(?:[") else 0
    if not rule.body.startswith("[", start) or rule.body.startswith("[^", start):
        raise RuleTranslationError(f"cannot negate the body of {rule.id}")
    end = class_end(rule.body, start)
    return r"\z|[^" + rule.body[start + 1 : end] + "]"


def sample_lines(rule: ExportRule) -> list[str]:
    """A line holding a sample secret of ``rule``, marked for the core's own scanner."""
    shape = _SHAPES.get(rule.id)
    return [] if shape is None else [shape.format(sample_credential(rule.id)) + ALLOW_NOTE]


def sample_credential(seed: str) -> str:
    """A credential-shaped text derived from ``seed``: stable output, no one's token."""
    counter = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        value = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        if detection.looks_like_credential(value) and not detection.is_placeholder(value):
            return value
        counter += 1
