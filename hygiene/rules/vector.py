"""Vector: a ``remap`` transform whose VRL masks the core's secrets in ``.message``.

PAT rules go through VRL's ``redact()`` (the whole match is the token); keyword rules through
``replace()`` with named groups, which keeps the keyword and masks the credential only.
"""

from __future__ import annotations

from hygiene import detection
from hygiene.rules import dialects
from hygiene.rules.formatting import header, quoted
from hygiene.rules.model import ExportRule, export_rules

USAGE = (
    "Use: merge this transforms block into vector.yaml, set inputs to your log sources, and",
    "point your sinks at aic_token_hygiene_redact; copy the statements for other fields.",
    "`$$` is Vector's escape for a literal `$` (its config expands environment variables).",
)
LIMITS = (
    "placeholders: redaction cannot ask is_placeholder, so `pat_AIC_xxxxxxxx` is masked too "
    "(harmless in logs)",
    "the masked form's last four characters: a PAT becomes pat_AIC_… and a credential …",
    "VRL's Rust regex has no lookahead: the character after a credential is matched and put back",
    "the allowlist markers: a log line is masked whatever it carries",
)
MASKED_PAT = detection.PAT_PREFIX + detection.ELLIPSIS
FIELD = ".message"


def render() -> str:
    """The Vector configuration (YAML)."""
    program = [f"# {line}" for line in _program_notes()]
    program.append(f"if is_string({FIELD}) {{")
    program.extend(f"  {FIELD} = {_statement(rule)}" for rule in export_rules())
    program.append("}")
    lines = [
        "transforms:",
        "  aic_token_hygiene_redact:",
        "    type: remap",
        '    inputs: ["your_log_source"]',
        "    source: |",
        *(f"      {line}" for line in program),
    ]
    return header("Vector", USAGE, LIMITS) + "\n".join(lines) + "\n"


def _program_notes() -> tuple[str, ...]:
    return (f"Masks the core's {len(export_rules())} rules in {FIELD}.",)


def _statement(rule: ExportRule) -> str:
    value = f"string!({FIELD})"
    if rule.token_includes_lead:
        regex = vrl_regex(dialects.detector(rule))
        redactor = '{"type": "text", "replacement": ' + quoted(MASKED_PAT) + "}"
        return f"redact({value}, filters: [{regex}], redactor: {redactor})"
    replacement = quoted("$${keep}" + detection.ELLIPSIS + "$${end}")
    return f"replace({value}, {vrl_regex(dialects.redactor(rule))}, {replacement})"


def vrl_regex(pattern: str) -> str:
    """``pattern`` as a VRL regex literal (``r'...'``); a quote becomes ``\\x27``."""
    return "r'" + pattern.replace("'", r"\x27") + "'"
