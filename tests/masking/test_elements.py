"""The element rule: the text of XML elements named like a secret (hygiene.masking.elements)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import elements, mask
from hygiene.masking.dense import DenseRule
from hygiene.masking.elements import _ELEMENT, _TEXT, _end, _start
from hygiene.masking.keys import SENSITIVE_ENDINGS
from hygiene.masking.keyvalues import PRECISE_KEYS
from tests.helpers import SecretGuard

# A WS-Security header as zeep writes it (UsernameToken with a plain-text password).
_WSSE = (
    '<wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/'
    'oasis-200401-wss-wssecurity-secext-1.0.xsd"><wsse:UsernameToken>'
    "<wsse:Username>alice</wsse:Username>"
    '<wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/'
    'oasis-200401-wss-username-token-profile-1.0#PasswordText">{secret}</wsse:Password>'
    "</wsse:UsernameToken></wsse:Security>"
)
# STS's AssumeRole response as botocore logs its body at DEBUG (a bytes repr).
_STS = (
    'Response body:\nb\'<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\\n'
    "  <AssumeRoleResult>\\n    <Credentials>\\n      <AccessKeyId>ASIA5EXAMPLE</AccessKeyId>\\n"
    "      <SecretAccessKey>{secret}</SecretAccessKey>\\n"
    "      <SessionToken>{secret}</SessionToken>\\n"
    "      <Expiration>2026-11-23T12:00:00Z</Expiration>\\n    </Credentials>'"
)


@pytest.mark.parametrize(
    ("template", "masked"),
    [
        ("<password>{secret}</password>", "<password>…</password>"),
        ("<db.password>{secret}</db.password>", "<db.password>…</db.password>"),
        ("<DB_PASS>{secret}</DB_PASS>", "<DB_PASS>…</DB_PASS>"),
        ("<password>\n    {secret}\n  </password>", "<password>\n    …\n  </password>"),
        ('"<password>{secret}<\\/password>"', '"<password>…<\\/password>"'),  # inside JSON
        ("<api-key>{secret}</api-key>", "<api-key>…7f3a</api-key>"),
        ("<ns0:AccessToken>{secret}</ns0:AccessToken>", "<ns0:AccessToken>…7f3a</ns0:AccessToken>"),
    ],
)
def test_an_element_named_like_a_secret_has_its_text_masked(
    template: str, masked: str, guard: SecretGuard
) -> None:
    secret = guard.session_token()
    out = mask(template.format(secret=secret + "7f3a"))
    guard.capture(out)
    assert out == masked
    assert mask(out) == out


@pytest.mark.parametrize("ending", SENSITIVE_ENDINGS)
def test_every_key_word_names_an_element_the_rule_reads(ending: str) -> None:
    # The rule's look-back list (elements._ENDINGS) is written apart from keys.py's words: a
    # word added there and not here would leave its elements in clear.
    for name in (ending, f"x_{ending}", f"x{ending.capitalize()}"):
        text = f"<{name}>v4lue-9z</{name}>"
        assert mask(text) != text, name


@pytest.mark.parametrize("template", [_WSSE, _STS])
def test_soap_and_aws_query_bodies_as_libraries_log_them(template: str, guard: SecretGuard) -> None:
    secret = guard.session_token()
    out = mask(template.format(secret=secret))
    guard.capture(out)
    assert "<wsse:Username>alice</wsse:Username>" in out or "ASIA5EXAMPLE" in out
    assert mask(out) == out


@pytest.mark.parametrize(
    "text",
    [
        "<password></password>",
        "<password/>",
        "<password>${DB_PASSWORD}</password>",
        "<password>***</password>",
        "<password>…</password>",
        "<token>\n  <value>x</value>\n</token>",  # holds elements, not text
        "<passwordPolicy>strict</passwordPolicy>",
        "<tokenType>Bearer</tokenType>",
        "<cache_key>users:42</cache_key>",
        "<key>CFBundleName</key><string>Demo</string>",  # a plist
        "use --token <token> to log in",
        "<password>hunter2",  # no end tag: not an element's text
        "a <= password > b",
    ],
)
def test_what_holds_no_secret_is_left_alone(text: str) -> None:
    assert mask(text) is text


def test_past_the_judged_elements_every_one_is_hidden(guard: SecretGuard) -> None:
    secret = guard.session_token()
    unit = f"<item><password>{secret}</password><cache_key>k</cache_key></item>\n"
    text = unit * (PRECISE_KEYS + 20)
    out = mask(text)
    guard.capture(out)
    assert out.count("<password>…</password>") == PRECISE_KEYS + 20
    assert mask(out) == out


@pytest.mark.parametrize(
    "unit",
    [
        "<password>x</password>",
        "<password>",
        "<password>aaaa ",
        "token<",
        '<password a="' + "x" * 200,
        "<" + "a" * 70 + "password>x",
        "<token>" + " a" * 50 + "<x>",
        "password=a <SessionToken>abcdefgh</SessionToken>\n",
    ],
)
def test_adversarial_markup_keeps_time_linear(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The work, counted whatever the clock (bench/mask_bench.py measures the time: under 5 ms
    # for 64 KB): every character the element rule hands its patterns and its judge, a bounded
    # number of times each. A walk of a value per tag, or a search restarted short of where the
    # last one stopped, reads the text again per tag (thousands of times over).
    work = _Work()
    monkeypatch.setattr(elements, "_ELEMENT", _Counted(elements._ELEMENT, work))
    dense_rule = elements.ELEMENTS
    counted = DenseRule(_Counted(dense_rule.lower, work), _Counted(dense_rule.caseless, work))
    monkeypatch.setattr(elements, "ELEMENTS", counted)
    replacement = elements.value_replacement

    def value_replacement(text: str, key: str, start: int, end: int, **kw: bool) -> object:
        work.chars += end - start
        return replacement(text, key, start, end, **kw)

    monkeypatch.setattr(elements, "value_replacement", value_replacement)
    text = (unit * (65536 // len(unit) + 1))[:65536]
    cpu = time.thread_time()
    once = mask(text)
    assert work.calls, "the element rule never ran: the counter proves nothing"
    assert work.chars <= 3 * len(text)
    # Backtracking inside one search is no call the counter sees: what would be quadratic on
    # 64 KB takes many seconds. This thread's CPU time (not the wall clock: other processes
    # do not add to it), a thousand times what the linear pass costs, only stops such a hang.
    assert time.thread_time() - cpu < 5.0
    assert mask(once) == once


class _Work:
    """Characters handed to the element rule's patterns (from where a search starts to where it
    stopped, or all of a split) and to its judge."""

    def __init__(self) -> None:
        self.chars = 0
        self.calls = 0


class _Counted:
    """A compiled pattern that adds what each call reads to a :class:`_Work`."""

    def __init__(self, pattern: re.Pattern[str], work: _Work) -> None:
        self._pattern, self._work = pattern, work
        self.pattern = pattern.pattern

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        found = self._pattern.search(text, pos)
        self._work.calls += 1
        self._work.chars += (len(text) if found is None else found.end()) - pos
        return found

    def split(self, text: str) -> list[str]:
        self._work.calls += 1
        self._work.chars += len(text)
        return self._pattern.split(text)


# Markup pieces where giving back could matter: prefixes, names that end like a key, spaces
# before and after the text, attributes, end tags, `<\/` inside JSON.
_ELEMENTS = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(["<password", "<ns0:Password", "<SessionToken", "<pass_word", "<token"]),
        st.sampled_from(["", ' Type="t"', " a=b", "\n"]),
        st.sampled_from([">", ">\n ", "> ", ""]),
        st.sampled_from(["hunter2", "", "${P}", "<a>x</a>", "é é", "x y"]),
        st.sampled_from(["", " ", "\n\t"]),
        st.sampled_from(["</password>", "<\\/token>", "</", "<", ""]),
    ),
)
_MARKUP = st.lists(
    st.one_of(_ELEMENTS, st.sampled_from(["<", ">", " ", "\n", "ns0:", "token", "é", ":"])),
    max_size=6,
).map("".join)


@given(_MARKUP)
def test_the_rule_without_possessive_repeats_matches_alike(text: str) -> None:
    # Python 3.10 has no possessive repeats: there the rule is spelled with plain ones.
    plain = re.compile(_start("") + "(?P<text>" + _TEXT + ")" + _end(""))
    for low in (text, text.lower()):
        ours = [(m.span("name"), m.span("text")) for m in _ELEMENT.finditer(low)]
        assert ours == [(m.span("name"), m.span("text")) for m in plain.finditer(low)]
