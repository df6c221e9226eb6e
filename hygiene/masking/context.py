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
from collections.abc import Container
from typing import Final

from hygiene.masking.context_values import (
    MAX_VALUE,
    QUOTES,
    dense_rule,
    hidden,
    judged_then_dense,
    value_end,
)
from hygiene.masking.context_web import folded_spans, html_spans, signature_spans
from hygiene.masking.dense import Dense
from hygiene.masking.keys import KEY_HINTS, is_sensitive_key
from hygiene.masking.present import HTML_TAGS, PORT_STARTS, may_hold
from hygiene.masking.spans import Span, alternation
from hygiene.ruletable import CONTEXT_ROWS, TABLE

# The literals (lowercase, found in any case) that hint at a credential only these rules
# find: the core's rule table rows for them (every gate derives its hints from that table);
# the other rules' hints (the key words, the scheme words, `@`) gate the rest.
CONTEXT_HINTS: Final = tuple(
    hint for row in TABLE if row.name in CONTEXT_ROWS for hint in row.hints
)


def has_context_hint(low: str) -> bool:
    """Whether the lowercased ``low`` holds one of :data:`CONTEXT_HINTS`."""
    return any(hint in low for hint in CONTEXT_HINTS)


def context_spans(
    text: str,
    low: str,
    dense: list[Dense],
    *,
    has_key: bool,
    seen: Container[str] | None = None,
) -> list[Span]:
    """What the context rules mask in ``text`` (``low``: lowercased, as long as ``text``);
    ``has_key``: a key hint is in the text (the rules anchored on a sensitive name run);
    ``seen``: what answers ``word in`` as ``low`` does (:func:`~hygiene.masking.present.words_in`).
    Past :data:`~hygiene.masking.context_values.JUDGED` candidates of a rule, its dense pass
    is appended to ``dense``."""
    if seen is None:
        seen = low
    spans: list[Span] = []
    if has_key:
        if "name" in seen and "value" in seen:
            spans += _env_spans(text, low, dense)
        if "<" in low and may_hold(seen, low, HTML_TAGS):
            spans += html_spans(text, low, dense)
        if "-" in low:
            spans += _flag_spans(text, low, dense)
        if "machine" in seen or "default" in seen:
            spans += _netrc_spans(text, low, dense)
        if "authoriz" in seen and ("\n " in seen or "\n\t" in seen):  # a folded line
            spans += folded_spans(text, low, dense)
    if "sig" in seen:
        spans += signature_spans(text, low, dense)
    if "-u" in seen or "--user" in seen:
        spans += _user_spans(text, low, dense)
    if ":" in low and text.count(":") >= 4 and may_hold(seen, low, PORT_STARTS):
        spans += _pgpass_spans(text, low, dense)
    return spans


# --- Kubernetes and ECS environment lists -------------------------------------------------

# Each pattern starts with its literal and looks behind it after (`re` then skips to each
# occurrence at C speed; a pattern that starts with a look-behind is tried at every position).
_NAME: Final = re.compile(
    r"""name(?<![a-z0-9_\\]name)\\?["']?[ \t]*[:=][ \t]*(?P<q>\\?["']?)"""
    rf"""(?P<name>[a-z0-9_.-]{{0,63}}?{alternation(KEY_HINTS)}[a-z0-9_.-]{{0,63}})(?P=q)"""
)
_VALUE: Final = re.compile(r"""value(?<![a-z0-9_\\]value)\\?["']?[ \t]*[:=][ \t]*""")
# How far apart a name and its value may stand (one object, one YAML list item).
_PAIR_REACH: Final = 240
# Past the judged names: every value key's value, whatever its name (a superset).
_ENV_REST: Final = dense_rule(
    r"""(value(?<![a-z0-9_\\]value)\\?["']?[ \t]*[:=][ \t]*\\?["']?)([^"'\\\s,}\]]+)"""
)


def _env_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    def judge(m: re.Match[str]) -> Span | None:
        name = text[m.start("name") : m.end("name")]
        if not is_sensitive_key(name):
            return None
        span = _value_after(text, low, m.end(), name)
        return span if span is not None else _value_before(text, low, m.start(), name)

    return judged_then_dense(_NAME.finditer(low), judge, _ENV_REST, text, low, dense)


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
    if opening.startswith("\\") and opening[1:] in QUOTES:
        end = text.find(opening, start + 2, start + 2 + MAX_VALUE)
        return hidden(name, text, start + 2, end) if end > 0 else None
    if opening[:1] in QUOTES:
        start += 1
        return hidden(name, text, start, value_end(text, start, stops=""))
    if opening[:1] in "|>":  # a YAML block scalar: its lines follow (rare for a variable)
        return None
    end = value_end(text, start, stops=",}]#")
    while end > start and text[end - 1] in " \t":
        end -= 1
    return hidden(name, text, start, end)


# --- Command-line flags and curl's user ----------------------------------------------------

