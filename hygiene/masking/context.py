"""Credentials named by their context, not by a key right before them.

The key rules (:mod:`hygiene.masking.keyvalues`) mask ``key: value`` and ``key=value``. These
rules mask what a log, a config dump or a shell history shows in other shapes:

* Kubernetes and ECS environment lists: ``- name: API_TOKEN`` / ``value: ...`` (YAML, JSON,
  either order within one object), the value masked when the *name* is sensitive;
* command-line flags: ``--token X``, ``-password X`` (``--token=X`` is a key rule's), and
  ``curl -u user:X`` / ``--user`` / ``-U``;
* netrc entries (``machine h login u password X``, on one line or many) and pgpass lines
  (``host:port:db:user:X``);
* HTML form fields: ``<input name="password" value="X">``, ``type="password"``,
  ``name="csrf_token"``, ``<meta name="csrf-token" content="X">``;
* folded ``Authorization`` headers (RFC 7230 obs-fold: the value goes on in lines that start
  with whitespace);
* cloud signed-URL signatures: Azure SAS ``sig=``, ``X-Amz-Signature=``,
  ``X-Goog-Signature=``, ``Signature=``.

Every rule is a bounded regex anchored on a literal, so ``mask()`` stays linear. A value is
masked only when it can be one: placeholders, templates, ``$VARIABLES``, argparse metavars and
values already masked are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from hygiene.detection import ELLIPSIS, is_placeholder
from hygiene.masking.keys import is_masked, is_sensitive_key, masked_value, safe_masked_form
from hygiene.masking.spans import Span

# The literals (lowercase, found in any case) that hint at a credential only these rules
# find; the other rules' hints (the key words, the scheme words, `@`) gate the rest. Every
# gate of mask() spells them out: text.py's, fastpath's (and _fastpath.c's has_hint),
# gate.py's and stream.py's; a test checks each against this tuple.
CONTEXT_HINTS: Final = (
    "sig=",  # Azure SAS
    "sig%",  # ... its `=` URL-encoded
    "signature",  # X-Amz-Signature, X-Goog-Signature, Signature
    "-u ",  # curl -u user:password (and -U)
    "--user",  # curl --user, --proxy-user
    ":5432:",  # pgpass lines: the PostgreSQL and PgBouncer ports, and a wildcard
    ":6432:",
    ":*:",
)

# The longest value these rules read; a longer one is cut there (and hidden whole).
_MAX_VALUE: Final = 16384
_QUOTES: Final = "\"'"


def has_context_hint(low: str) -> bool:
    """Whether the lowercased ``low`` holds one of :data:`CONTEXT_HINTS`."""
    return any(hint in low for hint in CONTEXT_HINTS)


def context_spans(text: str, low: str, *, has_key: bool) -> list[Span]:
    """What the context rules mask in ``text`` (``low``: lowercased, as long as ``text``);
    ``has_key``: a key hint is in the text (the rules anchored on a sensitive name run)."""
    spans: list[Span] = []
    if has_key:
        if "name" in low and "value" in low:
            spans.extend(_env_spans(text, low))
        if "<" in low:
            spans.extend(_html_spans(text, low))
        if "-" in low:
            spans.extend(_flag_spans(text, low))
        if "machine" in low or "default" in low:
            spans.extend(_netrc_spans(text, low))
        if "authoriz" in low and "\n" in low:
            spans.extend(_folded_spans(text, low))
    if "sig" in low:
        spans.extend(_signature_spans(text, low))
    if "-u" in low or "--user" in low or "-U" in text:
        spans.extend(_user_spans(text))
    if ":" in low and text.count(":") >= 4:
        spans.extend(_pgpass_spans(text, low))
    return spans


def _hidden(key: str, text: str, start: int, end: int) -> Span | None:
    """The span hiding ``text[start:end]``, the value of the sensitive ``key``; ``None``
    for what stands for a value."""
    value = text[start:end]
    if not value.strip() or is_masked(value) or _stands_for_a_value(value):
        return None
    return Span(start, end, masked_value(key, value))


def _stands_for_a_value(value: str) -> bool:
    """Templates, ``$VARIABLES``, placeholders (``EXAMPLE``, ``xxxx``, ``<token>``)."""
    if value.startswith(("$", "{", "%(", "<", "%s")) or value.endswith(("}}", ">")):
        return True
    return is_placeholder(value)


def _value_end(text: str, start: int, *, stops: str) -> int:
    """Where a value starting at ``start`` ends: its closing quote when quoted (the quote
    itself excluded by the caller), else the first of ``stops`` or a line end."""
    limit = min(len(text), start + _MAX_VALUE)
    quote = text[start - 1 : start] if start > 0 else ""
    if quote and quote in _QUOTES:
        pos = start
        while pos < limit:
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            if char == quote or char in "\r\n":
                return pos
            pos += 1
        return limit
    pos = start
    while pos < limit and text[pos] not in stops and text[pos] not in "\r\n":
        pos += 1
    return pos


# --- Kubernetes and ECS environment lists -------------------------------------------------

_NAME: Final = re.compile(
    r"""(?<![a-z0-9_\\])(?P<nq>\\?["']?)name(?P=nq)[ \t]*[:=][ \t]*(?P<q>\\?["']?)"""
    r"""(?P<name>[a-z0-9_.-]{1,64})(?P=q)"""
)
_VALUE: Final = re.compile(r"""(?<![a-z0-9_\\])(?P<vq>\\?["']?)value(?P=vq)[ \t]*[:=][ \t]*""")
# How far apart a name and its value may stand (one object, one YAML list item).
_PAIR_REACH: Final = 240


def _env_spans(text: str, low: str) -> Iterator[Span]:
    for m in _NAME.finditer(low):
        name = text[m.start("name") : m.end("name")]
        if not is_sensitive_key(name):
            continue
        span = _value_after(text, low, m.end(), name)
        if span is None:
            span = _value_before(text, low, m.start(), name)
        if span is not None:
            yield span


def _value_after(text: str, low: str, pos: int, name: str) -> Span | None:
    v = _VALUE.search(low, pos, pos + _PAIR_REACH)
    if v is None or not _one_entry(low[pos : v.start()]):
        return None
    return _env_value(text, v.end(), name)


def _value_before(text: str, low: str, pos: int, name: str) -> Span | None:
    """``{"value": "...", "name": "API_TOKEN"}``: a value before the name, in one object."""
    brace = low.rfind("{", max(0, pos - _PAIR_REACH), pos)
    if brace < 0:
        return None
    v = _VALUE.search(low, brace, pos)
    if v is None:
        return None
    return _env_value(text, v.end(), name)


def _one_entry(gap: str) -> bool:
    """Whether the text between a name and a value stays inside one list entry."""
    return "name" not in gap and not any(c in gap for c in "{}[]") and gap.count("\n") <= 3


def _env_value(text: str, start: int, name: str) -> Span | None:
    opening = text[start : start + 2]
    if opening.startswith("\\") and opening[1:] in _QUOTES:
        end = text.find(opening, start + 2, start + 2 + _MAX_VALUE)
        return _hidden(name, text, start + 2, end) if end > 0 else None
    if opening[:1] in _QUOTES:
        start += 1
        return _hidden(name, text, start, _value_end(text, start, stops=""))
    if opening[:1] in "|>":  # a YAML block scalar: its lines follow (rare for a variable)
        return None
    end = _value_end(text, start, stops=",}]#")
    while end > start and text[end - 1] in " \t":
        end -= 1
    return _hidden(name, text, start, end)


# --- Command-line flags and curl's user ----------------------------------------------------

_FLAG: Final = re.compile(r"""(?:^|(?<=[\s'"(\[=]))(?P<flag>--?[a-z][a-z0-9_.-]{1,63})[ \t]+""")
_USER: Final = re.compile(
    r"""(?:^|(?<=[\s'"]))(?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)(?P<q>['"]?)"""
    r"""(?P<user>[^\s:'"]{1,256}):(?P<pw>[^\s'"]{1,4096})"""
)


def _flag_spans(text: str, low: str) -> Iterator[Span]:
    for m in _FLAG.finditer(low):
        flag = m.group("flag").lstrip("-")
        if not is_sensitive_key(flag):
            continue
        start = m.end()
        if text[start : start + 1] in _QUOTES:
            start += 1
            end = _value_end(text, start, stops="")
        else:
            end = _value_end(text, start, stops=" \t'\"")
        value = text[start:end]
        if _is_flag_value(flag, value):
            span = _hidden(flag, text, start, end)
            if span is not None:
                yield span


_COMPACT: Final = str.maketrans("", "", "-_.")


def _is_flag_value(flag: str, value: str) -> bool:
    """A value a flag is given, not the next flag, a word of prose or a metavar
    (``--token TOKEN``, ``--api-key API_KEY``)."""
    if len(value) < 4 or value.startswith("-"):
        return False
    if value.isalpha() and len(value) < 13:  # `--token to`, `--password reset`
        return False
    metavar = value.rstrip("]),;").lower().translate(_COMPACT)  # `[--token TOKEN]`
    return metavar != flag.lower().translate(_COMPACT)


def _user_spans(text: str) -> Iterator[Span]:
    for m in _USER.finditer(text):
        start, end = m.span("pw")
        password = m.group("pw")
        if m.group("q") and password.endswith(m.group("q")):
            end -= 1
            password = password[:-1]
        if password.isdigit():  # `docker run -u 1000:1000`: a user and group id
            continue
        span = _hidden("password", text, start, end)
        if span is not None:
            yield span


# --- netrc and pgpass ----------------------------------------------------------------------

_NETRC_START: Final = re.compile(r"(?:^|(?<=\s))(?:machine|default)(?=\s)")
_TOKEN: Final = re.compile(r"\S{1,4096}")
_NETRC_KEYWORDS: Final = frozenset({"login", "password", "account", "port"})
# An entry's tokens: machine, login, account, password and their values.
_NETRC_TOKENS: Final = 12


def _netrc_spans(text: str, low: str) -> Iterator[Span]:
    """``machine HOST`` or ``default``, then keyword-value pairs only; the password of an
    entry that named its login first (prose such as "the default password is ..." is no
    entry)."""
    for m in _NETRC_START.finditer(low):
        tokens = _TOKEN.finditer(low, m.end())
        if m.group() == "machine" and next(tokens, None) is None:
            continue
        login = False
        for _ in range(_NETRC_TOKENS // 2):
            keyword, value = next(tokens, None), next(tokens, None)
            if keyword is None or value is None or keyword.group() not in _NETRC_KEYWORDS:
                break
            login = login or keyword.group() == "login"
            if keyword.group() == "password":
                span = _hidden("password", text, *value.span()) if login else None
                if span is not None:
                    yield span
                break


_PGPASS: Final = re.compile(
    r"""(?m)(?:^|(?<=[ \t"']))(?P<host>(?:\\.|[a-z0-9._\[\]*-]){1,253}):(?P<port>\*|[0-9]{1,5}):"""
    r"""(?:\\.|[^\s:\\]){1,128}:(?:\\.|[^\s:\\]){1,128}:(?P<pw>(?:\\.|[^\s\\]){1,4096})[ \t]*$"""
)


def _pgpass_spans(text: str, low: str) -> Iterator[Span]:
    for m in _PGPASS.finditer(low):
        host = m.group("host")
        if host != "*" and not any(c.isalpha() or c == "." for c in host):
            continue  # a time of day (`10:15:30`) is no host
        start, end = m.span("pw")
        end = start + len(text[start:end].rstrip("'\""))
        span = _hidden("password", text, start, end)
        if span is not None:
            yield span


# --- HTML form fields ----------------------------------------------------------------------

_TAG: Final = re.compile(r"<(?:input|meta|param)\b[^<>]{0,2048}>")
_ATTRIBUTE: Final = re.compile(
    r"""(?P<attr>[a-z_:][-a-z0-9_:.]{0,63})[ \t\r\n]*=[ \t\r\n]*"""
    r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'=<>`]+))"""
)
_NAMING: Final = frozenset({"name", "id", "property", "http-equiv"})
_HOLDING: Final = frozenset({"value", "content"})


def _html_spans(text: str, low: str) -> Iterator[Span]:
    for tag in _TAG.finditer(low):
        sensitive = ""
        held: tuple[int, int] | None = None
        for a in _ATTRIBUTE.finditer(low, tag.start(), tag.end()):
            group = (
                "dq" if a.group("dq") is not None else "sq" if a.group("sq") is not None else "bare"
            )
            attr, value = a.group("attr"), a.group(group)
            if attr in _NAMING and is_sensitive_key(value):
                sensitive = text[a.start(group) : a.end(group)]
            elif attr == "type" and value == "password":
                sensitive = "password"
            elif attr in _HOLDING:
                held = a.span(group)
        if sensitive and held is not None:
            span = _hidden(sensitive, text, *held)
            if span is not None:
                yield span


# --- Folded Authorization headers ----------------------------------------------------------

_HEADER: Final = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:proxy-)?authorization[ \t]*:(?P<rest>[^\r\n]*)"
)
_CONTINUATION: Final = re.compile(r"\r?\n(?P<indent>[ \t]+)(?P<value>[^\r\n]*)")
_SCHEME_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,30}[ \t]+")
# An obs-folded value spans a few lines at most.
_MAX_FOLDS: Final = 8


def _folded_spans(text: str, low: str) -> Iterator[Span]:
    for m in _HEADER.finditer(low):
        indent = len(m.group("indent"))
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
                span = _hidden("authorization", text, start, end)
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
    r"""[?&;](?:sig|signature|x-amz-signature|x-goog-signature)=(?P<value>[^&#\s"'<>\\]{1,4096})"""
)


def _signature_spans(text: str, low: str) -> Iterator[Span]:
    for m in _SIGNATURE.finditer(low):
        start, end = m.span("value")
        value = text[start:end]
        if len(value) < 8 or is_masked(value) or _stands_for_a_value(value):
            continue
        yield Span(start, end, safe_masked_form(value))
