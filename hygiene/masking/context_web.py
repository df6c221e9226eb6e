"""Context-named credentials of the web: HTML form fields, folded ``Authorization`` headers,
cloud signed-URL signatures (:mod:`hygiene.masking.context` runs them; its docs list them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from hygiene.detection import ELLIPSIS
from hygiene.masking.context_values import (
    dense_rule,
    hidden,
    judged_then_dense,
    stands_for_a_value,
)
from hygiene.masking.dense import Dense
from hygiene.masking.keys import is_masked, is_sensitive_key, safe_masked_form
from hygiene.masking.spans import Span

# --- HTML form fields ----------------------------------------------------------------------

_TAG: Final = re.compile(r"<(?:input|meta|param)\b[^<>]{0,2048}>")
_ATTRIBUTE: Final = re.compile(
    r"""(?P<attr>[a-z_:][-a-z0-9_:.]{0,63})[ \t\r\n]*=[ \t\r\n]*"""
    r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'=<>`]+))"""
)
_NAMING: Final = frozenset({"name", "id", "property", "http-equiv"})
_HOLDING: Final = frozenset({"value", "content"})


# Past the judged tags: the value of any field of such a tag.
_TAG_REST: Final = dense_rule(
    r"""(<(?:input|meta|param)\b[^<>]{0,2048}?(?<=[\s"'])(?:value|content)[ \t\r\n]*="""
    r"""[ \t\r\n]*["']?)([^"'\s<>]+)"""
)


def html_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    """``<input>``, ``<meta>`` and ``<param>`` fields whose name (or ``type="password"``)
    says their value or content is a secret."""

    def judge(tag: re.Match[str]) -> Span | None:
        sensitive = ""
        held: tuple[int, int] | None = None
        for a in _ATTRIBUTE.finditer(low, tag.start(), tag.end()):
            group = next(g for g in ("dq", "sq", "bare") if a.group(g) is not None)
            attr, value = a.group("attr"), a.group(group)
            if attr in _NAMING and is_sensitive_key(value):
                sensitive = text[a.start(group) : a.end(group)]
            elif attr == "type" and value == "password":
                sensitive = "password"
            elif attr in _HOLDING:
                held = a.span(group)
        return hidden(sensitive, text, *held) if sensitive and held is not None else None

    return judged_then_dense(_TAG.finditer(low), judge, _TAG_REST, text, low, dense)


# --- Folded Authorization headers ----------------------------------------------------------

# A header line with at least one folded line after it (the look-ahead keeps the Python
# work to real folds).
# (It starts with its literal: `re` then skips to each `authorization` at C speed.)
_HEADER: Final = re.compile(r"authorization[ \t]*:(?P<rest>[^\r\n]*)(?=\r?\n[ \t]+\S)")
# What may stand before the header name on its line: indentation, `Proxy-`.
_LINE_START: Final = re.compile(r"[ \t]*(?:proxy-)?\Z")
_CONTINUATION: Final = re.compile(r"\r?\n(?P<indent>[ \t]+)(?P<value>[^\r\n]*)")
_SCHEME_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,30}[ \t]+")
# An obs-folded value spans a few lines at most.
_MAX_FOLDS: Final = 8
_FOLDS: Final = dense_rule(r"(authorization[ \t]*:[^\r\n]*\r?\n[ \t]+)([^\r\n]*[^\s])")


def folded_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    """The lines an ``Authorization`` header's value is folded over (RFC 7230 obs-fold)."""
    spans: list[Span] = []

    def judge(m: re.Match[str]) -> None:
        spans.extend(_folds_of(text, m))

    judged_then_dense(_HEADER.finditer(low), judge, _FOLDS, text, low, dense)
    return spans


def _folds_of(text: str, m: re.Match[str]) -> Iterator[Span]:
    """The folded lines of the header ``m`` matched, each hidden (module docs)."""
    line = text.rfind("\n", 0, m.start()) + 1
    low = m.string
    before = _LINE_START.match(low, line, m.start()) if m.start() - line < 64 else None
    if before is None:
        return
    indent = len(before.group()) - len(before.group().lstrip(" \t"))
    credential_seen = len(m.group("rest").split()) >= 2 or _is_credential(m.group("rest"))
    pos = m.end()
    for _ in range(_MAX_FOLDS):
        c = _CONTINUATION.match(text, pos)
        if c is None or len(c.group("indent")) <= indent or not c.group("value").strip():
            break
        start, end = c.span("value")
        if not credential_seen:
            scheme = _SCHEME_WORD.match(text, start, end)
            if scheme is not None:
                start = scheme.end()
        end = start + len(text[start:end].rstrip())
        if end > start:
            span = hidden("authorization", text, start, end)
            if span is not None:
                yield Span(span.start, span.end, ELLIPSIS)
            credential_seen = True
        pos = c.end()


def _is_credential(rest: str) -> bool:
    """Whether a header line's value holds more than a scheme word."""
    words = rest.split()
    return bool(words) and words[0].lower() not in {"bearer", "basic", "digest", "negotiate"}


# --- Cloud signed-URL signatures -----------------------------------------------------------

_SIGNATURE: Final = re.compile(
    r"""[?&;](?:sig|signature|x-amz-signature|x-goog-signature)=(?P<v>[^&#\s"'<>\\]{1,4096})"""
)


_SIGNATURE_REST: Final = dense_rule(
    r"""([?&;](?:sig|signature|x-amz-signature|x-goog-signature)=)([^&#\s"'<>\\]{1,4096})"""
)


def signature_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    """The signature of a signed URL's query (Azure SAS, AWS, Google Cloud, CloudFront)."""

    def judge(m: re.Match[str]) -> Span | None:
        start, end = m.span("v")
        value = text[start:end]
        if len(value) < 8 or is_masked(value) or stands_for_a_value(value):
            return None
        return Span(start, end, safe_masked_form(value))

    return judged_then_dense(_SIGNATURE.finditer(low), judge, _SIGNATURE_REST, text, low, dense)
