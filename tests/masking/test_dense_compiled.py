"""The compiled twin of two dense rules (``_dense.c``) cuts every text as their patterns do.

The patterns in dense.py stay the definition (they run where the extension was not built);
the C matchers are checked against them on texts made of the rules' own parts: key words in
every case and spelling, separators, quotes, string prefixes, escapes, value ends, letters
whose case folds oddly, and text past ASCII (the three string widths CPython stores).
"""

from __future__ import annotations

import os
import re
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hygiene.masking import credentials, dense, densetwin
from tests.helpers import examples

compiled = pytest.mark.skipif(densetwin._C is None, reason="the extension is not built here")

# Letters whose case folds oddly (the dotted and dotless i, long s, Kelvin sign).
_ODD = {"i": ("\u0130", "\u0131"), "s": ("\u017f",), "k": ("\u212a",)}


@st.composite
def _key_words(draw: st.DrawFn) -> str:
    """A key word of the rule, in any case, with `_` `.` `-` between letters, maybe cut short
    or with a letter that folds oddly."""
    word = draw(st.sampled_from(dense.KEY_ENDINGS))
    out = []
    for char in word:
        style = draw(st.integers(0, 9))
        if style == 0 and char in _ODD:
            out.append(draw(st.sampled_from(_ODD[char])))
        else:
            out.append(char.upper() if style in (1, 2) else char)
        if draw(st.integers(0, 7)) == 0:
            out.append(draw(st.sampled_from(["_", ".", "-", "__", "x"])))
    if draw(st.integers(0, 9)) == 0:
        out = out[: draw(st.integers(1, len(out)))]
    return "".join(out)


_SEPARATORS = ["=", "=>", ":", ",", ", ", ",b", ",B", " = ", "\t:", "=>>", '":"', '" : "']
_QUOTES = ['"', "'", '\\"', "\\\\'", '\\\\\\"', '\\\\\\\\"', "b'", 'rb"', "F'", "Rb'", "u", "bb"]
_VALUES = [
    "a",
    "x" * 31,
    "x" * 33,
    "ab cd",
    "Bearer x",
    "abc\tdef",
    "a.b-c_d",
    "0" * 31 + " z",
    "é",
    "\u2028",
    "\xa0",
    "\U0001f600",
    "://u:p@h",
    "//u:@h",
    "://:p@h",
    "https://user:pw@host:80/x",
]
_ENDS = [" ", "\n", ";", "&", ")", "]", "}", "|", ",", '"', "'", "\\", ">", "<", "@", "/", ":"]
_URL_CHARS = st.sampled_from(
    ["a", ":", "/", "//", "@", " ", '"', "<", ">", "\\", ";", "é", "\u2028"]
)


@st.composite
def _userinfos(draw: st.DrawFn) -> str:
    """`://user:password@rest`, the user near its longest (256), a `:` in the password, a
    `:` or `://` in what runs on after it."""
    user = "u" * draw(st.sampled_from([0, 1, 2, 255, 256, 257]))
    password = draw(st.lists(_URL_CHARS, max_size=4).map("".join))
    rest = draw(st.lists(_URL_CHARS, max_size=6).map("".join))
    return draw(st.sampled_from([":", ""])) + "//" + user + ":" + password + "@" + rest


@st.composite
def _pairs(draw: st.DrawFn) -> str:
    """A key, a separator, maybe a quote or string prefix, maybe a value, and an end."""
    parts = [draw(_key_words()), draw(st.sampled_from(_SEPARATORS))]
    # Each part empty, or a line end, often: a quote at a line's end takes no value.
    parts.append(draw(st.one_of(st.just(""), st.sampled_from(_QUOTES))))
    parts.append(draw(st.one_of(st.just(""), st.sampled_from(_VALUES))))
    parts.append(draw(st.one_of(st.just("\n"), st.sampled_from(_ENDS))))
    return "".join(parts)


@st.composite
def _runs(draw: st.DrawFn) -> str:
    """A key, `=` and a value whose run of value characters (the key's included) is near the
    32 after which the value takes no word (`(?<!C{32})`), then a word."""
    key = draw(_key_words())
    length = draw(st.integers(28, 35))
    value = "x" * max(length - len(key) - 1, 1)
    return (
        draw(st.sampled_from([" ", ";", ""]))
        + key
        + "="
        + value
        + draw(st.sampled_from([" z", "\tz"]))
    )


_dense_texts = st.lists(
    st.one_of(
        _key_words(),
        st.sampled_from(_SEPARATORS),
        st.sampled_from(_QUOTES),
        st.sampled_from(_VALUES),
        st.sampled_from(_ENDS),
        _userinfos(),
        _runs(),
        _pairs(),
        st.text(max_size=3),
    ),
    max_size=40,
).map("".join)


def _splits(rule: dense.DenseRule, text: str, pos: int) -> tuple[list[str], list[str]]:
    low = text.lower()
    by_pattern = rule.lower.split(low[pos:]) if text == low else rule.caseless.split(text[pos:])
    assert rule.compiled is not None
    return rule.compiled(text, low, pos), by_pattern


@compiled
@settings(max_examples=examples(3000))
@given(_dense_texts, st.booleans(), st.integers(0, 40))
# Edges each found a wrong twin once: a quote at a line's end, `=>` followed by no value,
# a value run of exactly 31 characters and a word, a long s in a key.
@example('password="\n', True, 0)
@example("pwd=> ;", True, 0)
@example("pwd=" + "x" * 27 + " z", True, 0)
@example("PA\u017f\u017fWORD=x", False, 0)
def test_the_compiled_key_rule_cuts_every_text_as_its_pattern(
    text: str, lowercase: bool, pos: int
) -> None:
    text = text.lower() if lowercase else text
    got, want = _splits(dense.KEYS, text, min(pos, len(text)))
    assert got == want


