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

import base64
import binascii
import bisect
import itertools
import operator
import re
from typing import Final

from hygiene import detection as core
from hygiene.masking.gate import has_hint
from hygiene.masking.keys import is_masked, safe_masked_form
from hygiene.masking.keyvalues import PRECISE_KEYS, UNQUOTED, add_key_spans
from hygiene.masking.spans import Span, splice, split_spans, without_overlaps

# The core's two PAT rules: plain, then URL-encoded.
_PAT_RULE, _PAT_URLENCODED_RULE = (rule for rule in core.RULES if rule.type_id == core.AIC_PAT)

# From this length on, one Hyperscan pass is the cheaper gate (see gate.py).
_LONG: Final = 256
_ANSI: Final = re.compile(r"\x1b(?:\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}

# Both run over the lowercased text (a case-sensitive literal prefix is a fast search, and
# Python work is only done per match); the credential is read back from the original text.
# A backslash is in the class so that a run of `\/` (JSON's escaped slash) costs no
# alternation per character; a credential ends at a backslash that escapes anything else.
_BEARER: Final = re.compile(r"bearer[ \t]+(?P<cred>[a-z0-9._~+/=%\\-]{8,})(?![a-z0-9._~+/=%…\\-])")
_BASIC: Final = re.compile(r"basic[ \t]+(?P<cred>[a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=._~%…-])")
_ESCAPE: Final = re.compile(r"\\(?!/)")
_USERINFO: Final = re.compile(r"""://[^/\s:@'"<>]{0,256}:(?P<pw>[^/\s@'"<>]+)@""")
# Past PRECISE_KEYS matches in one text (a repeated header), a superset in one regex pass
# each (spans.split_spans): every credential after `bearer`, every URL password, hidden.
_BEARER_DENSE: Final = re.compile(r"(bearer[ \t]+)([a-z0-9._~+/=%\\-]{8,})(?![a-z0-9._~+/=%…\\-])")
_USERINFO_DENSE: Final = re.compile(r"""(://[^/\s:@'"<>]{0,256}:)([^/\s@'"<>]+)(?=@)""")
_VERDICTS: Final[dict[int, str]] = {}
_MAX_VERDICTS: Final = 1024
# The core's two PAT patterns as runs, without their length bound (tokens of any length are
# masked whole): `re` walks a character class in C, while the core's one-unit alternation
# costs a branch per character (a search on a short record took 1.5 µs instead of 0.3).
# A unit is a token character or an escape (`%5F`, `%2D`); too few of them: no token.
_PAT_BODY: Final = r"(?P<cred>[A-Za-z0-9_-]*(?:%(?:5[Ff]|2[Dd])[A-Za-z0-9_-]*)*)"
_PAT: Final = re.compile(core.PAT_PREFIX + _PAT_BODY)
_PAT_URLENCODED: Final = re.compile(r"pat%5[Ff]AIC%5[Ff]" + _PAT_BODY)


def _units(cred: str) -> int:
    return len(cred) - 2 * cred.count("%")  # every `%` in a match starts a 3-character escape


def mask(text: str) -> str:
    """``text`` with every secret replaced by its masked form; everything else unchanged.

    Text without secrets is returned as is (the same object).
    """
    spans = secret_spans(text)
    return splice(text, spans) if spans else text


def secret_spans(text: str) -> list[Span]:
    """What :func:`mask` replaces in ``text``: spans in order, without overlaps."""
    if len(text) >= _LONG and has_hint(text) is False:
        return []
    if "\x1b" in text:
        return _spans_through_ansi(text)
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
        return find_spans(text, low, has_key=has_key)
    return []


def may_hold_secret(text: str) -> bool:
    """The gate alone: False means :func:`mask` would return ``text`` unchanged."""
    if len(text) >= _LONG:
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
    if low is None or len(low) != len(text):
        low = text.lower()
    if len(low) != len(text):  # `İ` lowers to two characters: keep positions aligned
        low = text.translate(_ASCII_LOWER)
    spans: list[Span] = []
    if "AIC" in text:  # both PAT forms are case-sensitive: `pat_AIC_`, `pat%5FAIC%5F`
        spans.extend(_pat_spans(text))
        if "%5" in text:
            spans.extend(_urlencoded_pat_spans(text))
    if has_key and ("=" in text or ":" in text or "," in text):  # no separator, no value
        add_key_spans(text, low, spans)
    if "bearer" in low or "basic" in low:
        # A credential the key rules already masked (`Authorization: Bearer ...`) is not
        # judged again (on a 64 KB credential that judgement is most of the cost).
        covered = without_overlaps(list(spans))
        starts = [span[0] for span in covered]
        if "bearer" in low:
            spans.extend(_bearer_spans(text, low, covered, starts))
        if "basic" in low:
            spans.extend(_basic_spans(text, low, covered, starts))
    if "@" in text and "://" in text:
        passwords = _userinfo_spans(text)
        if passwords:
            spans.extend(passwords)
            return _run_on(text, without_overlaps(spans), {span[0] for span in passwords})
    return without_overlaps(spans)


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


def _userinfo_spans(text: str) -> list[Span]:
    found: list[Span] = []
    pos = text.find("://")
    for _ in range(PRECISE_KEYS):
        if pos == -1:
            return found
        span = _userinfo_span(text, pos)
        if span is not None:
            found.append(span)
        pos = text.find("://", span.end if span is not None else pos + 3)
    if pos != -1:  # past that many URLs, one pass hides every password, masked or not
        found.extend(split_spans(_USERINFO_DENSE, text, pos, core.ELLIPSIS))
    return found


def _inside(pos: int, covered: list[Span], starts: list[int]) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and pos < covered[i][1]


def _bearer_spans(text: str, low: str, covered: list[Span], starts: list[int]) -> list[Span]:
    found: list[Span] = []
    m = _BEARER.search(low)
    for _ in range(PRECISE_KEYS):
        if m is None:
            return found
        start, end = m.span("cred")
        resume = m.end()
        escape = _ESCAPE.search(low, start, end)
        if escape is not None:
            end = resume = escape.start()  # what follows the cut may hold a scheme of its own
        cred = text[start:end]
        if cred.startswith(core.PAT_PREFIX):
            # The PAT rule masks the token; a second pass reads on after its masked form.
            resume = _PAT.match(text, start).end()  # type: ignore[union-attr]  # prefix: matches
        elif (
            len(cred) >= 8
            and not _inside(start, covered, starts)
            and core.looks_like_credential(cred.replace("\\/", "/"))
        ):
            found.append(Span(start, end, safe_masked_form(cred)))
        m = _BEARER.search(low, resume)
    if m is not None:  # past that many, every credential is hidden unjudged
        found.extend(split_spans(_BEARER_DENSE, low, m.start(), core.ELLIPSIS))
    return found


def _basic_spans(text: str, low: str, covered: list[Span], starts: list[int]) -> list[Span]:
    """``Basic <base64 of user:password>``: hidden whole (its tail would give bits away)."""
    found: list[Span] = []
    for m in _BASIC.finditer(low):
        start, end = m.span("cred")
        if not _inside(start, covered, starts) and _is_basic_credential(text[start:end]):
            found.append(Span(start, end, core.ELLIPSIS))
    return found


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


def _run_on(text: str, spans: list[Span], passwords: set[int]) -> list[Span]:
    """Spans where a password starting with a value's delimiter is hidden with the value
    before it (``api_key://u:}@host``: the value ``//u:`` ends at ``}``, the password): on
    a second pass the delimiter is gone and that value runs on over both masked forms and
    what follows; so it is all hidden now, as one span, and ``mask()`` stays idempotent."""
    if passwords.isdisjoint(map(operator.itemgetter(1), spans)):
        return spans  # no password right after another span (the usual case: no loop)
    run_end = UNQUOTED.match
    kept: list[Span] = []
    last_start, last_end, last_replacement = spans[0]
    for start, end, replacement in itertools.islice(spans, 1, None):
        if start < last_end or (
            start == last_end and start in passwords and replacement == core.ELLIPSIS
        ):
            if start == last_end or last_end < end:  # (else within a run-on span already)
                last_end = max(last_end, run_end(text, end).end())  # type: ignore[union-attr]
            last_replacement = core.ELLIPSIS
        else:
            kept.append(Span(last_start, last_end, last_replacement))
            last_start, last_end, last_replacement = start, end, replacement
    kept.append(Span(last_start, last_end, last_replacement))
    return kept


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
