"""Properties of ``mask()``: idempotent, never lets a generated secret through (whole, the part
after the prefix, any 12-character piece, URL-encoded, base64 of Basic credentials), linear."""

from __future__ import annotations

import base64
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene.detection import PAT_PREFIX
from hygiene.masking import mask
from tests.helpers import examples
from tests.strategies import bearer_credentials, pats

# Text around a secret: log-like pieces and characters no token is made of, so that no
# 12-character piece of a secret can appear in it by chance.
_AROUND = st.lists(
    st.one_of(
        st.sampled_from(
            [" ", "\n", "\t", ", ", "; ", "INFO app: ", "GET /api?x=1 ", "é", "→", "{", "}"]
        ),
        st.text(" !#$()*,;<>?@[]^`{|}~\n\té→", max_size=8),
    ),
    max_size=4,
).map("".join)

_PASSWORDS = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$*+-./:=?@^_~",
    min_size=12,
    max_size=40,
).filter(lambda v: v[0] not in "$%{" and not v.startswith("…"))


def _pieces(secret: str) -> list[str]:
    """What must not appear: the secret, its part after the prefix, every 12-character piece."""
    body = secret.removeprefix(PAT_PREFIX)
    found = [secret, body[:-4]] if len(body) > 8 else [secret]
    found += [secret[i : i + 12] for i in range(max(0, len(secret) - 11))]
    return [p for p in found if len(p) >= 8]


def _assert_hidden(output: str, *secrets: str, text: str = "") -> None:
    """No piece of a secret in ``output``, except one the rest of ``text`` holds anyway (a
    generated password ``uthoriza0000`` shares ``uthoriza`` with the key ``Authorization``)."""
    rest = text
    for secret in secrets:
        rest = rest.replace(secret, "\0")
    for secret in secrets:
        for piece in _pieces(secret):
            assert piece not in output or piece in rest, "a secret (or a piece of one) got through"


# WS-Security's password type, as SOAP clients (zeep) write it.
_PASSWORD_TEXT = (
    "http://docs.oasis-open.org/wss/2004/01/"
    "oasis-200401-wss-username-token-profile-1.0#PasswordText"
)


