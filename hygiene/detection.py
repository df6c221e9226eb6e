"""What a secret is: the one place that knows.

Every part of the toolkit (scanner, detect-secrets plugin, hooks, log masking, revoke) asks
this module, never a copy of its patterns:

* ``aic-pat``: ``pat_AIC_`` followed by the secret part ``[A-Za-z0-9_-]{8,}``.
* ``bearer-token``: the credential after ``Authorization`` (any scheme, any case and spacing,
  header line, JSON, dict repr, curl ``-H``, httpcore byte tuples, escaped JSON), the value of
  an ``access_token`` key (JSON, dict repr, query string, form body, env file), and the
  ``value`` of a name/value pair naming one (HAR, Postman, OpenAPI).

Placeholders (``pat_AIC_xxxxxxxx``, ``Bearer ${TOKEN}``, ``EXAMPLE`` ...) are not secrets, and a
line holding ``pragma: allowlist secret`` or ``hygiene: allow`` is skipped. A keyword-anchored
value is reported only when it looks like a credential (:mod:`hygiene.shapes`: not words,
identifiers, member paths, ``x=y`` pairs, documented examples or truncated examples), and its
surroundings are judged here (:func:`_judge`): a comma separates key and value only in a quoted
pair, only real scheme words are schemes, and ``AWS4-HMAC-SHA256``, ``SharedKey`` and ``AWS``
headers report their signature. The detection core is this module, :mod:`hygiene.ruletable`
and :mod:`hygiene.shapes`; none imports anything else of the package.

A secret is identified by its fingerprint (``sha256:`` + hex SHA-256 of the full token;
``scrypt:`` for a guessable credential, :mod:`hygiene.fingerprints`) and shown to humans only
in its masked form (``pat_AIC_…k3Xz``). :class:`Secret` keeps the token in
memory for the caller to hash or revoke, but its ``repr`` never shows it. Patterns exist once,
as text in the rule table (:mod:`hygiene.ruletable`, with every rule's literals, decoders and
masked form), compiled here for ``str`` (masking) and ``bytes`` (the scanner).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Final, TypeAlias

from hygiene.fingerprints import ELLIPSIS as ELLIPSIS
from hygiene.fingerprints import PAT_PREFIX as PAT_PREFIX
from hygiene.fingerprints import fingerprint as fingerprint
from hygiene.fingerprints import masked_form as masked_form
from hygiene.fingerprints import sha1_hex as sha1_hex
from hygiene.fingerprints import sha256_fingerprint
from hygiene.ruletable import ACCESS_TOKEN_PATTERN as ACCESS_TOKEN_PATTERN
from hygiene.ruletable import AIC_PAT as AIC_PAT
from hygiene.ruletable import AUTHORIZATION_PATTERN as AUTHORIZATION_PATTERN
from hygiene.ruletable import BEARER_TOKEN as BEARER_TOKEN
from hygiene.ruletable import MAX_TOKEN_LENGTH as MAX_TOKEN_LENGTH
from hygiene.ruletable import PAIR_PATTERN as PAIR_PATTERN
from hygiene.ruletable import PAIR_TOKEN_PATTERN as PAIR_TOKEN_PATTERN
from hygiene.ruletable import PAT_PATTERN as PAT_PATTERN
from hygiene.ruletable import PAT_URLENCODED_PATTERN as PAT_URLENCODED_PATTERN
from hygiene.ruletable import PAT_URLENCODED_PREFIX, TABLE
from hygiene.shapes import (
    ACCOUNT_SCHEMES,
    aws4_signature,
    basic_is_placeholder,
    url_decoded,
)
from hygiene.shapes import is_placeholder as is_placeholder
from hygiene.shapes import is_reportable_credential as is_reportable_credential
from hygiene.shapes import looks_like_credential as looks_like_credential

TYPE_IDS: Final = (AIC_PAT, BEARER_TOKEN)
TYPE_NAMES: Final = {
    AIC_PAT: "AIC personal access token",
    BEARER_TOKEN: "Bearer credential or access_token value",
}

ALLOW_MARKERS: Final = ("pragma: allowlist secret", "hygiene: allow")

# No secret any rule accepts is shorter (a PAT's secret part, a keyword-anchored credential):
# the scanner skips a needle whose match could not hold that many characters.
MIN_SECRET_LENGTH: Final = 8


def is_allowlisted(line: str | bytes) -> bool:
    """True when the line carries an allowlist marker."""
    if isinstance(line, bytes):
        return any(marker.encode() in line for marker in ALLOW_MARKERS)
    return any(marker in line for marker in ALLOW_MARKERS)


@dataclass(frozen=True)
class Secret:
    """One secret found in a text: where it is, what it is; the token stays out of ``repr``."""

    type_id: str
    start: int
    end: int
    token: str = field(repr=False)

    @property
    def fingerprint(self) -> str:
        """What reports and printed lines name it by (``scrypt:`` for a guessable one)."""
        return fingerprint(self.token)

    @property
    def identity(self) -> str:
        """Its plain SHA-256, to tell secrets apart in memory; never published for a
        guessable credential."""
        return sha256_fingerprint(self.token)

    @property
    def masked(self) -> str:
        return masked_form(self.token)


# eq=False: a rule is itself (RULES holds each once) and hashes by identity; the generated hash
# would hash its patterns' source, 5 us a lookup, and the scanner keys dicts by rule per chunk.
@dataclass(frozen=True, eq=False)
class Rule:
    """One way a secret appears: its pattern, and the literals every match of it holds."""

    type_id: str
    pattern: str
    # The literals the scanner searches for before running the pattern (every match holds
    # one), and how far before its literal a match starts (hygiene.ruletable.Row). With
    # `caseless`, needles are lowercase and match in any case, as the keyword patterns do.
    needles: tuple[bytes, ...]
    back: int
    anchored_by_keyword: bool
    caseless: bool = False
    # The rule table's row this rule is made from (its decoders, its masked form).
    name: str = ""
    decoders: tuple[str, ...] = ()

    # Compiled on first use: a run whose input holds no needle (most pre-commit runs) never
    # pays the 6 ms the rules' patterns take to compile. (cached_property writes the
    # instance's __dict__ directly, which a frozen dataclass allows.)
    @functools.cached_property
    def text(self) -> re.Pattern[str]:
        """The pattern over text."""
        return re.compile(self.pattern)

    @functools.cached_property
    def data(self) -> re.Pattern[bytes]:
        """The pattern over bytes (ASCII: every offset is a byte offset)."""
        return re.compile(self.pattern.encode("ascii"))

    def accepts(self, cred: str) -> bool:
        """Whether the matched value alone is a secret (its surroundings: :func:`_judge`)."""
        if self.anchored_by_keyword:
            # A PAT after `Bearer` is the PAT rule's to judge (and report).
            return not _is_pat(cred) and is_reportable_credential(cred)
        return not is_placeholder(cred)


_URLENCODED_PREFIX = re.compile(PAT_URLENCODED_PREFIX)


def _is_pat(cred: str) -> bool:
    return cred.startswith(PAT_PREFIX) or _URLENCODED_PREFIX.match(cred) is not None


# The scanner's rules: the rows of the rule table that have a pattern, in its order.
RULES: Final = tuple(
    Rule(
        row.type_id,
        row.pattern,
        row.needles,
        row.back,
        row.keyword,
        caseless=row.keyword,
        name=row.name,
        decoders=row.decoders,
    )
    for row in TABLE
    if row.type_id is not None and row.pattern is not None
)


def _token_of(rule: Rule, cred: str) -> str:
    return PAT_PREFIX + url_decoded(cred) if rule.type_id == AIC_PAT else cred


def _judged(rule: Rule, cred: str) -> str:
    """What ``rule.accepts`` judges: a PAT's decoded secret part, a credential as it is."""
    return url_decoded(cred) if rule.type_id == AIC_PAT else cred


