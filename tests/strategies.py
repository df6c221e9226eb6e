"""Hypothesis strategies shared by the test packages: tokens, placeholders, surroundings."""

from __future__ import annotations

from hypothesis import strategies as st

from hygiene.detection import ALLOW_MARKERS, PAT_PREFIX, is_placeholder, looks_like_credential

PAT_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
CRED_ALPHABET = PAT_ALPHABET + ".~+/="

pat_bodies = st.text(PAT_ALPHABET, min_size=8, max_size=64).filter(lambda b: not is_placeholder(b))
pats = pat_bodies.map(lambda body: PAT_PREFIX + body)

bearer_credentials = (
    st.text(CRED_ALPHABET, min_size=8, max_size=80)
    .filter(looks_like_credential)
    .filter(lambda c: not c.startswith(PAT_PREFIX))
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
_no_marker = st.text().filter(lambda t: not any(m in t for m in ALLOW_MARKERS))
text_before = _no_marker.filter(lambda t: not t or t[-1] not in PAT_ALPHABET)
# `%5F` and `%2D` are `_` and `-` URL-encoded: inside a PAT they are part of it.
_ESCAPES = ("%5f", "%2d")
text_after = _no_marker.filter(
    lambda t: not t or (t[0] not in PAT_ALPHABET and not t[:3].lower().startswith(_ESCAPES))
)
bytes_before = st.binary().filter(lambda b: not b or chr(b[-1]) not in PAT_ALPHABET)
bytes_after = st.binary().filter(
    lambda b: (
        not b or (chr(b[0]) not in PAT_ALPHABET and not b[:3].lower().startswith((b"%5f", b"%2d")))
    )
)
