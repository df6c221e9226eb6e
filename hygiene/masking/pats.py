"""PATs in ``mask()``: ``pat_AIC_...`` and its URL-encoded form ``pat%5FAIC%5F...``.

The first ``PRECISE_KEYS`` tokens of a text are judged one by one: explicit placeholders stay
(``pat_AIC_xxxxxxxx``, ``pat_AIC_${TOKEN}``, ``pat_AIC_EXAMPLE``: the core's
``is_explicit_placeholder``), every other value becomes its masked form, ``pat_AIC_…k3Xz``.
Masking errs toward hiding: a low-entropy body the scanner passes over as a typed stand-in
(``pat_AIC_Ab3Ab3Ab3Ab3``) is hidden all the same, and so is a complete token followed by an
ellipsis. Nothing the scanner reports survives.
Past them, one dense pass (:data:`hygiene.masking.dense.PATS`) hides the rest unjudged and
with no tail: a text with thousands of tokens costs one regex pass, not µs of Python each.
"""

from __future__ import annotations

import re
from typing import Final

from hygiene import detection as core
from hygiene.masking.credentials import PAT, PAT_BODY
from hygiene.masking.dense import PATS, Dense, add_dense_pass
from hygiene.masking.keyvalues import PRECISE_KEYS
from hygiene.masking.spans import Span
from hygiene.ruletable import PAT_URLENCODED_PREFIX
from hygiene.shapes import is_explicit_placeholder, url_decoded

# The core's two PAT rules: plain, then URL-encoded.
_PAT_RULE, _PAT_URLENCODED_RULE = (rule for rule in core.RULES if rule.type_id == core.AIC_PAT)
_VERDICTS: Final[dict[int, str]] = {}
_MAX_VERDICTS: Final = 1024
# The core's two PAT patterns as runs (credentials.PAT), URL-encoded here.
_PAT: Final = PAT
_PAT_URLENCODED: Final = re.compile(PAT_URLENCODED_PREFIX + PAT_BODY)


def _units(cred: str) -> int:
    return len(cred) - 2 * cred.count("%")  # every `%` in a match starts a 3-character escape


def add_pat_spans(text: str, low: str, spans: list[Span], dense: list[Dense]) -> None:
    """Append to ``spans`` the PATs of ``text`` judged one by one, and to ``dense`` the pass
    that hides those past them (``low``: ``text.lower()``)."""
    rest = pat_spans(text, spans)
    if "%5" in text:
        rest = min(rest, urlencoded_pat_spans(text, spans))
    if rest < len(text):
        add_dense_pass(dense, PATS, text, low, rest)


def pat_spans(text: str, found: list[Span]) -> int:
    """Append to ``found`` the first ``PRECISE_KEYS`` PATs of ``text`` that are not
    placeholders; return where the next one starts (``len(text)``: none)."""
    m = _PAT.search(text)  # (a search per match: cheaper than finditer on a record's one)
    for _ in range(PRECISE_KEYS):
        if m is None:
            return len(text)
        start, end = m.span()
        cred = m["cred"]
        if _units(cred) >= core.MIN_SECRET_LENGTH:
            masked = _pat_masked_form(text[start:end], cred)
            if masked:
                found.append(Span(start, end, masked))
        m = _PAT.search(text, end)
    return len(text) if m is None else m.start()


def _pat_masked_form(token: str, cred: str) -> str:
    """The masked form of ``token``, or "" for a placeholder.

    Services log the same token again and again, and the placeholder test is most of the cost
    of masking one: verdicts are remembered under the string's hash (the token itself is not
    kept; at worst two tokens with one 64-bit hash would share a masked form's last characters).
    """
    key = hash(token)
    masked = _VERDICTS.get(key)
    if masked is None:
        # The core judges at most MAX_TOKEN_LENGTH characters (its scanner's bound).
        accepted = not is_explicit_placeholder(cred[: core.MAX_TOKEN_LENGTH])
        masked = core.masked_form(token) if accepted else ""
        if len(_VERDICTS) >= _MAX_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = masked
    return masked


def urlencoded_pat_spans(text: str, found: list[Span]) -> int:
    """:func:`pat_spans` for the URL-encoded form."""
    m = _PAT_URLENCODED.search(text)
    for _ in range(PRECISE_KEYS):
        if m is None:
            return len(text)
        end, cred = m.end(), m["cred"]
        if _units(cred) >= core.MIN_SECRET_LENGTH and not is_explicit_placeholder(
            url_decoded(cred[: core.MAX_TOKEN_LENGTH])
        ):
            # The masked form keeps the encoded prefix: a plain `pat_AIC_` here could join a
            # `pat_AIC_` just before it into a new match on a second pass.
            token = core.PAT_PREFIX + text[m.start("cred") : end]
            masked = core.masked_form(token).replace(
                core.PAT_PREFIX, text[m.start() : m.start("cred")], 1
            )
            if text.startswith(("%5F", "%5f"), end):  # a tail `…pat` + `%5FAIC%5F…` would
                masked = masked[: masked.index(core.ELLIPSIS) + 1]  # be a new match: no tail
            found.append(Span(m.start(), end, masked))
        m = _PAT_URLENCODED.search(text, end)
    return len(text) if m is None else m.start()


__all__ = ["add_pat_spans", "pat_spans", "urlencoded_pat_spans"]