# The shortest secret part of an issued PAT: tokens are minted from 24 random bytes or more,
# 32 base64url characters (the stand-in mints 40; minting.py accepts any length from 8, the
# SPEC's bound). A PAT this long followed by `...` is no example cut short.
COMPLETE_PAT_LENGTH: Final = 32
# What may follow a value that is an example cut short: `...` or `…`, in text and as UTF-8 bytes
# (read one byte per character).
_TEXT_TRUNCATIONS: Final = ("...", "…")
_BYTES_TRUNCATIONS: Final = ("...", "…".encode().decode("latin-1"))
# Before a key whose value follows a comma: `(` and the key's opening quote, with `b` for bytes
# and a short key prefix (`("Proxy-Authorization", "…")`, `(b'x-access-token', b'…')`).
_PAIR_OPEN: Final = re.compile(r"""\([ \t]*b?\\{0,3}["'][A-Za-z_-]{0,16}\Z""")


_Match: TypeAlias = "re.Match[str] | re.Match[bytes]"
_Buffer: TypeAlias = "str | bytes | bytearray"


def _str(chunk: _Buffer) -> str:
    """``chunk`` as text, one character per byte, so offsets stay byte offsets."""
    return chunk if isinstance(chunk, str) else chunk.decode("latin-1")


def _group(m: _Match, name: str) -> str | None:
    if name not in m.re.groupindex:
        return None
    value = m.group(name)
    return None if value is None else _str(value)


