"""What huge lines cost ``hygiene mask``, cut without changing a byte of its output: each
faster form answers as the form it replaced (kept here as the reference), on generated text
built from the words and separators the rules read."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import lines

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
