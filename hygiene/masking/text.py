"""``mask(text)``: every secret in a text replaced by its masked form, the rest byte for byte.

What is masked:

* PATs (``pat_AIC_...``, URL-encoded ``pat%5FAIC%5F...`` too), found by the detection core.
* Any credential after ``Authorization`` (any scheme, even a short one), to the syntactic end
  of the value: the closing quote of a quoted value (``&``, ``;`` and spaces included), a
  delimiter for an unquoted one. The scheme word stays readable (``Bearer …k3Xz``).
* ``Bearer <credential>`` outside a header, when the credential looks random; ``Basic
  <base64>`` anywhere (gunicorn's ``%({authorization}i)s`` prints it with no header name) when
  it decodes to ``user:password``.
* Values of sensitive keys (:mod:`hygiene.masking.keys`) in JSON (escaped JSON inside JSON
  too), dict repr with either quote, ``(b'key', b'value')`` tuples, query strings, form bodies,
  ``key=value`` and ``Key: value`` lines.
* The password of a URL's userinfo (``https://user:…@host``).

Speed: a cheap case-insensitive substring gate runs first and only the rules whose hint is in
the text run, anchored at the hint (measured in ``bench/mask_bench.py``). Linear time: every
rule goes left to right and resumes after what it masked, no value is walked more than a
bounded number of times, and tokens of any length are masked whole (the core's
``MAX_TOKEN_LENGTH`` bounds the scanner's read-ahead, not masking). Idempotent: nothing a
replacement leaves behind matches again. ANSI colour codes are looked through.
"""

from __future__ import annotations

import re
from typing import Final

from hygiene import detection as core
from hygiene.masking.credentials import (
    PAT,
    PAT_BODY,
    Covered,
    basic_spans,
    bearer_spans,
    userinfo_spans,
)
from hygiene.masking.dense import Dense, dense_text, merged, with_dense
from hygiene.masking.gate import has_hint
from hygiene.masking.keyvalues import add_key_spans
from hygiene.masking.spans import Span, splice, without_overlaps

# The core's two PAT rules: plain, then URL-encoded.
_PAT_RULE, _PAT_URLENCODED_RULE = (rule for rule in core.RULES if rule.type_id == core.AIC_PAT)