def _judge(rule: Rule, m: _Match, buf: _Buffer) -> tuple[int, int, str] | None:
    """Where the secret of match ``m`` in ``buf`` lies, and its token; None when it is none.

    The value's own shape is :meth:`Rule.accepts`'s to judge; here, its surroundings: a value
    followed by an ellipsis is a truncated example, a comma separates key and value only in a
    quoted pair, and structured schemes name the part that is the secret.
    """
    start, end = m.span("cred")
    cred = _str(m.group("cred"))
    cuts = _TEXT_TRUNCATIONS if isinstance(buf, str) else _BYTES_TRUNCATIONS
    if _str(buf[end : end + 3]).startswith(cuts) and not _complete_pat(rule, cred):
        return None
    if rule.type_id == AIC_PAT:
        token = _token_of(rule, cred)
        return (m.start(), end, token) if rule.accepts(_judged(rule, cred)) else None
    if _group(m, "comma") is not None and not _in_pair(m, buf):
        return None
    scheme = (_group(m, "scheme") or "").lower()
    if scheme == "aws4-hmac-sha256":
        return aws4_signature(_str(buf[start : start + 2048]), start)
    account = _group(m, "account")
    if account is not None and (scheme not in ACCOUNT_SCHEMES or is_placeholder(account)):
        return None
    if scheme == "basic" and basic_is_placeholder(cred):
        return None
    return (start, end, cred) if rule.accepts(cred) else None


def _complete_pat(rule: Rule, cred: str) -> bool:
    """Whether a PAT's secret part is as long as an issued token's: then an ellipsis after it
    ends a sentence or a log line's cut, and marks no example cut short."""
    return rule.type_id == AIC_PAT and len(url_decoded(cred)) >= COMPLETE_PAT_LENGTH


def _in_pair(m: _Match, buf: _Buffer) -> bool:
    """True when the key and value around a comma are a quoted pair in a tuple or a call."""
    if m.group("kq") is None or m.group("vq") is None:
        return False
    key = m.start()
    return _PAIR_OPEN.search(_str(buf[max(0, key - 24) : key])) is not None


def find_secrets(text: str, rules: tuple[Rule, ...] = RULES) -> list[Secret]:
    """Every secret in ``text`` (no allowlist handling), in order, without overlaps; only
    those of ``rules`` when given (a subset of :data:`RULES`).

    A credential that is itself a PAT (``Authorization: Bearer pat_AIC_...``) is reported once,
    as ``aic-pat``.
    """
    found: list[Secret] = []
    low = text.lower() if len(text.lower()) == len(text) else text
    for rule in rules:
        for m in _matches(rule, text, low if rule.caseless else text):
            verdict = _judge(rule, m, text)
            if verdict is not None:
                found.append(Secret(rule.type_id, *verdict))
    return drop_overlaps(found)


def _matches(rule: Rule, text: str, hay: str) -> Iterator[re.Match[str]]:
    """The rule's matches as the scanner finds them: none runs into the rule's next needle
    (two PATs glued together are two tokens). ``hay``: ``text`` as the needles are searched."""
    needles = [n.decode("ascii") for n in rule.needles]
    pos = 0
    while (m := rule.text.search(text, pos)) is not None:
        after = m.start() + rule.back + 1
        ends = [i for i in (hay.find(n, after, m.end()) for n in needles) if i != -1]
        if not ends:
            yield m
            pos = m.end()
            continue
        pos = min(ends) - rule.back  # where the next needle's match starts: the cut
        if (cut := rule.text.match(text, m.start(), pos)) is not None:
            yield cut


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


def secret_at(
    data: bytes | bytearray, pos: int, rule: Rule, limit: int | None = None
) -> Secret | None:
    """The secret of ``rule`` whose needle was found at ``pos`` in ``data``, if any.

    The scanner's fast path: it locates a rule's needles and asks here. The match is anchored
    at the keyword, so no pattern runs over text without a needle. ``limit`` ends the text
    the match may cover (the scanner passes where the rule's next needle starts, so each byte
    is walked once per rule, whatever the input); a match is never longer than
    ``MAX_TOKEN_LENGTH`` plus its keyword.
    """
    start = pos - rule.back
    if start < 0:
        return None
    end = min(len(data), start + 64 + MAX_TOKEN_LENGTH)
    m = rule.data.match(data, start, end if limit is None else min(end, limit))
    if m is None:
        return None
    verdict = _judge(rule, m, data)
    return None if verdict is None else Secret(rule.type_id, *verdict)


def splice(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied (in order, not overlapping)."""
    spans = spans if isinstance(spans, list) else list(spans)
    if len(spans) > 64:
        # Thousands of spans (a huge line of keys): the pieces cut and joined in C, no Python
        # step per span (a loop took 0.8 s on 1.4 million).
        starts = map(operator.itemgetter(0), spans)
        ends = map(operator.itemgetter(1), spans)
        gaps = map(text.__getitem__, map(slice, chain((0,), ends), chain(starts, (len(text),))))
        replacements = chain(map(operator.itemgetter(2), spans), ("",))
        return "".join(chain.from_iterable(zip(gaps, replacements, strict=True)))
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
