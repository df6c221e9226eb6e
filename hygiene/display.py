r"""Untrusted text made safe to show: file names, archive members, what a server answered.

A terminal acts on what it is sent, and a CI log keeps it: a newline in a file name forges a
finding or a summary line, ``ESC ] 0 ;`` retitles the window, ``ESC [ 2 J`` clears it,
``ESC ] 52 ;`` writes the clipboard, ``ESC ] 8 ;`` hides a link, a C1 ``CSI`` (U+009B) does
the same without an ``ESC``, and bidi overrides (U+202A-202E, U+2066-2069) or zero-width
characters make a name read as another ("Trojan Source"). So every such character is written
visibly, as git's ``core.quotePath`` and gitleaks do:

* ``\t``, ``\n``, ``\r`` for tab, line feed and carriage return;
* ``\xNN`` for the other C0 controls and DEL, and for a byte that was not UTF-8 (decoded with
  ``surrogateescape``: U+DC80-U+DCFF stand for bytes 0x80-0xFF);
* ``\uXXXX`` / ``\UXXXXXXXX`` for every other character that does not print (C1 controls,
  format characters such as bidi controls and zero-width joiners, line and paragraph
  separators, spaces other than U+0020, lone surrogates, private use, unassigned), and for
  the few letters that print as nothing (Hangul fillers, U+034F).

Everything else is left as it is, so the name stays recognisable. :func:`escape` is the one
rule; :func:`quote` is it with git's double quotes around a path that needed any escape (so
``\\`` and ``\"`` are escaped too and the quoted form reads back exactly); :func:`json_text`
applies it to a JSON document's non-ASCII characters that do not print, as ``\uXXXX`` JSON
escapes (the document means the same, and no raw C1 or bidi character reaches a terminal).

This module imports nothing of the package: every part may use it.
"""

from __future__ import annotations

import re
from typing import Final

_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_QUOTED: Final = {**_NAMED, "\\": "\\\\", '"': '\\"'}
# os.fsdecode's escapes of bytes 0x80..0xFF
_BYTE_ESCAPES: Final = range(0xDC80, 0xDD00)
# Letters that print as nothing, used to disguise names; str.isprintable() says True for them.
_INVISIBLE: Final = frozenset("\u034f\u115f\u1160\u3164\uffa0")


def _shows(c: str) -> bool:
    return c.isprintable() and c not in _INVISIBLE


def is_safe(text: str) -> bool:
    """True when ``text`` has nothing :func:`escape` would change."""
    return text.isprintable() and _INVISIBLE.isdisjoint(text)


def _visible(c: str) -> str:
    code = ord(c)
    if code in _BYTE_ESCAPES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with every character a terminal could act on, or that could disguise the text,
    written visibly (see the module's docstring); one line, whatever ``text`` holds."""
    if is_safe(text):
        return text
    return "".join(c if _shows(c) else _NAMED.get(c) or _visible(c) for c in text)


def escape_lines(text: str, keep: re.Pattern[str] | None = None) -> str:
    """``text`` line by line through :func:`escape`, its line feeds kept; what ``keep``
    matches (a tool's own colour codes, say) passes as it is."""
    if is_safe(text.replace("\n", "")):
        return text
    if keep is None:
        return "\n".join(escape(line) for line in text.split("\n"))
    out = []
    for line in text.split("\n"):
        last, parts = 0, []
        for m in keep.finditer(line):
            parts += [escape(line[last : m.start()]), m.group()]
            last = m.end()
        out.append("".join([*parts, escape(line[last:])]))
    return "\n".join(out)


def quote(path: str) -> str:
    """``path`` as git quotes it: as it is when plain, else in double quotes with a space,
    a backslash, a double quote and every character :func:`escape` escapes written visibly."""
    if is_safe(path) and not any(c in _QUOTED or c == " " for c in path):
        return path
    return '"' + "".join(_QUOTED.get(c) or (c if _shows(c) else _visible(c)) for c in path) + '"'


def json_path(path: str) -> str:
    """A path as a JSON report holds it: the name itself (JSON escapes its control
    characters exactly), except a name that is not valid UTF-8 or that begins with a double
    quote: then :func:`quote`'s form, so a path beginning with ``"`` is always a quoted form."""
    if path.startswith('"') or any(0xD800 <= ord(c) <= 0xDFFF for c in path):
        return quote(path)
    return path


def _json_escape(c: str) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a character past U+FFFF as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_text(document: str) -> str:
    """A JSON document (as ``json.dumps(..., ensure_ascii=False)`` writes it) with every
    character that does not print, outside its structure's newlines and spaces, written as a
    JSON ``\\u`` escape: the same document, safe on a terminal, encodable as UTF-8 (a lone
    surrogate too)."""
    if document.isascii():
        return document  # json.dumps already escaped every ASCII control
    return "\n".join(
        line if is_safe(line) else "".join(c if _shows(c) else _json_escape(c) for c in line)
        for line in document.split("\n")
    )


__all__ = ["escape", "escape_lines", "is_safe", "json_path", "json_text", "quote"]
