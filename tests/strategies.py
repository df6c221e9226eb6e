"""Hypothesis strategies shared by the test packages: tokens, placeholders, surroundings."""

from __future__ import annotations

from hypothesis import strategies as st

from hygiene.detection import (
    ALLOW_MARKERS,
    COMPLETE_PAT_LENGTH,
    PAT_PREFIX,
    RULES,
    is_placeholder,
    is_reportable_credential,
)

PAT_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
CRED_ALPHABET = PAT_ALPHABET + ".~+/="

# A body holding the prefix is two PATs glued together (each reported on its own).
pat_bodies = st.text(PAT_ALPHABET, min_size=8, max_size=64).filter(
    lambda b: not is_placeholder(b) and PAT_PREFIX not in b
)
pats = pat_bodies.map(lambda body: PAT_PREFIX + body)

# The rules' keywords (`uthoriz`, `ccesstoken`, ...): a value holding one is cut there, as two
# keywords glued together are (a random credential holds one about never; shrinking finds
# `eyJ000000000000.0UTHORIZ`).
_NEEDLES = tuple({n.decode().lower() for rule in RULES for n in rule.needles})


def holds_no_keyword(value: str) -> bool:
    """True when no rule's keyword is inside ``value`` (in any case)."""
    low = value.lower()
    return not any(needle in low for needle in _NEEDLES)


bearer_credentials = (
    st.text(CRED_ALPHABET, min_size=8, max_size=80)
    .filter(is_reportable_credential)
    .filter(lambda c: not c.startswith(PAT_PREFIX))
    .filter(holds_no_keyword)
)


_PLACEHOLDER_WORDS = [
    "EXAMPLE",
    "REDACTED",
    "your_token",
    "YOUR_TOKEN_HERE",
    "example_token_1234",
    "redacted-0000",
    "PLACEHOLDER",
    "your_token_goes_here",
    "changeme12345",
]


def _placeholder_bodies() -> st.SearchStrategy[str]:
    char = st.sampled_from(PAT_ALPHABET)
    return st.one_of(
        st.tuples(char, st.integers(8, 40)).map(lambda t: t[0] * t[1]),
        st.text("xX", min_size=8, max_size=40),
        st.sampled_from(_PLACEHOLDER_WORDS),
    )


placeholder_pats = _placeholder_bodies().map(lambda body: PAT_PREFIX + body)
placeholder_credentials = st.one_of(
    _placeholder_bodies(),
    st.sampled_from(["${TOKEN}", "{{ token }}", "<token>", "%s", "$AIC_TOKEN", "...", "{token}"]),
)

# Text around a token: anything, but it must not run into the token's characters (or it
# would be part of the token) and must not carry an allowlist marker.
# An ellipsis right after a token makes it a truncated example, so text after never starts with
# one.
_no_marker = st.text().filter(lambda t: not any(m in t for m in ALLOW_MARKERS))
text_before = _no_marker.filter(lambda t: not t or t[-1] not in PAT_ALPHABET)
# `%5F` and `%2D` are `_` and `-` URL-encoded: inside a PAT they are part of it.
_ESCAPES = ("%5f", "%2d")
text_after = _no_marker.filter(
    lambda t: (
        not t
        or (
            t[0] not in PAT_ALPHABET
            and not t[:3].lower().startswith(_ESCAPES)
            and not t.startswith(("...", "…"))
        )
    )
)
bytes_before = st.binary().filter(lambda b: not b or chr(b[-1]) not in PAT_ALPHABET)
bytes_after = st.binary().filter(
    lambda b: (
        not b or (chr(b[0]) not in PAT_ALPHABET and not b[:3].lower().startswith((b"%5f", b"%2d")))
    )
)