_FLAG: Final = re.compile(
    r"""(?P<flag>-(?<![^\s'"(\[=]-)-?(?:[a-z][a-z0-9_.-]{0,62}?)?"""
    rf"""{alternation(KEY_HINTS)}[a-z0-9_.-]{{0,63}})[ \t]+(?P<q>['"]?)(?P<v>[^\s'"]*)"""
)
_USER: Final = re.compile(
    r"""-(?<![^\s'"]-)(?:u|-user|-proxy-user)(?:[ \t]+|=)(?P<q>['"]?)"""
    r"""(?P<user>[^\s:'"]{1,256}):(?P<v>[^\s'"]{1,4096})"""
)


_FLAG_REST: Final = dense_rule(
    r"""(-(?<![^\s'"(\[=]-)-?[a-z][a-z0-9_.-]{0,126}[ \t]+['"]?)([^\s'"-][^\s'"]*)"""
)


def _flag_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    def judge(m: re.Match[str]) -> Span | None:
        flag = m.group("flag").lstrip("-")
        if not is_sensitive_key(flag):
            return None
        start = m.start("v")
        end = value_end(text, start, stops=" \t'\"") if m.group("q") else m.end("v")
        if not _is_flag_value(flag, text[start:end]):
            return None
        return hidden(flag, text, start, end)

    return judged_then_dense(_FLAG.finditer(low), judge, _FLAG_REST, text, low, dense)


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


_USER_REST: Final = dense_rule(
    r"""(-(?<![^\s'"]-)(?:u|-user|-proxy-user)(?:[ \t]+|=)['"]?[^\s:'"]{1,256}:)"""
    r"""([^\s'"]{1,4096})"""
)


def _user_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    def judge(m: re.Match[str]) -> Span | None:
        if m.group("v").isdigit():  # `docker run -u 1000:1000`: a user and group id
            return None
        return hidden("password", text, *m.span("v"))

    return judged_then_dense(_USER.finditer(low), judge, _USER_REST, text, low, dense)


# --- netrc and pgpass ----------------------------------------------------------------------

_NETRC_START: Final = re.compile(r"(?:machine|default)(?=\s)")
_TOKEN: Final = re.compile(r"\S{1,4096}")
_NETRC_KEYWORDS: Final = frozenset({"login", "password", "account", "port"})
# An entry's tokens: machine, login, account, password and their values.
_NETRC_TOKENS: Final = 12


_NETRC_REST: Final = dense_rule(r"(password(?<!\Spassword)[ \t\r\n]+)(\S{1,4096})")


def _netrc_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    """``machine HOST`` or ``default``, then keyword-value pairs only; the password of an
    entry that named its login first (prose such as "the default password is ..." is no
    entry)."""

    def judge(m: re.Match[str]) -> Span | None:
        if m.start() > 0 and not low[m.start() - 1].isspace():
            return None  # inside a word
        tokens = _TOKEN.finditer(low, m.end())
        if m.group() == "machine" and next(tokens, None) is None:
            return None
        login = False
        for _ in range(_NETRC_TOKENS // 2):
            keyword, value = next(tokens, None), next(tokens, None)
            if keyword is None or value is None or keyword.group() not in _NETRC_KEYWORDS:
                return None
            login = login or keyword.group() == "login"
            if keyword.group() == "password":
                return hidden("password", text, *value.span()) if login else None
        return None

    return judged_then_dense(_NETRC_START.finditer(low), judge, _NETRC_REST, text, low, dense)


# A pgpass line `host:port:db:user:password`, found from its port (a search for a literal
# `:`, cheap on any text): no field holds an unescaped `:` (libpq's format), so each is one
# run and a failed match costs its length. The line, or its end after a log prefix, maybe
# quoted (as `echo '...' >> ~/.pgpass` shows it).
_PORT: Final = re.compile(r":(?:\*|[0-9]{1,5}):")
_HOST_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._[]*-\\")
_HOST_STARTS: Final = frozenset(" \t\n\r=\"'")
_PG_REST: Final = re.compile(
    r"""(?:\\.|[^\s:\\]){1,128}:(?:\\.|[^\s:\\]){1,128}:"""
    r"""(?P<v>(?:\\.|[^\s:\\'"]){1,1024})["']?[ \t]*(?:\r?\n|$)"""
)
# Past the judged lines: the last field of every such line, hidden unjudged.
_PG_DENSE: Final = dense_rule(
    r"""(:(?:\*|[0-9]{1,5}):[^\s:]{1,128}:[^\s:]{1,128}:)([^\s:'"]{1,1024})"""
    r"""(?=["']?[ \t]*(?:\r?\n|$))"""
)


def _pgpass_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    def judge(m: re.Match[str]) -> Span | None:
        start = m.start()
        while start > 0 and m.start() - start < 253 and low[start - 1] in _HOST_CHARS:
            start -= 1
        host = low[start : m.start()]
        if start > 0 and low[start - 1] not in _HOST_STARTS:
            return None
        if host != "*" and not any(c.isalpha() or c == "." for c in host):
            return None  # a time of day (`10:15:30`) is no host
        rest = _PG_REST.match(low, m.end())
        return None if rest is None else hidden("password", text, *rest.span("v"))

    return judged_then_dense(_PORT.finditer(low), judge, _PG_DENSE, text, low, dense)