# From this length on, one Hyperscan pass is the cheaper gate (see gate.py).
LONG: Final = 256
_ANSI: Final = re.compile(r"\x1b(?:\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}

_VERDICTS: Final[dict[int, str]] = {}
_MAX_VERDICTS: Final = 1024
# The core's two PAT patterns as runs (credentials.PAT), URL-encoded here.
_PAT: Final = PAT
_PAT_URLENCODED: Final = re.compile(r"pat%5[Ff]AIC%5[Ff]" + PAT_BODY)


def _units(cred: str) -> int:
    return len(cred) - 2 * cred.count("%")  # every `%` in a match starts a 3-character escape


def mask(text: str) -> str:
    """``text`` with every secret replaced by its masked form; everything else unchanged.

    Text without secrets is returned as is (the same object).
    """
    found = _found(text)
    if found is None:
        return text
    spans, dense, passwords = found
    if len(dense) == 1:  # a text repeating one key, scheme or URL thousands of times
        pos = dense[0].pos
        spans = merged(text, spans, passwords)
        if not spans or spans[-1][1] <= pos:  # nothing else reaches into its pass
            return splice(text[:pos], spans) + dense_text(dense[0])
    spans = with_dense(text, spans, dense, passwords)
    return splice(text, spans) if spans else text


def secret_spans(text: str) -> list[Span]:
    """What :func:`mask` replaces in ``text``: spans in order, without overlaps."""
    found = _found(text)
    if found is None:
        return []
    spans, dense, passwords = found
    if dense or passwords:
        return with_dense(text, spans, dense, passwords)
    return without_overlaps(spans)  # (a record's few spans: no further call)


def _found(text: str) -> tuple[list[Span], list[Dense], set[int]] | None:
    """What the rules find in ``text`` (see :func:`_collect`); ``None`` when the gate finds
    no hint of a secret."""
    if len(text) >= LONG and has_hint(text) is False:
        return None
    if "\x1b" in text:
        return _spans_through_ansi(text), [], set()
    # The gate: this runs on every log record, and most hold no hint at all. Unrolled as in
    # may_hold_secret: the filter calls this alone, and a function call costs a tenth of it.
    low = text.lower()
    has_key = (  # _has_key_hint(low)
        ("k" in low and ("key" in low or "token" in low or "cookie" in low))
        or ("ss" in low and ("pass" in low or "sessi" in low))
        or ("cre" in low and ("secret" in low or "credential" in low))
        or ("w" in low and "pwd" in low)
        or ("z" in low and "authoriz" in low)
    )
    # `I` first: a capital I is rarer than any other letter of `AIC` (see _has_key_hint).
    if (
        has_key
        or ("I" in text and "AIC" in text)
        or ("b" in low and ("bearer" in low or "basic" in low))
        or "@" in text
    ):
        return _collect(text, low, has_key=has_key)
    return None


def may_hold_secret(text: str) -> bool:
    """The gate alone: False means :func:`mask` would return ``text`` unchanged."""
    if len(text) >= LONG:
        hint = has_hint(text)
        if hint is not None:
            return hint
    if "\x1b" in text:
        return True
    low = text.lower()
    return (  # _has_key_hint unrolled: this runs on every clean record
        ("k" in low and ("key" in low or "token" in low or "cookie" in low))
        or ("ss" in low and ("pass" in low or "sessi" in low))
        or ("cre" in low and ("secret" in low or "credential" in low))
        or ("w" in low and "pwd" in low)
        or ("z" in low and "authoriz" in low)
        or ("I" in text and "AIC" in text)
        or ("b" in low and ("bearer" in low or "basic" in low))
        or "@" in text
    )


def _has_key_hint(low: str) -> bool:
    """Whether ``low`` holds one of ``KEY_HINTS``.

    A one-character search is a memchr (0.04 µs on 1 KB); a multi-character one costs
    0.5-0.8 µs. So each hint is looked for only once a piece it contains is there.
    """
    return (
        ("k" in low and ("key" in low or "token" in low or "cookie" in low))
        or ("ss" in low and ("pass" in low or "sessi" in low))
        or ("cre" in low and ("secret" in low or "credential" in low))
        or ("w" in low and "pwd" in low)
        or ("z" in low and "authoriz" in low)
    )  # KEY_HINTS unrolled (a loop costs 30% more); a test covers every key


def find_spans(text: str, low: str | None = None, *, has_key: bool = True) -> list[Span]:
    """The parts of ``text`` to replace, in order, without overlaps.

    ``low`` is ``text.lower()`` when the caller has it; ``has_key=False`` skips the key rules.
    """
    spans, dense, passwords = _collect(text, low, has_key=has_key)
    if dense or passwords:
        return with_dense(text, spans, dense, passwords)
    return without_overlaps(spans)


def _collect(
    text: str, low: str | None = None, *, has_key: bool = True
) -> tuple[list[Span], list[Dense], set[int]]:
    """What every rule finds: spans (in no order, overlapping), the dense passes (texts with
    more candidates than the precise rules judge) and where URL passwords start."""
    if low is None or len(low) != len(text):
        low = text.lower()
    if len(low) != len(text):  # `İ` lowers to two characters: keep positions aligned
        low = text.translate(_ASCII_LOWER)
    spans: list[Span] = []
    dense: list[Dense] = []
    if "AIC" in text:  # both PAT forms are case-sensitive: `pat_AIC_`, `pat%5FAIC%5F`
        spans.extend(_pat_spans(text))
        if "%5" in text:
            spans.extend(_urlencoded_pat_spans(text))
    if has_key and ("=" in text or ":" in text or "," in text):  # no separator, no value
        add_key_spans(text, low, spans, dense)
    if "bearer" in low or "basic" in low:
        # A credential the key rules already masked (`Authorization: Bearer ...`) is not
        # judged again (on a 64 KB credential that judgement is most of the cost).
        covered = Covered(text, spans, dense)
        if "bearer" in low:
            spans.extend(bearer_spans(text, low, covered, dense))
        if "basic" in low:
            spans.extend(basic_spans(text, low, covered, dense))
    passwords: set[int] = set()
    if "@" in text and "://" in text:
        found = userinfo_spans(text, low, dense)
        spans.extend(found)
        passwords.update(span[0] for span in found)
    return spans, dense, passwords


def _pat_spans(text: str) -> list[Span]:
    found: list[Span] = []
    m = _PAT.search(text)
    while m is not None:
        start, end = m.span()
        cred = m["cred"]
        if _units(cred) >= core.MIN_SECRET_LENGTH:
            masked = _pat_masked_form(text[start:end], cred)
            if masked:
                found.append(Span(start, end, masked))
        m = _PAT.search(text, end)
    return found


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
        accepted = _PAT_RULE.accepts(cred[: core.MAX_TOKEN_LENGTH])
        masked = core.masked_form(token) if accepted else ""
        if len(_VERDICTS) >= _MAX_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = masked
    return masked


def _urlencoded_pat_spans(text: str) -> list[Span]:
    found: list[Span] = []
    m = _PAT_URLENCODED.search(text)
    while m is not None:
        end, cred = m.end(), m["cred"]
        if _units(cred) >= core.MIN_SECRET_LENGTH and _PAT_URLENCODED_RULE.accepts(
            cred[: core.MAX_TOKEN_LENGTH]
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
    return found


def _spans_through_ansi(text: str) -> list[Span]:
    """Spans of ``text`` found as if its ANSI escape codes were not there (codes are kept)."""
    plain: list[str] = []
    origin: list[int] = []  # origin[i]: where the i-th plain character sits in ``text``
    last = 0
    for m in _ANSI.finditer(text):
        plain.append(text[last : m.start()])
        origin.extend(range(last, m.start()))
        last = m.end()
    plain.append(text[last:])
    origin.extend(range(last, len(text)))
    spans = find_spans("".join(plain))
    return [Span(origin[start], origin[end - 1] + 1, new) for start, end, new in spans]