# What sits after `Authorization` and `access_token` in real code without being a credential.
_WORD_TEXT = (
    "access token refresh id request response options cached entity model type client "
    "credential user session header auth provider result value config manager error string "
    "data get set update create delete info account storage service key name list map handler "
    "callback promise async sync default base internal external expires scope claims grant "
    "code state nonce issuer audience subject payload signature verify decode encode cache "
    "store context settings env process mock any meta http https api sha256 base64"
)
_WORDS = _WORD_TEXT.split()
_ACRONYMS = ("JWT", "MFA", "TTL", "META", "ANY", "ID", "API", "URL", "HTTP", "AWS", "SAS")
_word = st.sampled_from(_WORDS)


def _join_words(words: list[str], style: str) -> str:
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    if style == "snake":
        return "_".join(words)
    if style == "upper":
        return "_".join(w.upper() for w in words)
    return "-".join(w.capitalize() for w in words)  # Header-Case


def _acronym_after(acronym: str, style: str) -> str:
    """An acronym after the words, joined as the style joins words (`ACCESS_TOKEN_JWT`)."""
    if not acronym or style in ("camel", "pascal"):
        return acronym
    return {"snake": "_" + acronym.lower(), "upper": "_" + acronym}.get(style, "-" + acronym)


# camelCase, PascalCase, snake_case, UPPER_CASE and Header-Case identifiers, some with an
# acronym (`JWTTokenAuth`, `AccessTokenTTL`). Words differ, as in names people write: `JWTIdIdId`
# is no name, and reads as four pieces of two letters, the way random values split.
identifiers = st.builds(
    lambda words, style, acronym, where: (
        acronym + _join_words(words, "pascal")
        if where == "front" and acronym
        else _join_words(words, style) + (_acronym_after(acronym, style) if where == "back" else "")
    ),
    st.lists(_word, min_size=1, max_size=4, unique=True),
    st.sampled_from(["camel", "pascal", "snake", "upper", "header"]),
    st.sampled_from(("", *_ACRONYMS)),
    st.sampled_from(["front", "back", "none"]),
)
# Dotted member paths: `request.META`, `process.env.X`, `this.accessToken`.
member_paths = st.lists(
    st.one_of(identifiers, st.sampled_from(["X", "this", "self", "e", "i"])), min_size=2, max_size=4
).map(".".join)
# Sentences: prose after `authorization` in docstrings and comments.
prose = st.lists(_word, min_size=2, max_size=8).map(" ".join).map(str.capitalize)


def _cut_short(token: str, tenths: int) -> str:
    keep = max(4, len(token) * tenths // 10)
    if token.startswith(PAT_PREFIX):  # a PAT of complete length before `...` is reported
        keep = min(keep, len(PAT_PREFIX) + COMPLETE_PAT_LENGTH - 1)
    return token[:keep]


# A real-looking token cut short with an ellipsis, as documentation shows one.
truncated_examples = st.builds(
    lambda token, cut, dots: _cut_short(token, cut) + dots,
    st.one_of(pats, bearer_credentials),
    st.integers(2, 8),
    st.sampled_from(["...", "…"]),
)


def _format_text(fmt_and_cred: tuple[object, str]) -> str | None:
    from tests.scan.decoders.formats import Format

    fmt, cred = fmt_and_cred
    assert isinstance(fmt, Format)
    _name, data = fmt.build(cred)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _text_formats() -> list[object]:
    from tests.scan.decoders.formats import FORMATS

    # The battery's text formats (archives and compressed files are bytes, not text).
    return [f for f in FORMATS if f.name not in _BINARY_FORMATS]


_BINARY_FORMATS = frozenset(["sqlite database row", "binary with ascii", "utf-16 inside a binary"])
# One of the recall battery's formats carrying a random credential of the kind it carries,
# as text; several joined by log-like lines (what `mask()` and the scanner read alike).
format_texts = st.lists(
    st.sampled_from(_text_formats())
    .flatmap(
        lambda f: st.tuples(
            st.just(f),
            pats if f.kind == "pat" else bearer_credentials,  # type: ignore[attr-defined]
        )
    )
    .map(_format_text)
    .filter(lambda t: t is not None),
    min_size=1,
    max_size=3,
).map(lambda texts: "\nINFO next\n".join(t for t in texts if t is not None))
