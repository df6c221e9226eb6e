"""What a secret is: the one place that knows.

Every part of the toolkit (scanner, detect-secrets plugin, hooks, log masking, revoke) asks
this module, never a copy of its patterns:

* ``aic-pat``: ``pat_AIC_`` followed by the secret part ``[A-Za-z0-9_-]{8,}``.
* ``bearer-token``: the credential after ``Authorization`` (any scheme, any case and spacing,
  header line, JSON, dict repr, curl ``-H``, httpcore byte tuples, escaped JSON) and the value of
  an ``access_token`` key (JSON, dict repr, query string, form body, env file).

Placeholders (``pat_AIC_xxxxxxxx``, ``Bearer ${TOKEN}``, ``EXAMPLE`` ...) are not secrets, and a
line holding ``pragma: allowlist secret`` or ``hygiene: allow`` is skipped.

A secret is identified by its fingerprint (``sha256:`` + hex SHA-256 of the full token) and
shown to humans only in its masked form (``pat_AIC_…k3Xz``). :class:`Secret` keeps the token in
memory for the caller to hash or revoke, but its ``repr`` never shows it.

The patterns exist once, as text, and are compiled twice: for ``str`` (masking) and for
``bytes`` (the scanner reads files as bytes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

AIC_PAT: Final = "aic-pat"
BEARER_TOKEN: Final = "bearer-token"  # noqa: S105 - a type id, not a password
TYPE_IDS: Final = (AIC_PAT, BEARER_TOKEN)
TYPE_NAMES: Final = {
    AIC_PAT: "AIC personal access token",
    BEARER_TOKEN: "Bearer credential or access_token value",
}

PAT_PREFIX: Final = "pat_AIC_"
ELLIPSIS: Final = "…"
ALLOW_MARKERS: Final = ("pragma: allowlist secret", "hygiene: allow")

# The longest credential we report; longer runs (base64 blobs in binaries) are cut here so
# the scanner's read-ahead stays bounded.
MAX_TOKEN_LENGTH: Final = 4096

_PAT_BODY = r"[A-Za-z0-9_-]{8," + str(MAX_TOKEN_LENGTH) + "}"
PAT_PATTERN: Final = r"pat_AIC_(?P<cred>" + _PAT_BODY + ")"
# URL-encoded form (`pat%5FAIC%5F...`), as seen in logged query strings.
_PAT_URLENCODED_PREFIX = r"pat%5[Ff]AIC%5[Ff]"
PAT_URLENCODED_PATTERN: Final = _PAT_URLENCODED_PREFIX + r"(?P<cred>" + _PAT_BODY + ")"

# An optional quote, escaped zero to three times (JSON inside JSON inside JSON).
_QUOTE = r"""(?:\\{0,3}["'])?"""
# Between the key and its value: `:`, `=`, or the `, b` of a `(b'key', b'value')` tuple.
_SEPARATOR = r"[ \t]*(?:[:=]|,[ \t]*b?)[ \t]*"
# The credential itself: token68 characters plus `%` (URL-encoded values).
_CRED = r"(?P<cred>[A-Za-z0-9._~+/=%-]{1," + str(MAX_TOKEN_LENGTH) + "})"
# A credential ends at whitespace, a quote, a backslash, a delimiter or the end of input:
# `get_token(` or `os.environ[` are code, not values.
_CRED_END = r"""(?=[\s"'\\,;&)\]}>|]|$)"""
_SCHEME = r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9_.-]{0,30})[ \t]+)?"

AUTHORIZATION_PATTERN: Final = (
    r"(?i:authorization)" + _QUOTE + _SEPARATOR + _QUOTE + r"[ \t]*" + _SCHEME + _CRED + _CRED_END
)
ACCESS_TOKEN_PATTERN: Final = (
    r"(?i:access[_-]?token)" + _QUOTE + _SEPARATOR + _QUOTE + r"[ \t]*" + _CRED + _CRED_END
)

# HTTP authentication scheme names: a lone scheme word is not a credential.
SCHEME_WORDS: Final = frozenset(
    {
        "bearer",
        "basic",
        "digest",
        "negotiate",
        "token",
        "ntlm",
        "hoba",
        "mutual",
        "oauth",
        "aws4-hmac-sha256",
        "none",
        "null",
        "undefined",
        "true",
        "false",
    }
)

