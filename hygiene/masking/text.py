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
* Credentials in name/value pairs (HAR, Postman, OpenAPI), through the core's rules
  (:mod:`hygiene.masking.pairs`).
* PATs the scanner finds inside encodings: a base64 run carrying one is re-encoded masked, a
  UTF-16 fragment becomes its masked form in UTF-16 (:mod:`hygiene.masking.decoded`).

Masking and the scanner agree one way: nothing the scanner reports survives ``mask()``
(``tests/masking/test_agreement.py``). Masking errs toward hiding where the scanner errs
toward precision: a bare ``Bearer <credential>``, a low-entropy ``pat_AIC_`` body and values
of every sensitive key are hidden, not reported.

Speed: a cheap case-insensitive substring gate runs first and only the rules whose hint is in
the text run, anchored at the hint (measured in ``bench/mask_bench.py``). Linear time: every
rule goes left to right and resumes after what it masked, no value is walked more than a
bounded number of times, and tokens of any length are masked whole (the core's
``MAX_TOKEN_LENGTH`` bounds the scanner's read-ahead, not masking). Idempotent: nothing a
replacement leaves behind matches again. ANSI colour codes are looked through.
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Final

from hygiene.detection import ELLIPSIS
from hygiene.masking.context import context_spans
from hygiene.masking.credentials import Covered, basic_spans, bearer_spans, userinfo_spans
from hygiene.masking.decoded import encoded_spans, may_hold_encoded
from hygiene.masking.dense import Dense, dense_spans, dense_text, hidden_text, merged, with_dense
from hygiene.masking.elements import element_spans
from hygiene.masking.gate import has_hint
from hygiene.masking.hints import KEY, hints_in
from hygiene.masking.keys import KEY_HINTS
from hygiene.masking.keyvalues import add_key_spans
from hygiene.masking.pairs import may_hold_pair, pair_spans
from hygiene.masking.pats import add_pat_spans
from hygiene.masking.present import WORDS_FROM, may_hold, words_in
from hygiene.masking.spans import Span, splice, through_hidden, without_overlaps
from hygiene.masking.urlencoded import decoded_spans

# From this length on, one Hyperscan pass is the cheaper gate (see gate.py).
LONG: Final = 256
_ANSI: Final = re.compile(r"\x1b(?:\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def mask(text: str) -> str:
    """``text`` with every secret replaced by its masked form; everything else unchanged.

    Text without secrets is returned as is (the same object).
    """
    found = _found(text)
    if found is not None and found[3] is not None:
        text, found = _left_after_hiding(text, found[3])
    if found is None:
        return text
    spans, dense, passwords, _ = found
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
    return [] if found is None else _spans(text, found)


# What the rules find in a text (see _collect; a plain tuple: this runs on every record that
# holds a hint): spans (in no order, overlapping), the dense passes (texts with more candidates
# than are judged), where URL passwords start, and a dense pass of URL passwords to hide before
# any other rule runs (past the judged URLs: see _collect).
_Found = tuple[list[Span], list[Dense], set[int], Dense | None]


def _spans(text: str, found: _Found) -> list[Span]:
    spans, dense, passwords, hidden = found
    if hidden is not None:
        left, inner = _left_after_hiding(text, hidden)
        return through_hidden(dense_spans(hidden), _spans(left, inner))
    if dense or passwords:
        return with_dense(text, spans, dense, passwords)
    return without_overlaps(spans)  # (a record's few spans: no further call)


def _left_after_hiding(text: str, hidden: Dense) -> tuple[str, _Found]:
    """The text left once the URL passwords of ``hidden`` are hidden, and what the other rules
    find in it."""
    left = hidden_text(text, hidden)
    return left, _collect(left, hide_urls=False)


def _found(text: str) -> _Found | None:
    """What the rules find in ``text`` (see :func:`_collect`); ``None`` when the gate finds
    no hint of a secret."""
    if len(text) >= LONG and has_hint(text) is False:
        return _encoded_only(text)
    if "\x1b" in text:
        return _spans_through_ansi(text), [], set(), None
    # The gate (hints.py, from the core's rule table): this runs on every log record, and
    # most hold no hint at all.
    low = text.lower()
    verdict = hints_in(text, low)
    if verdict:
        return _collect(text, low, has_key=verdict == KEY)
    return _encoded_only(text) if may_hold_encoded(text) else None


def _encoded_only(text: str) -> _Found | None:
    """What the rules find in a text holding no hint: only encoded PATs can be there."""
    spans = encoded_spans(text, mask)
    return (spans, [], set(), None) if spans else None


def find_spans(text: str, low: str | None = None, *, has_key: bool = True) -> list[Span]:
    """The parts of ``text`` to replace, in order, without overlaps.

    ``low`` is ``text.lower()`` when the caller has it; ``has_key=False`` skips the key rules.
    """
    spans, dense = spans_before_pass(text, low, has_key=has_key)
    return spans if dense is None else spans + dense_spans(dense)


def spans_before_pass(
    text: str, low: str | None = None, *, has_key: bool = True
) -> tuple[list[Span], Dense | None]:
    """:func:`find_spans` as the spans before one dense pass, and that pass: a text repeating
    one key, scheme or URL (a huge line of them) is left as the pass's pieces, whose values
    follow the other spans in order already (as in mask(): no sort, no merge step, no span
    per value). ``None``: the spans are all there is."""
    found = _collect(text, low, has_key=has_key)
    spans, dense, passwords, hidden = found
    if hidden is not None:
        left, inner = _left_after_hiding(text, hidden)
        head = _spans(left, inner)
        if not head or head[-1][1] <= hidden.pos:
            # What the other rules find lies before the pass (where the two texts are one):
            # the pass follows it, left as its pieces (a huge line of URLs: a span per
            # password, mapped back, was 40% of its time).
            return head, hidden
        return through_hidden(dense_spans(hidden), head), None
    if len(dense) == 1 and not passwords:
        head = without_overlaps(spans)
        if not head or head[-1][1] <= dense[0].pos:
            return head, dense[0]
    if dense or passwords:
        return _spans(text, found), None
    return without_overlaps(spans), None  # (a record's few spans: no further call)


def _collect(
    text: str,
    low: str | None = None,
    *,
    has_key: bool = True,
    hide_urls: bool = True,
    decode: bool = True,
) -> _Found:
    """What every rule finds in ``text``; ``hide_urls``: URL passwords past the judged ones
    are to be hidden before the other rules run (the other rules then have not run);
    ``decode``: URL-encoded text is also read decoded (urlencoded.py)."""
    if low is None or len(low) != len(text):
        low = text.lower()
    if len(low) != len(text):  # `İ` lowers to two characters: keep positions aligned
        low = text.translate(_ASCII_LOWER)
    # A huge text: which gate words it holds, found in one pass (a record: the text itself,
    # with no call more on the path every record with a hint takes).
    seen = low if len(low) < WORDS_FROM else words_in(low)
    spans: list[Span] = []
    dense: list[Dense] = []
    userinfo: list[Span] = []
    users: list[Span] = []  # credentials as a URL's user name, without a password
    if "@" in text and "://" in text:
        # Such a password may hold (or end) what another rule reads as a value of its own
        # (`api_key://u:}@x`: the key's value is `//u:`): hidden first, they leave the other
        # rules nothing to merge with them one span at a time.
        userinfo = userinfo_spans(text, low, dense, users)
        if dense and hide_urls:
            return [], [], set(), dense[0]
    if (seen is low or "aic" in seen) and "AIC" in text:  # `pat_AIC_`, `pat%5FAIC%5F`: cased
        add_pat_spans(text, low, spans, dense)
    pats = len(spans)  # the PATs: the encoded ones' gate need not look inside them
    # (no separator, no value; a huge text holding no key hint has no key: no 35 ms search)
    keyed = has_key and (seen is low or may_hold(seen, low, KEY_HINTS))
    if keyed and ("=" in text or ":" in text or "," in text):
        add_key_spans(text, low, spans, dense)
    if has_key and "<" in text:
        spans.extend(element_spans(text, low, dense))
    if has_key and decode and "%" in text:
        spans.extend(decoded_spans(text, low, _undecoded_spans, dense))
    spans.extend(context_spans(text, low, dense, has_key=has_key, seen=seen))
    if "bearer" in seen or "basic" in seen:
        # A credential the key rules already masked (`Authorization: Bearer ...`) is not
        # judged again (on a 64 KB credential that judgement is most of the cost).
        covered = Covered(text, spans, dense)
        if "bearer" in seen:
            spans.extend(bearer_spans(text, low, covered, dense))
        if "basic" in seen:
            spans.extend(basic_spans(text, low, covered, dense))
    _add_uncovered(users, spans)  # (a key's value may hold the whole URL)
    _add_encoded(text, spans, spans[:pats])
    if has_key and may_hold_pair(seen):
        _add_uncovered(pair_spans(text), spans)
    if not userinfo:
        return spans, dense, set(), None
    spans.extend(userinfo)
    return spans, dense, {span[0] for span in userinfo}, None


def _undecoded_spans(text: str) -> list[Span]:
    """What every rule but the URL-decoded view masks in ``text`` (the decoded view itself)."""
    found = _collect(text, decode=False)
    return _spans(text, found)


def _add_encoded(text: str, spans: list[Span], pats: list[Span]) -> None:
    """Encoded PATs (:mod:`hygiene.masking.decoded`) joined to ``spans``: a run another rule
    hides already (``Authorization: Basic ...``) is left to it, so a second pass finds that
    rule's form, not a new base64 run to mask again. One that runs past another rule's value
    (a run the decoders read on over a line break) is hidden whole with it, as ``…``: the
    value rule would mask a re-encoded run again on a second pass."""
    _add_uncovered(encoded_spans(text, mask, pats), spans, overlapping=ELLIPSIS)


def _add_uncovered(found: list[Span], spans: list[Span], overlapping: str | None = None) -> None:
    """``found`` joined to ``spans``, but for a span one of ``spans`` holds whole (one sorted
    pass and a binary search each: texts may hold thousands of either); ``overlapping``: the
    replacement of one that overlaps some of ``spans`` (None: its own)."""
    if not found:
        return
    ordered = sorted((s[0], s[1]) for s in spans)
    starts = [start for start, _ in ordered]
    reach = list(itertools.accumulate((end for _, end in ordered), max))
    for span in found:  # (indexed: plain tuples too, as dense spans are)
        start, end = span[0], span[1]
        i = bisect.bisect_right(starts, end - 1) - 1  # the last that starts inside it
        if i < 0 or reach[i] <= start:
            spans.append(span)  # overlaps none
            continue
        j = bisect.bisect_right(starts, start) - 1
        if j >= 0 and reach[j] >= end:
            continue  # held whole by one of them
        spans.append(span if overlapping is None else Span(start, end, overlapping))


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
