"""Credentials after a scheme word, and URL passwords: the rules of ``mask()`` besides PATs
and keys (:mod:`hygiene.masking.text` runs them).

* ``Bearer <credential>`` outside a header, when the credential looks random;
* ``Basic <base64>`` anywhere, when it decodes to ``user:password``;
* the password of a URL's userinfo (``https://user:…@host``);
* a URL's user name with no password when it is a credential (``https://…k3Xz@github.com``,
  how GitHub, GitLab and other forges take a token): one of a known format (the core's
  issuers), or long and random as the scanner judges credentials. User names are everywhere
  in URLs (``ssh://git@``, ``postgres://postgres@``, ``https://jane.doe@``) and stay.

A credential the key rules masked already (``Authorization: Bearer ...``) is not judged again.
Bounded cost: the first ``PRECISE_KEYS`` candidates of a text are judged one by one; past
them, one dense pass (:mod:`hygiene.masking.dense`) hides the rest unjudged.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import operator
import re
from collections.abc import Callable
from typing import Final

from hygiene import detection as core
from hygiene.issuers import known_issuer
from hygiene.masking.dense import (
    BASICS,
    BEARERS,
    LONGEST_USER,
    PAT_RUN,
    USERINFO,
    Dense,
    DenseRule,
    add_dense_pass,
    dense_spans,
    with_dense,
)
from hygiene.masking.densetwin import token_users_twin
from hygiene.masking.keys import is_masked, safe_masked_form
from hygiene.masking.keyvalues import PRECISE_KEYS
from hygiene.masking.spans import Span, without_overlaps
from hygiene.ruletable import PAT_URLENCODED_PREFIX

# Both run over the lowercased text (a case-sensitive literal prefix is a fast search, and
# Python work is only done per match); the credential is read back from the original text.
# A backslash is in the class so that a run of `\/` (JSON's escaped slash) costs no
# alternation per character; a credential ends at a backslash that escapes anything else.
_BEARER: Final = re.compile(r"bearer[ \t]+(?P<cred>[a-z0-9._~+/=%\\-]{8,})(?![a-z0-9._~+/=%…\\-])")
_BASIC: Final = re.compile(r"basic[ \t]+(?P<cred>[a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=._~%…-])")
_ESCAPE: Final = re.compile(r"\\(?!/)")
_USERINFO: Final = re.compile(
    r"""://[^/\s:@'"<>]{0,""" + str(LONGEST_USER) + r"""}:(?P<pw>[^/\s@'"<>]+)@"""
)
# A user name alone (no `:`): it ends at what ends an authority. Each match stops at the next
# `:`, which the next `://` starts with: every character is read once (linear).
_USER_ONLY: Final = re.compile(r"""://(?P<user>[^/?#\s:@'"<>]{8,})@""")
# A random user name this long is a credential (a name reads as words, or is shorter).
USER_CREDENTIAL_LENGTH: Final = 20
_PAT_IN_USER: Final = re.compile(re.escape(core.PAT_PREFIX) + "|" + PAT_URLENCODED_PREFIX)
# A user name made of token characters (past the judged URLs), 20 or more, with a digit or
# both cases, holding no PAT: (://)(user)@. The class holds no `:`, so every look-ahead and
# each match stop before the next `://` (linear).
_USER_CHARS: Final = "A-Za-z0-9_~+=-"
_TOKEN_USER: Final = re.compile(
    f"(://)((?=[{_USER_CHARS}]{{{USER_CREDENTIAL_LENGTH}}})"
    f"(?:(?=[A-Za-z_~+=-]*[0-9])|(?=[a-z0-9_~+=-]*[A-Z])(?=[A-Z0-9_~+=-]*[a-z]))"
    f"(?![{_USER_CHARS}]*?{re.escape(core.PAT_PREFIX)})"
    f"[{_USER_CHARS}]{{{USER_CREDENTIAL_LENGTH},}})(?=@)"
)
_TOKEN_USER_TWIN: Final = token_users_twin(core.PAT_PREFIX, USER_CREDENTIAL_LENGTH)
TOKEN_USERS: Final = DenseRule(_TOKEN_USER, _TOKEN_USER, _TOKEN_USER_TWIN)  # case-sensitive
# The core's two PAT patterns as runs, without their length bound (tokens of any length are
# masked whole): `re` walks a character class in C, while the core's one-unit alternation
# costs a branch per character (a search on a short record took 1.5 µs instead of 0.3).
# A unit is a token character or an escape (`%5F`, `%2D`); too few of them: no token.
PAT_BODY: Final = f"(?P<cred>{PAT_RUN})"
PAT: Final = re.compile(core.PAT_PREFIX + PAT_BODY)


def userinfo_spans(
    text: str, low: str, dense: list[Dense], users: list[Span] | None = None
) -> list[Span]:
    """URL passwords (the first :data:`PRECISE_KEYS` URLs judged, a dense pass past them);
    user names that are credentials, in URLs without a password, go to ``users``."""
    found: list[Span] = []
    pos = text.find("://")
    for _ in range(PRECISE_KEYS):
        if pos == -1:
            return found
        span = _userinfo_span(text, pos)
        if span is not None:
            found.append(span)
        elif users is not None and (user := _user_span(text, pos)) is not None:
            users.append(user)
            span = user
        pos = text.find("://", span.end if span is not None else pos + 3)
    if pos != -1:  # past that many URLs, one pass hides every password, masked or not
        add_dense_pass(dense, USERINFO, text, low, pos)
        if users is not None:
            # User names by their shape alone, as ``…`` (as the dense passes hide values; a
            # name such as ``deploy-bot-2`` may go too: a text of that many URLs errs toward
            # hiding). Hidden first, with the passwords: one join, no span per user.
            add_dense_pass(dense, TOKEN_USERS, text, low, pos)
    return found


