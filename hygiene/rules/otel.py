"""OpenTelemetry Collector: a ``redaction`` processor and a ``transform`` processor.

The redaction processor masks matching parts of attribute values; it sees values only, so it
gets the PAT rules. The transform processor's OTTL ``replace_pattern`` masks log bodies and
attributes with every rule, keeping the keyword and masking the credential.
"""

from __future__ import annotations

import json

from hygiene import detection
from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted, single_quoted
from hygiene.rules.model import ExportRule, export_rules

USAGE = (
    "Use: merge these processors into the collector's config (contrib distribution) and",
    "list them in each pipeline: processors: [redaction/aic_token_hygiene,",
    "transform/aic_token_hygiene]. `$$` is the collector's escape for a literal `$`.",
)
LIMITS = (
    "redaction processor: no keyword anchoring (it tests attribute values alone), so it "
    "carries the PAT rules; keyword rules are in the transform processor",
    "placeholders: masked too, as the processors cannot ask is_placeholder",
    "the masked form's last four characters: a PAT becomes pat_AIC_… and a credential …",
    "Go's regexp has no lookahead: the character after a credential is matched and put back",
)
_CONTEXTS = (("log_statements", "log", "body"), ("trace_statements", "span", None))


def render() -> str:
    """The collector processors (YAML)."""
    rules = export_rules()
    lines = [
        "processors:",
        "  redaction/aic_token_hygiene:",
        "    allow_all_keys: true",
        "    summary: silent",
        "    blocked_values:",
        *(f"      - {_dollars(quoted(dialects.detector(r)))}" for r in rules if _is_pat(r)),
        "  transform/aic_token_hygiene:",
        "    error_mode: ignore",
    ]
    for key, context, body in _CONTEXTS:
        lines += [f"    {key}:", f"      - context: {context}", "        statements:"]
        for rule in rules:
            lines += [f"          - {_dollars(single_quoted(s))}" for s in statements(rule, body)]
    return header("the OpenTelemetry Collector", USAGE, LIMITS) + "\n".join(lines) + "\n"


def _is_pat(rule: ExportRule) -> bool:
    return rule.token_includes_lead


def statements(rule: ExportRule, body: str | None) -> list[str]:
    """OTTL statements masking ``rule`` in attribute values (and ``body`` when given)."""
    regex = ottl_string(dialects.redactor(rule))
    masked = (detection.PAT_PREFIX if _is_pat(rule) else "${keep}") + detection.ELLIPSIS
    replacement = ottl_string(masked + "${end}")
    out = [f'replace_all_patterns(attributes, "value", {regex}, {replacement})']
    if body is not None:
        out.insert(0, f"replace_pattern({body}, {regex}, {replacement})")
    return out


def ottl_string(value: str) -> str:
    """``value`` as an OTTL string literal (Go's escapes, which JSON's are a subset of)."""
    return json.dumps(value, ensure_ascii=False)


def _dollars(text: str) -> str:
    # The collector expands `${...}` in its config; `$$` stands for one literal `$`.
    return text.replace("$", "$$")