@st.composite
def _exposures(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A text holding one secret in one of the ways logs hold them, and what must stay hidden."""
    pat, cred, password = draw(pats), draw(bearer_credentials), draw(_PASSWORDS)
    encoded = pat.replace("_", "%5F")  # `pat%5FAIC%5F` (public) and the encoded secret part
    basic = base64.b64encode(f"user:{password}".encode()).decode()
    kind, text, hidden = draw(
        st.sampled_from(
            [
                ("pat", pat, [pat]),
                ("pat in a URL", f"GET /cb?access_token={pat}&x=1", [pat]),
                ("URL-encoded pat", f"/cb?token={encoded}", [pat, encoded[12:]]),
                ("header", f"Authorization: Bearer {cred}", [cred]),
                ("bare bearer", f"sent bearer {cred}", [cred]),
                ("json", f'{{"access_token": "{cred}", "x": 1}}', [cred]),
                ("dict repr", f"{{'authorization': 'Bearer {cred}'}}", [cred]),
                ("byte tuple", f"(b'Authorization', b'Bearer {cred}')", [cred]),
                ("query", f"?refresh_token={cred}&state=1", [cred]),
                ("password", f"password={password}", [password]),
                ("json password", f'{{"password": "{password} x"}}', [password]),
                ("cookie", f"Cookie: sessionid={password}; theme=dark", [password]),
                (
                    "SOAP password",
                    f'<wsse:Password Type="{_PASSWORD_TEXT}">{password}</wsse:Password>',
                    [password],
                ),
                ("XML token", f"<SessionToken>{cred}</SessionToken>", [cred]),
                ("basic", f'"Basic {basic}"', [basic, password]),
                ("basic header", f"Authorization: Basic {basic}", [basic, password]),
            ]
        )
    )
    del kind
    return draw(_AROUND) + text + draw(_AROUND), hidden


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(_exposures())
def test_mask_never_lets_a_generated_secret_through(exposure: tuple[str, list[str]]) -> None:
    text, hidden = exposure
    masked = mask(text)
    _assert_hidden(masked, *hidden, text=text)
    assert mask(masked) == masked


_FRAGMENTS = st.sampled_from(
    [
        "password",
        "access_token",
        "Authorization",
        "Cookie",
        "api_key",
        "Bearer ",
        "Basic ",
        "pat_AIC_",
        "pat%5FAIC%5F",
        "=",
        ": ",
        '"',
        "'",
        '\\"',
        ",",
        "&",
        " ",
        "\n",
        "…",
        "://u:",
        "@",
        "{",
        "}",
        "(b'",
        "\x1b[31m",
        "<password>",
        '<ns0:SessionToken a="1">',
        "</",
        "<",
        ">",
    ]
)


@settings(max_examples=examples(300))
@given(st.lists(st.one_of(_FRAGMENTS, pats, bearer_credentials, _PASSWORDS, st.text(max_size=6))))
def test_mask_is_idempotent(parts: list[str]) -> None:
    text = "".join(parts)
    once = mask(text)
    assert mask(once) == once


# CPU time per KB no linear masking comes near (quadratic inputs took seconds per 64 KB).
_BUDGET_PER_KB = 0.004


def _cpu_seconds(text: str) -> float:
    start = time.process_time()
    mask(text)
    return time.process_time() - start


@settings(max_examples=40, deadline=None)
@given(st.lists(_FRAGMENTS, min_size=1, max_size=4).map("".join), st.sampled_from([64, 256]))
def test_mask_is_linear_on_repeated_keys(unit: str, kilobytes: int) -> None:
    text = (unit * (kilobytes * 1024 // len(unit) + 1))[: kilobytes * 1024]
    assert _cpu_seconds(text) < _BUDGET_PER_KB * kilobytes


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(["password=", "Authorization: Bearer ", "token: '", "Cookie: ", "pat_AIC_"]),
    st.sampled_from(["A1b2C3d4", "a-", "x ", "=", "%5F"]),
)
def test_huge_values_are_masked_whole_in_linear_time(key: str, unit: str) -> None:
    value = unit * (256 * 1024 // len(unit))
    text = f"start {key}{value} end"
    assert _cpu_seconds(text) < _BUDGET_PER_KB * 256


def test_tokens_of_any_length_are_masked_whole() -> None:
    for length in (4_000, 4_096, 4_097, 100_000):
        body = ("A1b2C3d4" * (length // 8 + 1))[:length]
        for text in (PAT_PREFIX + body, f"Authorization: Bearer {body}", f"bearer {body}"):
            masked = mask(text + " after")
            assert masked.endswith(body[-4:] + " after")
            assert len(masked) < 40


def _gate(text: str) -> bool:
    """What mask()'s gate makes of ``text``: False means mask() returns it unchanged."""
    from hygiene.masking.gate import has_hint
    from hygiene.masking.hints import hints_in
    from hygiene.masking.text import LONG

    if len(text) >= LONG and (hint := has_hint(text)) is not None:
        return hint
    return "\x1b" in text or bool(hints_in(text, text.lower()))


def test_the_gate_lets_every_hint_through_short_and_long() -> None:
    from hygiene.masking.keys import KEY_HINTS

    for hint in (*KEY_HINTS, "bearer", "basic", "://u:p@", "\x1b[0m"):
        for word in (hint, hint.upper(), hint.title()):
            for pad in (4, 600):  # the substring gate, and the Hyperscan pass for long texts
                assert _gate(f"{'.' * pad} {word} {'.' * pad}"), word
    assert _gate("x pat_AIC_ y")
    assert not _gate("user alice logged in from 10.0.0.1")
    assert not _gate("." * 1000)