class Covered:
    """What the key rules masked, merged once a candidate asks (most texts with a `bearer`
    have no credential after it, and merging thousands of dense values costs ms)."""

    def __init__(self, text: str, spans: list[Span], dense: list[Dense]) -> None:
        self.text, self.spans, self.dense = text, list(spans), dense
        self.covered: list[Span] | None = None
        self.starts: list[int] = []

    def end(self, pos: int) -> int | None:
        """Where the masked span holding ``pos`` ends; ``None`` when none does."""
        if self.covered is None:
            self.covered = self._merged()
            self.starts = list(map(operator.itemgetter(0), self.covered))
        i = bisect.bisect_right(self.starts, pos) - 1
        return self.covered[i][1] if i >= 0 and pos < self.covered[i][1] else None

    def _merged(self) -> list[Span]:
        head = without_overlaps(self.spans)
        if len(self.dense) == 1 and (not head or head[-1][1] <= self.dense[0].pos):
            return head + dense_spans(self.dense[0])  # in order, apart already: no merging
        return with_dense(self.text, head, self.dense, set())


# What a judge makes of one candidate: its span (None: not a secret) and where to search on.
Judged = tuple[Span | None, int]


def judged_then_dense(
    pattern: re.Pattern[str],
    rule: DenseRule,
    text: str,
    low: str,
    dense: list[Dense],
    judge: Callable[[re.Match[str]], Judged],
) -> list[Span]:
    """The spans ``judge`` gives the first :data:`PRECISE_KEYS` matches of ``pattern`` in
    ``low``; past that many, one dense pass of ``rule`` hides every later one unjudged."""
    found: list[Span] = []
    m = pattern.search(low)
    for _ in range(PRECISE_KEYS):
        if m is None:
            return found
        span, resume = judge(m)
        if span is not None:
            found.append(span)
        m = pattern.search(low, resume)
    if m is not None:
        add_dense_pass(dense, rule, text, low, m.start())
    return found


def bearer_spans(text: str, low: str, covered: Covered, dense: list[Dense]) -> list[Span]:
    def judge(m: re.Match[str]) -> Judged:
        start, end = m.span("cred")
        resume = m.end()
        escape = _ESCAPE.search(low, start, end)
        if escape is not None:
            end = resume = escape.start()  # what follows the cut may hold a scheme of its own
        cred = text[start:end]
        if cred.startswith(core.PAT_PREFIX):
            # The PAT rule masks the token; a second pass reads on after its masked form.
            return None, PAT.match(text, start).end()  # type: ignore[union-attr]  # matches
        if (
            len(cred) >= 8
            and covered.end(start) is None
            and core.looks_like_credential(cred.replace("\\/", "/"))
        ):
            return Span(start, end, safe_masked_form(cred)), resume
        return None, resume

    return judged_then_dense(_BEARER, BEARERS, text, low, dense, judge)


def basic_spans(text: str, low: str, covered: Covered, dense: list[Dense]) -> list[Span]:
    """``Basic <base64 of user:password>``: hidden whole (its tail would give bits away)."""

    def judge(m: re.Match[str]) -> Judged:
        start, end = m.span("cred")
        inside = covered.end(start)
        if inside is not None:
            # What the key rules masked holds no other candidate.
            return None, max(m.end(), inside)
        if _is_basic_credential(text[start:end]):
            return Span(start, end, core.ELLIPSIS), m.end()
        return None, m.end()

    return judged_then_dense(_BASIC, BASICS, text, low, dense, judge)


def _is_basic_credential(cred: str) -> bool:
    try:
        decoded = base64.b64decode(cred + "=" * (-len(cred) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _userinfo_span(text: str, pos: int) -> Span | None:
    m = _USERINFO.match(text, pos)
    if m is None or is_masked(m.group("pw")):
        return None
    return Span(m.start("pw"), m.end("pw"), core.ELLIPSIS)


def _user_span(text: str, pos: int) -> Span | None:
    m = _USER_ONLY.match(text, pos)
    if m is None or not is_credential_user(m.group("user")):
        return None
    return Span(m.start("user"), m.end("user"), safe_masked_form(m.group("user")))


def is_credential_user(user: str) -> bool:
    """Whether a URL's user name (with no password) is a credential: a token of a known
    format, or :data:`USER_CREDENTIAL_LENGTH` characters or more that the scanner would
    report as a credential (not words, not a placeholder or an example, a digit or both
    cases). A PAT is left to the PAT rule."""
    if is_masked(user) or _PAT_IN_USER.search(user):
        return False
    if known_issuer(user) is not None:
        return True
    return len(user) >= USER_CREDENTIAL_LENGTH and core.is_reportable_credential(user)


__all__ = [
    "PAT",
    "PAT_BODY",
    "TOKEN_USERS",
    "USER_CREDENTIAL_LENGTH",
    "Covered",
    "Judged",
    "basic_spans",
    "bearer_spans",
    "is_credential_user",
    "judged_then_dense",
    "userinfo_spans",
]
