"""The core's rules as one neutral model that every export format renders.

Nothing here holds a pattern of its own: each :class:`ExportRule` is cut out of a rule of
:data:`hygiene.detection.RULES` (its pattern text split around the ``cred`` group), and the
"not a secret" tests (placeholders, scheme words, allowlist markers) are translated from the
constants :mod:`hygiene.detection` decides with. The pieces stay in Python's syntax; the
dialect modules turn them into RE2, JavaScript or Hyperscan syntax.
"""

from __future__ import annotations

from dataclasses import dataclass

from hygiene import detection, shapes
from hygiene.errors import HygieneError

# Which public constant a rule's pattern is, and the id it gets in exported configuration.
_NAMES: dict[str, tuple[str, str]] = {
    detection.PAT_PATTERN: ("aic-pat", "AIC personal access token"),
    detection.PAT_URLENCODED_PATTERN: (
        "aic-pat-urlencoded",
        "AIC personal access token, URL-encoded (in a logged query string)",
    ),
    detection.AUTHORIZATION_PATTERN: (
        "aic-bearer-authorization",
        "Credential after an Authorization key or header",
    ),
    detection.ACCESS_TOKEN_PATTERN: ("aic-access-token", "Value of an access_token key"),
}


# Rules no target can hold: a name/value pair (HAR, Postman, OpenAPI) spans up to six lines
# and needs lookaround to keep the next pair's value out, which no exported dialect has.
NOT_EXPORTED: dict[str, str] = {
    detection.PAIR_PATTERN: "name/value pairs (HAR, Postman, OpenAPI)",
    detection.PAIR_TOKEN_PATTERN: "name/value pairs (HAR, Postman, OpenAPI)",
}
NOT_EXPORTED_NOTE = (
    "credentials in name/value pairs (HAR, Postman, OpenAPI: the keyword in `name`, the "
    "credential in a sibling `value` up to six lines on): they need lookaround across lines; "
    "not exported"
)


# What the core judges that no regex engine of the targets can: every export names it.
WORDLIKE_NOTE = (
    "values that read as words (identifiers, types, member paths: letter pairs and word "
    "counts) and low-entropy runs (token123): the core counts, a regex cannot"
)


class RuleTranslationError(HygieneError):
    """A core pattern holds a construct an export cannot translate."""


@dataclass(frozen=True)
class ExportRule:
    """One core rule, split for exporting.

    ``lead`` is what precedes the credential (the PAT prefix, or the keyword, quotes and
    separator), ``body`` the credential itself and ``tail`` what must follow it (the core's
    lookahead, or nothing). All three are Python regex text taken from the core's pattern.
    """

    id: str
    type_id: str
    description: str
    lead: str
    body: str
    tail: str
    keywords: tuple[str, ...]
    anchored_by_keyword: bool

    @property
    def token_includes_lead(self) -> bool:
        """Whether the reported token starts at the lead (a PAT's prefix) or after it."""
        return not self.anchored_by_keyword


def export_rules() -> tuple[ExportRule, ...]:
    """Every rule of :data:`hygiene.detection.RULES`, split for exporting."""
    rules: list[ExportRule] = []
    for index, rule in enumerate(detection.RULES):
        text = rule.pattern
        if text in NOT_EXPORTED:
            continue
        rule_id, description = _NAMES.get(
            text, (f"{rule.type_id}-{index}", detection.TYPE_NAMES[rule.type_id])
        )
        lead, body, tail = split_group(text, "cred")
        keywords = tuple(dict.fromkeys(n.decode("ascii").lower() for n in rule.needles))
        rules.append(
            ExportRule(
                rule_id,
                rule.type_id,
                description,
                lead,
                body,
                tail,
                keywords,
                rule.anchored_by_keyword,
            )
        )
    return tuple(rules)


def split_group(pattern: str, name: str) -> tuple[str, str, str]:
    """``pattern`` cut into (before, inside, after) the named group ``name``."""
    opener = f"(?P<{name}>"
    start = pattern.find(opener)
    if start < 0:
        raise RuleTranslationError(f"pattern has no group {name!r}")
    end = group_end(pattern, start)
    return pattern[:start], pattern[start + len(opener) : end], pattern[end + 1 :]


