"""What huge lines cost ``hygiene mask``, cut without changing a byte of its output: each
faster form answers as the form it replaced (kept here as the reference), on generated text
built from the words and separators the rules read."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.hyperscan_db import compiled
from hygiene.masking import lines, present
from hygiene.masking.text import mask
from tests.strategies import bearer_credentials, pats

# The forms lines.py had: tried at every position of a line (a fifth of a second on 4 MB).
_OLD_NETRC = re.compile(r"(?:^|\s)(?:machine|default)(?:\s|$)")
_OLD_BARE_PASSWORD = re.compile(r"(?:^|\s)password[ \t]+\S")

# Words the context rules read, and every kind of character around them: ASCII and Unicode
# whitespace (`\s` takes U+2028, U+00A0, the file separators), line ends, letters, signs.
_PIECES = st.sampled_from(
    [
        "password",
        "machine",
        "default",
        "name",
        "value",
        "authorization",
        " ",
        "\t",
        "\n",
        "\r",
        "\x0b",
        "\x1c",
        "\u00a0",
        "\u2028",
        "x",
        "=",
        ":",
        "-",
        '"',
    ]
)
_LINES = st.lists(_PIECES, max_size=12).map("".join)


@given(_LINES)
def test_needs_before_answers_as_the_regex_tried_at_every_position(low: str) -> None:
    old = "password" in low and _OLD_BARE_PASSWORD.search(low) is not None
    assert lines.needs_before(low) is old


@given(_LINES)
def test_netrc_lines_open_as_the_regex_tried_at_every_position(low: str) -> None:
    if "name" in low or "authoriz" in low:
        low = low.replace("name", "nam").replace("authoriz", "authori")  # the netrc rule alone
    old = ("machine" in low or "default" in low) and _OLD_NETRC.search(low) is not None
    assert lines.opens(low) is old


# --- present.py: one pass for the gates' words ---------------------------------------------

_GATE_TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *present.WORDS,
                *(w.upper() for w in present.WORDS),
                "AIC",
                "pat_AIC_",
                "password=",
                "Authorization: Bearer ",
                "Basic ",
                "- name: API_TOKEN\n  value: ",
                "machine h login u password ",
                "curl -u u:",
                "?sig=",
                '{"name": "Authorization", "value": "',
                "\udcff",
                "\u0130",
                "\u212a",
                "\x00",
            ]
        ),
        pats,
        bearer_credentials,
        st.text(max_size=4),
    ),
    max_size=24,
).map("".join)


@pytest.fixture
def every_text_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts of any length take the one pass (as a huge line does)."""
    if compiled((b"x",), (0,)) is None:
        pytest.skip("no Hyperscan here: the searches answer, unchanged")
    monkeypatch.setattr(present, "_FROM", 0)


@given(_GATE_TEXT)
def test_the_pass_answers_every_word_as_the_text(text: str) -> None:
    low = text.lower()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(present, "_FROM", 0)
        seen = present.words_in(low)
    for word in (*present.WORDS, "password", "<", "x\udcff"):
        assert (word in seen) is (word in low), word


@given(_GATE_TEXT)
def test_mask_is_the_same_through_the_pass(text: str) -> None:
    searched = mask(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(present, "_FROM", 0)
        assert mask(text) == searched


def test_a_huge_line_takes_the_pass(every_text_in_one_pass: None) -> None:
    low = ("password= " * 10_000).lower()
    seen = present.words_in(low)
    assert seen is not low
    assert "name" not in seen
    assert "\n " not in seen
    assert "password" in seen