# `x{6,}`: a run of six x's marks a placeholder; four would also hit about one random
# 32-character token in 35,000 (`...xxXx...`), a real leak we would then miss.
# Public (with the marks and scheme words) so `hygiene.rules` exports them, never a copy.
PLACEHOLDER_WORDS_PATTERN: Final = (
    r"example|redacted|placeholder|your[_-]?(?:token|pat|key|secret|api|access|own)|"
    r"changeme|change[_-]me|replace[_-]?me|dummy|x{6,}|\.\.\.|…|\*\*\*"
)
# Searched in the lowercased value: 5x cheaper than a case-insensitive search.
_PLACEHOLDER_WORDS = re.compile(PLACEHOLDER_WORDS_PATTERN)
TEMPLATE_MARKS: Final = ("${", "{{", "}}", "<", ">", "%s", "%(", "%d")
# The characters stripped from both ends of a value before the placeholder checks.
PLACEHOLDER_TRIM: Final = "-_.="
# A value made only of these (after trimming) is an `x` run: `xxxx-xxxx`.
X_RUN_CHARS: Final = "xX-_."
_TEMPLATE_CHARS: Final = re.compile(r"[${}<>%]")


def is_placeholder(value: str) -> bool:
    """True for values that stand for a secret without being one.

    ``value`` is the secret part (without ``pat_AIC_``) or a whole credential.
    """
    core = value.strip(PLACEHOLDER_TRIM)
    if not core or core.count(core[0]) == len(core):  # one repeated character
        return True
    if not core.strip(X_RUN_CHARS):
        return True
    # One character-class search first: template marks are rare, and eight `in` tests on
    # every candidate cost more than the regex that rules them all out.
    if _TEMPLATE_CHARS.search(core) and (
        core.startswith("$") or any(mark in core for mark in TEMPLATE_MARKS)
    ):
        return True
    return _PLACEHOLDER_WORDS.search(core.lower()) is not None


MIN_CREDENTIAL_LENGTH: Final = 8