def group_end(pattern: str, start: int) -> int:
    """Index of the ``)`` closing the group opened at ``start`` (escapes and classes skipped)."""
    depth = 0
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 1
        elif char == "[":
            i = class_end(pattern, i)
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise RuleTranslationError("unbalanced group in a core pattern")


def class_end(pattern: str, start: int) -> int:
    """Index of the ``]`` closing the character class opened at ``start``."""
    i = start + 1
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):  # a leading `]` is a literal
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 1
        elif pattern[i] == "]":
            return i
        i += 1
    raise RuleTranslationError("unterminated character class in a core pattern")


_META = set("\\.^$|?*+()[]{}/")


def escape(text: str) -> str:
    """``text`` as a regex literal every target reads alike (only metacharacters escaped).

    Python's ``re.escape`` also escapes spaces and ``#&~-``, which RE2 or JavaScript's
    unicode mode (secretlint's default) refuse outside a class.
    """
    return "".join("\\" + c if c in _META else c for c in text)


def char_class(chars: str) -> str:
    """A class holding exactly ``chars``."""
    return "[" + "".join("\\" + c if c in "\\]^-[." else c for c in chars) + "]"


# --- What is not a secret, as regexes over the credential ("any match: allowed") -----------

_ALPHABET = "".join(chr(c) for c in range(33, 127))


def placeholder_regexes(prefix: str = "") -> tuple[tuple[str, str], ...]:
    """(why, regex) pairs: a credential any of them matches is a placeholder.

    Translated from :func:`hygiene.detection.is_placeholder`'s constants; every regex is in the
    common subset of RE2, JavaScript and Hyperscan (no backreference, no lookaround).
    ``prefix`` (regex text) may precede the credential: a PAT's prefix when the tested value
    is the whole token, as in gitleaks and trufflehog.
    """
    start = f"^(?:{prefix})?" if prefix else "^"
    trim = char_class(shapes.PLACEHOLDER_TRIM) + "*"
    # One repeated character: RE2 has no backreference, so one alternative per character.
    repeated = "|".join(escape(c) + "+" for c in _ALPHABET if c not in "xX")
    marks = "|".join(escape(m) for m in shapes.TEMPLATE_MARKS)
    return (
        # Scoped `(?i:...)`, never a leading `(?i)`: gitleaks joins a rule's allowlist regexes
        # with `|`, and a leading flag would reach every regex after it.
        ("placeholder words", f"(?i:{shapes.PLACEHOLDER_WORDS_PATTERN})"),
        ("one repeated character", f"{start}{trim}(?:{repeated}){trim}$"),
        ("x runs", f"{start}{trim}{char_class(shapes.X_RUN_CHARS)}*{trim}$"),
        ("template syntax", rf"{marks}|{start}{trim}\$"),
    )


def not_credential_regexes() -> tuple[tuple[str, str], ...]:
    """(why, regex) pairs for keyword-anchored values that are not credentials.

    From :func:`hygiene.detection.is_reportable_credential`: too short, a scheme word, neither
    a digit nor both letter cases, a ``name=value`` pair, a documented example value, or a PAT
    (the PAT rules report those). What reads as words (:func:`hygiene.shapes.is_wordlike`)
    needs counting no regex does: :data:`WORDLIKE_NOTE`.
    """
    words = "|".join(escape(w) for w in sorted(shapes.SCHEME_WORDS))
    shortest = shapes.MIN_CREDENTIAL_LENGTH - 1
    pat_leads = "|".join(r.lead for r in export_rules() if r.type_id == detection.AIC_PAT)
    examples = "|".join(escape(v) for v in sorted(shapes.EXAMPLE_VALUES))
    return (
        ("shorter than the core's minimum", f"^[\\s\\S]{{0,{shortest}}}$"),
        ("an HTTP scheme word", f"^(?i:{words})$"),
        ("no digit and no upper-case letter", "^[^0-9A-Z]*$"),
        ("no digit and no lower-case letter", "^[^0-9a-z]*$"),
        ("a name=value pair", "=[^=]"),
        ("a documented example value", f"^(?:{examples})$|\\.{escape(shapes.JWT_IO_SIGNATURE)}$"),
        ("a PAT: the PAT rules report it", f"^(?:{pat_leads})"),
    )


def allow_marker_regex() -> str:
    """A regex matching a line that carries one of the core's allowlist markers."""
    return "|".join(escape(m) for m in detection.ALLOW_MARKERS)
