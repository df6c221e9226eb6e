"""Texts with more key candidates than ``PRECISE_KEYS`` are masked in one regex pass: the same
properties hold there (never lets a secret through, idempotent), checked with a budget of 0
and 1 precise candidates so that every generated text takes the dense path."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene.detection import masked_form
from hygiene.masking import credentials, dense, keyvalues, mask
from hygiene.masking import pats as pat_rules
from hygiene.masking.spans import splice
from hygiene.masking.text import secret_spans
from tests.helpers import examples, new_pat
from tests.masking.test_properties import _FRAGMENTS, _assert_hidden, _exposures
from tests.strategies import bearer_credentials, pats

# Every module that reads the budget (keys, PATs, schemes and URLs all have one).
_BUDGETED = (keyvalues, credentials, pat_rules)


@contextmanager
def _precise_keys(count: int) -> Iterator[None]:
    saved = keyvalues.PRECISE_KEYS
    for module in _BUDGETED:
        module.PRECISE_KEYS = count  # type: ignore[misc]  # Final to the package, not to tests
    try:
        yield
    finally:
        for module in _BUDGETED:
            module.PRECISE_KEYS = saved  # type: ignore[misc]


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(_exposures(), st.sampled_from([0, 1]), st.sampled_from(["", "password=x ", "api_key: 1\n"]))
def test_the_dense_pass_never_lets_a_generated_secret_through(
    exposure: tuple[str, list[str]], precise: int, before: str
) -> None:
    text, hidden = exposure
    with _precise_keys(precise):
        masked = mask(before + text)
        _assert_hidden(masked, *hidden, text=before + text)
        assert mask(masked) == masked


@settings(max_examples=examples(300))
@given(
    st.lists(st.one_of(_FRAGMENTS, pats, bearer_credentials, st.text(max_size=6))),
    st.sampled_from([0, 1, 2]),
)
def test_the_dense_pass_is_idempotent(parts: list[str], precise: int) -> None:
    with _precise_keys(precise):
        once = mask("".join(parts))
        assert mask(once) == once


def test_the_dense_pass_masks_what_the_precise_rules_mask_and_keeps_other_keys() -> None:
    text = (
        'x_password=y\n{"token": "a b", "max_tokens": 5, "pass_word": "c"}\n'
        'token=xpassword"="hidden value"\nCookie: a=b; c=d\nAuthorization: Bearer abc end\n'
    )
    with _precise_keys(0):
        masked = mask(text)
    assert masked == ('x_password=…\n{"token": "…\ntoken=…\nCookie: …\nAuthorization: … end\n')
    with _precise_keys(0):
        assert mask('{"max_tokens": 5, "user": "bob"}') == '{"max_tokens": 5, "user": "bob"}'


def test_many_keys_switch_to_the_dense_pass() -> None:
    text = "password=a\n" * (keyvalues.PRECISE_KEYS + 10) + "token=b c\n"
    assert mask(text) == "password=…\n" * (keyvalues.PRECISE_KEYS + 10) + "token=…\n"


def test_a_cookie_value_of_spaces_is_not_masked_next_to_another_value() -> None:
    # Found by fuzzing: `Cookie: ` at the end of a masked value gave `……`, then `…`.
    for text in ('"Authorization: Cookie: ', "secret_key=Authorizationaccess_token…Cookie=> "):
        with _precise_keys(0):
            once = mask(text)
            assert "……" not in once
            assert mask(once) == once


# Letters whose case folds oddly (Kelvin sign, long s, dotted and dotless i) next to the rules'.
_ODD = "\u212a\u017f\u0130\u0131"


@given(
    st.lists(
        st.one_of(
            _FRAGMENTS,
            pats,
            bearer_credentials,
            st.sampled_from(["Bearer ", "BASIC ", "dXNlcjpwdw== "]),
            st.text(" \t:=,'\"\\abfruKEYBFRU" + _ODD, max_size=4),
        ),
        max_size=24,
    )
)
def test_the_fast_dense_rules_split_as_their_plain_spelling(parts: list[str]) -> None:
    """The dense rules are spelled for speed (possessive repeats, optional parts as branches
    with an empty side, only the letters ignoring case over a text that is not lowercase);
    spelled plainly, or ignoring case as a whole, they cut every text alike."""
    text = "".join(parts)
    low = text.lower()
    for fast, plain in zip((dense.KEYS, dense.COOKIES), dense._rules(fast=False), strict=True):
        assert fast.lower.pattern != plain
        assert fast.lower.split(low) == re.compile(plain).split(low)
        assert fast.caseless.split(text) == re.compile(plain, re.IGNORECASE).split(text)
    for rule in (dense.BEARERS, dense.BASICS):
        caseless = re.compile(rule.lower.pattern, re.IGNORECASE)
        assert rule.caseless.split(text) == caseless.split(text)


@settings(max_examples=examples(300))
@given(
    st.lists(
        st.one_of(_FRAGMENTS, pats, bearer_credentials, st.text(max_size=6)),
        min_size=1,
    ),
    st.sampled_from([0, 1, 2]),
    st.booleans(),
)
def test_the_dense_text_is_what_its_spans_make(parts: list[str], precise: int, upper: bool) -> None:
    """mask() puts a text with one dense pass back together from the pass's pieces; the
    records' path (secret_spans, splice) makes it from spans: both give the same text, over
    the lowercased text and (an uppercase key) over the text itself."""
    text = "".join(parts)
    if upper:
        text = text.upper().replace("PAT_AIC_", "pat_AIC_")
    with _precise_keys(precise):
        assert mask(text) == splice(text, secret_spans(text))


def test_past_the_judged_tokens_one_pass_hides_the_rest() -> None:
    """A text with more PATs than are judged: the rest are hidden unjudged, with no tail, in
    one regex pass; URL-encoded ones too."""
    judged = keyvalues.PRECISE_KEYS
    tokens = [new_pat() for _ in range(judged + 5)]
    for encode in (False, True):
        words = [t.replace("_", "%5F") for t in tokens] if encode else tokens
        text = " ".join(words)
        masked = mask(text)
        shown = masked.split(" ")
        prefix = "pat%5FAIC%5F" if encode else "pat_AIC_"
        if not encode:
            assert shown[:judged] == [masked_form(t) for t in tokens[:judged]]
        assert all(len(word) > len(prefix + "…") for word in shown[:judged])  # with a tail
        assert shown[judged:] == [prefix + "…"] * 5
        assert not any(t[len("pat_AIC_") :].replace("_", "%5F") in masked for t in tokens)
        assert mask(masked) == masked == splice(text, secret_spans(text))


def test_many_url_passwords_are_hidden_before_the_other_rules() -> None:
    """`api_key://u:}@x`: the key's value `//u:` ends where the password starts. Past the URLs
    judged one by one, the passwords are hidden first, and the key rules read what is left."""
    text = "api_key://u:p4ss}@x " * (keyvalues.PRECISE_KEYS + 10) + "token=abc:1\nhttps://h/"
    masked = mask(text)
    assert "p4ss" not in masked
    assert masked.endswith(" api_key:… token=…\nhttps://h/")
    assert mask(masked) == masked == splice(text, secret_spans(text))


def test_a_key_run_on_from_a_hidden_token_starts_after_it() -> None:
    """Found by the deep hunt: a key run longer than any key, running on from a token that
    the dense PAT pass hides, starts after the token, as it does after a judged one (and
    after the `…` on a second pass)."""
    prefix = "pat_" + "AIC_"  # built at run time: the repo passes its own scanner
    text = f"{prefix}00000012Bearer {prefix}000000000000012{prefix}000000000000000012000000.1"
    with _precise_keys(1):
        once = mask(text + "password=password")
        assert once.endswith(".1password=…")
        assert mask(once) == once


def test_a_key_value_that_takes_a_scheme_word_leaves_the_credential_masked() -> None:
    """The dense key value takes the short word after it (`a bearer`), the scheme word the
    bearer rule needs: the credential after it must still be hidden. (Hiding the key values
    before the other rules run, as URL passwords are, would leave it in clear.)"""
    credential = "q8Xv3LmZ2pK9wR4t"  # random-looking: a bare `bearer` credential is masked
    text = f"password=a bearer {credential}\n" * (keyvalues.PRECISE_KEYS + 10)
    masked = mask(text)
    assert credential[:12] not in masked
    assert masked.endswith("password=… …\n")
    assert mask(masked) == masked
