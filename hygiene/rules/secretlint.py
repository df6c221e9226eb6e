"""secretlint: a ``.secretlintrc.json`` configuring ``@secretlint/secretlint-rule-pattern``.

JavaScript regexes have lookbehind and lookahead, so here a match is exactly the core's
``cred`` (the PAT's secret part, or the credential after its keyword), the rule's ``allows``
test it as the core's placeholder check does, and the allowlist markers are lookarounds over
the rest of the line.
"""

from __future__ import annotations

import json

from hygiene.rules import dialects
from hygiene.rules.formatting import header
from hygiene.rules.model import (
    ExportRule,
    allow_marker_regex,
    export_rules,
    not_credential_regexes,
    placeholder_regexes,
)

RULE_ID = "@secretlint/secretlint-rule-pattern"
USAGE = (
    "Use: npm install secretlint @secretlint/secretlint-rule-pattern, save this as",
    '.secretlintrc.json, run npx secretlint --maskSecrets "**/*".',
    "A finding's range is the secret part: for a PAT, what follows pat_AIC_.",
)
LIMITS = (
    'comments: JSON has none, so these notes are the "//" key, which secretlint ignores',
    "the core's SHA-256 fingerprints and baselines",
    "files as bytes, gzip, archives, base64 and UTF-16: secretlint reads text files only",
)


def render() -> str:
    """The ``.secretlintrc.json`` text."""
    notes = header("secretlint", USAGE, LIMITS, mark="").splitlines()
    config = {
        "//": [line.strip() for line in notes],
        "rules": [
            {
                "id": RULE_ID,
                "options": {
                    "allows": [js_literal(regex) for _, regex in placeholder_regexes()],
                    "patterns": [
                        {"name": rule.id, "patterns": [js_literal(pattern(rule))]}
                        for rule in export_rules()
                    ],
                },
            }
        ],
    }
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"


def pattern(rule: ExportRule) -> str:
    """The rule as JavaScript regex source whose match is the core's ``cred``."""
    marker = allow_marker_regex()
    lead = dialects.uncapture(rule.lead)
    body = dialects.uncapture(rule.body)
    after = dialects.lookahead_body(rule.tail)
    refusals = "".join(_refusal(regex, after) for _, regex in _keyword_checks(rule))
    ahead = "" if after is None else f"(?={after})"
    text = f"(?<!(?:{marker}).*)(?<={lead}){refusals}{body}{ahead}(?!.*(?:{marker}))"
    return dialects.to_javascript(text)


def _keyword_checks(rule: ExportRule) -> tuple[tuple[str, str], ...]:
    # `allows` is one list for every pattern, so the checks only keyword rules make are
    # negative lookaheads inside those rules' patterns.
    return not_credential_regexes() if rule.anchored_by_keyword else ()


def _refusal(regex: str, after: str | None) -> str:
    """A credential check ``^X$`` as a lookahead refusing a credential that is ``X``."""
    text = regex.removeprefix("(?i)").removeprefix("^")
    anchored_end = text.endswith("$")
    text = text.removesuffix("$")
    if regex.startswith("(?i)"):
        text = f"(?i:{text})"
    if anchored_end:
        text += "$" if after is None else f"(?={after})"
    return f"(?!{text})"


def js_literal(source: str) -> str:
    """A regex as secretlint's RegExp-like string, ``(?i)`` turned into the ``i`` flag."""
    flags = ""
    if source.startswith("(?i)"):
        source, flags = source[4:], "i"
    # secretlint reads `/SOURCE/FLAGS` greedily: a `/` inside SOURCE needs no escaping.
    return f"/{dialects.to_javascript(source)}/{flags}"