def looks_like_credential(value: str) -> bool:
    """Whether a keyword-anchored value (after ``Authorization`` or ``access_token``) is one.

    Random credentials have a digit or both letter cases; identifiers in code (``token_value``),
    scheme words and placeholders do not count.
    """
    if len(value) < MIN_CREDENTIAL_LENGTH or value.lower() in SCHEME_WORDS or is_placeholder(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    return has_digit or (any(c.islower() for c in value) and any(c.isupper() for c in value))


def is_allowlisted(line: str | bytes) -> bool:
    """True when the line carries an allowlist marker."""
    if isinstance(line, bytes):
        return any(marker.encode() in line for marker in ALLOW_MARKERS)
    return any(marker in line for marker in ALLOW_MARKERS)


def fingerprint(token: str) -> str:
    """``sha256:`` + hex SHA-256 of the full token (prefix included, UTF-8)."""
    import hashlib  # here: loading OpenSSL is 3 ms that a scan finding nothing never needs

    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def sha1_hex(token: str) -> str:
    """Hex SHA-1 of the token, as detect-secrets stores it in ``hashed_secret``."""
    import hashlib

    return hashlib.sha1(token.encode("utf-8"), usedforsecurity=False).hexdigest()


def masked_form(token: str) -> str:
    """What a human may see of a token: its public prefix, an ellipsis, at most 4 last chars.

    The tail shrinks for short secrets so that at least three quarters stay hidden.
    """
    prefix = PAT_PREFIX if token.startswith(PAT_PREFIX) else ""
    body = token[len(prefix) :]
    shown = min(4, len(body) // 4)
    return prefix + ELLIPSIS + (body[-shown:] if shown else "")


@dataclass(frozen=True)
class Secret:
    """One secret found in a text: where it is, what it is; the token stays out of ``repr``."""

    type_id: str
    start: int
    end: int
    token: str = field(repr=False)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.token)

    @property
    def masked(self) -> str:
        return masked_form(self.token)


@dataclass(frozen=True)
class Rule:
    """One way a secret appears: its pattern, and the literals every match of it holds."""

    type_id: str
    text: re.Pattern[str]
    data: re.Pattern[bytes]
    # The literals the scanner searches for before running the pattern (every match holds
    # one), and how far before its literal a match starts: `authorization` is searched as
    # `uthoriz`, which no spelling of the keyword lacks. With `caseless`, needles are
    # lowercase and match in any case, as the keyword patterns do.
    needles: tuple[bytes, ...]
    back: int
    anchored_by_keyword: bool
    caseless: bool = False

    def accepts(self, cred: str) -> bool:
        if self.anchored_by_keyword:
            # A PAT after `Bearer` is the PAT rule's to judge (and report).
            return not _is_pat(cred) and looks_like_credential(cred)
        return not is_placeholder(cred)


_URLENCODED_PREFIX = re.compile(_PAT_URLENCODED_PREFIX)


def _is_pat(cred: str) -> bool:
    return cred.startswith(PAT_PREFIX) or _URLENCODED_PREFIX.match(cred) is not None


def _rule(
    type_id: str, pattern: str, needles: tuple[bytes, ...], back: int, *, kw: bool = False
) -> Rule:
    compiled_bytes = re.compile(pattern.encode("ascii"))
    return Rule(type_id, re.compile(pattern), compiled_bytes, needles, back, kw, caseless=kw)


RULES: Final = (
    _rule(AIC_PAT, PAT_PATTERN, (b"pat_AIC_",), 0),
    # A PAT in a logged URL's query string.
    _rule(AIC_PAT, PAT_URLENCODED_PATTERN, (b"pat%5",), 0),
    _rule(BEARER_TOKEN, AUTHORIZATION_PATTERN, (b"uthoriz",), 1, kw=True),
    _rule(
        BEARER_TOKEN,
        ACCESS_TOKEN_PATTERN,
        (b"ccess_token", b"ccess-token", b"ccesstoken"),
        1,
        kw=True,
    ),
)


def _token_of(rule: Rule, cred: str) -> str:
    return PAT_PREFIX + cred if rule.type_id == AIC_PAT else cred


def find_secrets(text: str) -> list[Secret]:
    """Every secret in ``text`` (no allowlist handling), in order, without overlaps.

    A credential that is itself a PAT (``Authorization: Bearer pat_AIC_...``) is reported once,
    as ``aic-pat``.
    """
    found: list[Secret] = []
    for rule in RULES:
        for m in rule.text.finditer(text):
            cred = m.group("cred")
            if rule.accepts(cred):
                start = m.start() if rule.type_id == AIC_PAT else m.start("cred")
                found.append(Secret(rule.type_id, start, m.end("cred"), _token_of(rule, cred)))
    return drop_overlaps(found)


def drop_overlaps(found: list[Secret]) -> list[Secret]:
    """``found`` in order, each secret that overlaps one before it dropped: on equal starts
    a PAT wins (``Bearer pat_AIC_...`` is a PAT), then the longest match."""
    found.sort(key=lambda s: (s.start, s.type_id != AIC_PAT, -(s.end - s.start)))
    kept: list[Secret] = []
    for secret in found:
        if kept and secret.start < kept[-1].end:
            continue
        kept.append(secret)
    return kept


def iter_secrets_at(data: bytes | bytearray, pos: int, rule: Rule) -> Iterator[Secret]:
    """The secret of ``rule`` whose needle was found at ``pos`` in ``data``, if any.

    The scanner's fast path: it locates a rule's needles and asks here. The match is anchored
    at the keyword, so no pattern runs over text without a needle.
    """
    start = pos - rule.back
    if start < 0:
        return
    m = rule.data.match(data, start, min(len(data), start + 64 + MAX_TOKEN_LENGTH))
    if m is None:
        return
    cred = m.group("cred").decode("ascii")
    if rule.accepts(cred):
        begin = m.start() if rule.type_id == AIC_PAT else m.start("cred")
        yield Secret(rule.type_id, begin, m.end("cred"), _token_of(rule, cred))


def splice(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied (in order, not overlapping)."""
    out: list[str] = []
    last = 0
    for start, end, replacement in spans:
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)


def mask_secrets(text: str) -> str:
    """``text`` with every secret of :func:`find_secrets` replaced by its masked form."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    return splice(text, ((s.start, s.end, s.masked) for s in secrets))
