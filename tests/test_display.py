"""The one rule untrusted text is shown by: properties over any text, and the named cases."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.display import escape, escape_lines, is_safe, json_text, quote

# What a terminal acts on or what hides text: C0, DEL, C1, bidi, zero-width, separators.
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u3164\ud800-\udfff]"
)
ANY_TEXT = st.text(st.characters(codec=None, blacklist_categories=()), max_size=40)


@given(ANY_TEXT)
def test_escaped_text_is_one_safe_line(text: str) -> None:
    shown = escape(text)
    assert UNSAFE.search(shown) is None
    assert is_safe(shown)
    assert escape(shown) == shown  # nothing left to escape
    shown.encode("utf-8")  # strict: a lone surrogate was written visibly


@given(st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))))
def test_printable_text_is_left_as_it_is(text: str) -> None:
    # The letters that print as nothing (display._INVISIBLE) are escaped on purpose.
    invisible = set("\u034f\u115f\u1160\u3164\uffa0")
    if invisible.isdisjoint(text) and all(c == " " or not c.isspace() for c in text):
        assert escape(text) == text


_NAMED = {"\\": "\\", '"': '"', "t": "\t", "n": "\n", "r": "\r"}
_ESCAPE = re.compile(r'\\(?:([\\"tnr])|x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))')


def unquote(shown: str) -> str:
    """Read a quoted path back (git's C escapes; ``\\xNN`` past 0x7F: a byte not UTF-8)."""
    if not shown.startswith('"'):
        return shown

    def one(m: re.Match[str]) -> str:
        named, byte, short, long = m.groups()
        if named:
            return _NAMED[named]
        if byte:
            code = int(byte, 16)
            return chr(0xDC00 + code) if code >= 0x80 else chr(code)
        return chr(int(short or long, 16))

    return _ESCAPE.sub(one, shown[1:-1])


@given(ANY_TEXT)
def test_a_quoted_path_reads_back_exactly(text: str) -> None:
    shown = quote(text)
    assert UNSAFE.search(shown) is None
    assert unquote(shown) == text


@given(st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=4))
def test_json_text_is_the_same_document_and_safe(doc: dict[str, str]) -> None:
    dumped = json_text(json.dumps(doc, indent=2, ensure_ascii=False))
    assert json.loads(dumped) == doc
    for line in dumped.split("\n"):
        assert UNSAFE.search(line) is None
    dumped.encode("utf-8")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\x9b2J", "\\u009b2J"),
        ("x\udc9b", "x\\x9b"),  # the byte 0x9B of a name that is not UTF-8
        ("\u202etxt.exe", "\\u202etxt.exe"),
        ("a\u2066b\u2069", "a\\u2066b\\u2069"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("\u3164", "\\u3164"),
        ("\U000e0041", "\\U000e0041"),  # a tag character
        ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
    ],
)
def test_named_cases(text: str, shown: str) -> None:
    assert escape(text) == shown


def test_escape_lines_keeps_line_feeds_and_what_it_is_told_to_keep() -> None:
    keep = re.compile(r"\x1b\[(?:0|1)m")
    text = "\x1b[1mFilename:\x1b[0m a\x1b]8;;x\x1b\\b\nnext\u202e\n"
    assert escape_lines(text, keep) == "\x1b[1mFilename:\x1b[0m a\\x1b]8;;x\\x1b\\b\nnext\\u202e\n"
    assert escape_lines("plain\ntext\n") == "plain\ntext\n"