@compiled
@settings(max_examples=examples(2000))
@given(_dense_texts, st.integers(0, 40))
def test_the_compiled_userinfo_rule_cuts_every_text_as_its_pattern(text: str, pos: int) -> None:
    got, want = _splits(dense.USERINFO, text, min(pos, len(text)))
    assert got == want


@compiled
@pytest.mark.parametrize(
    "unit",
    [
        "pwd=a;",
        "password= ",
        '{"password": ',
        "Authorization: Bearer x ",
        "<password>a</password>",
        "https://u:p@h ",
        "token='x' secret=\"y\" ",
        "PassWord=\u017fecret; ",
        "api-key=\U0001f600 ",
    ],
)
def test_a_huge_line_is_cut_alike(unit: str) -> None:
    """A line repeating one unit for a megabyte (what `hygiene mask` meets): the same pieces,
    from the start and from a position inside it."""
    text = unit * (2**20 // len(unit))
    for rule in (dense.KEYS, dense.USERINFO):
        for pos in (0, 7):
            got, want = _splits(rule, text, pos)
            assert got == want


def test_the_odd_letters_are_all_that_ignoring_case_adds_past_ascii() -> None:
    """`_dense.c` folds exactly these letters to ASCII ones (as `_words` lists them): `re`,
    ignoring case, takes no other character past ASCII for a letter."""
    letter = re.compile("(?i:[a-z])")
    past_ascii = {chr(c) for c in range(128, 0x110000) if letter.fullmatch(chr(c))}
    assert past_ascii == {odd for odds in _ODD.values() for odd in odds}
    assert set(dense._CASE_EXTRAS) == past_ascii
    for ascii_letter, odds in _ODD.items():
        for odd in odds:
            assert re.fullmatch(f"(?i:{ascii_letter})", odd)


def test_the_trie_holds_the_rule_words_and_refuses_others() -> None:
    trie = densetwin.key_trie(dense.KEY_ENDINGS)
    assert len(trie) % 27 == 0

    def words(node: int, prefix: str) -> list[str]:
        found = [prefix] if trie[node * 27] & 1 else []
        for letter in range(26):
            child = trie[node * 27 + 1 + letter]
            if child:
                found += words(child, prefix + chr(ord("a") + letter))
        return found

    assert sorted(words(0, "")) == sorted(dense.KEY_ENDINGS)
    with pytest.raises(ValueError, match="letters a-z only"):
        densetwin.key_trie(("api-key",))


@compiled
def test_the_compiled_matchers_refuse_bad_arguments() -> None:
    module = densetwin._C
    assert module is not None
    trie = densetwin.key_trie(dense.KEY_ENDINGS)
    with pytest.raises(ValueError, match="outside the text"):
        module.keys("pwd=a", 6, False, trie, dense.WORD_RUN)
    with pytest.raises(ValueError, match="outside the text"):
        module.userinfo("://u:p@h", -1, dense.LONGEST_USER)
    with pytest.raises(ValueError, match="not a trie"):
        module.keys("pwd=a", 0, False, b"\x00" * 26, dense.WORD_RUN)
    with pytest.raises(ValueError, match="outside the trie"):
        module.keys(
            "pwd=a", 0, False, b"\x00\x05" + b"\x00" * 25, dense.WORD_RUN
        )  # a child past the end
    with pytest.raises(ValueError, match="word run below 1"):
        module.keys("pwd=a", 0, False, trie, 0)
    with pytest.raises(ValueError, match="longest user name below 0"):
        module.userinfo("://u:p@h", 0, -1)
    with pytest.raises(TypeError):
        module.keys(b"pwd=a", 0, False, trie, dense.WORD_RUN)  # type: ignore[arg-type]


def test_the_extension_is_built_under_ci() -> None:
    """CI installs with a compiler: the rules run compiled there (elsewhere, either way)."""
    if os.environ.get("CI") and "hygiene.masking._dense" not in _blocked():
        assert densetwin.COMPILED


def _blocked() -> set[str]:
    return {name for name, module in sys.modules.items() if module is None}


@st.composite
def _token_user_urls(draw: st.DrawFn) -> str:
    """`://user@`, the user near the shortest taken (20): letters of one case or both,
    digits or none, a PAT prefix in it or not, `@` after it or not."""
    alphabet = draw(st.sampled_from(["ab_~", "AB+=", "aB-", "ab7", "AB7", "aB7_~+=-"]))
    user = draw(st.text(alphabet=alphabet, min_size=17, max_size=23))
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(user)))
        user = user[:at] + "pat_AIC_" + user[at:]
    end = draw(st.sampled_from(["@", "@", ":", " ", "", "/", "é"]))
    start = draw(st.sampled_from(["://", "://", "//", ":", "x://"]))
    return start + user + end + draw(st.sampled_from(["h", "", "://x"]))


@compiled
@settings(max_examples=examples(2000))
@given(
    st.lists(st.one_of(_token_user_urls(), _dense_texts), max_size=8).map("".join),
    st.integers(0, 40),
)
@example("https://" + "ab1" * 7 + "@h", 0)
@example("https://" + "a" * 19 + "B@h", 0)
@example("https://" + "aB" * 6 + "pat_AIC_" + "x1@h", 0)
@example("https://" + "ab1" * 6 + "a@h", 0)  # one short of the shortest
@example("https://" + "a" * 20 + "@h", 0)  # one case, no digit
def test_the_compiled_token_user_rule_cuts_every_text_as_its_pattern(text: str, pos: int) -> None:
    twin = credentials.TOKEN_USERS.compiled
    assert twin is not None
    pos = min(pos, len(text))
    assert twin(text, text, pos) == credentials._TOKEN_USER.split(text[pos:])
