"""The detection core: what is a secret, what is not, and how it is shown."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene import detection as core
from tests.helpers import new_pat, new_session_token
from tests.strategies import (
    bearer_credentials,
    pats,
    placeholder_credentials,
    placeholder_pats,
    text_after,
    text_before,
)

CONTEXTS = [
    "{}",
    'token = "{}"',
    "Client(token='{}')",
    'os.environ.get("AIC_TOKEN", "{}")',
    "https://pam.example.com/api?token={}&x=1",
    '{{"value": "{}"}}',
    "export AIC_TOKEN={}",
]


@pytest.mark.parametrize("context", CONTEXTS)
def test_pat_found_in_context(context: str) -> None:
    token = new_pat()
    text = context.format(token)
    [secret] = core.find_secrets(text)
    assert secret.type_id == core.AIC_PAT
    assert secret.token == token
    assert text[secret.start : secret.end] == token


BEARER_CONTEXTS = [
    "Authorization: Bearer {}",
    "authorization:bearer   {}",
    "AUTHORIZATION: BASIC {}",
    '{{"Authorization": "Bearer {}"}}',
    "{{'authorization': 'Bearer {}'}}",
    "curl -H 'Authorization: Bearer {}' https://x",
    "(b'authorization', b'Bearer {}')",
    '{{\\"Authorization\\": \\"Bearer {}\\"}}',
    "Authorization: {}",
    '{{"access_token": "{}", "expires_in": 900}}',
    "{{'access_token': '{}'}}",
    "GET /cb?access_token={}&state=1",
    "grant=x&access_token={}",
    "ACCESS_TOKEN={}",
]


@pytest.mark.parametrize("context", BEARER_CONTEXTS)
def test_bearer_found_in_context(context: str) -> None:
    cred = new_session_token()
    text = context.format(cred)
    [secret] = core.find_secrets(text)
    assert secret.type_id == core.BEARER_TOKEN
    assert secret.token == cred
    assert text[secret.start : secret.end] == cred


NOT_SECRETS = [
    'headers = {"Authorization": f"Bearer {token}"}',
    'headers["Authorization"] = "Bearer " + token',
    "Authorization: Bearer ${AIC_TOKEN}",
    "Authorization: Bearer <token>",
    "Authorization: Bearer {{ secrets.AIC_TOKEN }}",
    'auth = "Bearer %s" % token',
    "access_token = response.json()['access_token']",
    "access_token: Optional[str] = None",
    "the Authorization: Bearer header carries the token",
    "Authorization: Negotiate",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_code_and_prose_are_not_secrets(text: str) -> None:
    assert core.find_secrets(text) == []


def test_short_x_runs_inside_a_random_token_still_count() -> None:
    # The random part holds no x: with one, "xxXx" could grow into a six-x placeholder run.
    random_part = "".join(c for c in new_pat().removeprefix(core.PAT_PREFIX) if c not in "xX")
    token = core.PAT_PREFIX + random_part[:12] + "xxXx" + "k3Zq9"
    assert [s.token for s in core.find_secrets(token)] == [token]
    assert core.find_secrets(core.PAT_PREFIX + "ab12xxxxxxxxcd34") == []


def test_bearer_pat_is_reported_once_as_pat() -> None:
    token = new_pat()
    [secret] = core.find_secrets(f"Authorization: Bearer {token}")
    assert secret.type_id == core.AIC_PAT


def test_urlencoded_pat_is_found_and_fingerprinted_decoded() -> None:
    token = new_pat()
    [secret] = core.find_secrets("q=" + token.replace("_", "%5F", 2))
    assert secret.fingerprint == core.fingerprint(token)


def test_fingerprint_and_sha1() -> None:
    token = new_pat()
    assert core.fingerprint(token) == "sha256:" + hashlib.sha256(token.encode()).hexdigest()
    assert core.sha1_hex(token) == hashlib.sha1(token.encode()).hexdigest()  # noqa: S324


def test_masked_form_shows_prefix_and_at_most_four() -> None:
    token = core.PAT_PREFIX + "abcdefghijklmnopQRSTk3Xz"
    assert core.masked_form(token) == "pat_AIC_…k3Xz"
    assert core.masked_form(core.PAT_PREFIX + "abcdefgh") == "pat_AIC_…gh"


def test_secret_repr_hides_token() -> None:
    token = new_pat()
    [secret] = core.find_secrets(token)
    assert token not in repr(secret)
    assert token[8:] not in str(secret)


@pytest.mark.parametrize("line", ["x = 1  # pragma: allowlist secret", "y  # hygiene: allow"])
def test_allow_markers(line: str) -> None:
    assert core.is_allowlisted(line)
    assert core.is_allowlisted(line.encode())
    assert not core.is_allowlisted("x = 1  # pragma: no cover")


@given(text_before, pats, text_after)
def test_any_pat_anywhere_is_found(before: str, token: str, after: str) -> None:
    text = before + token + after
    found = [s for s in core.find_secrets(text) if s.token == token]
    assert [(s.start, s.end) for s in found][:1] == [(len(before), len(before) + len(token))]


@given(bearer_credentials)
def test_any_bearer_credential_in_a_header_is_found(cred: str) -> None:
    [secret] = core.find_secrets(f"Authorization: Bearer {cred}\n")
    assert secret.token == cred


@given(placeholder_pats)
def test_placeholder_pats_never_alarm(text: str) -> None:
    assert core.find_secrets(text) == []
    assert core.find_secrets(f"Authorization: Bearer {text}") == []


@given(placeholder_credentials)
def test_placeholder_credentials_never_alarm(cred: str) -> None:
    assert core.find_secrets(f"Authorization: Bearer {cred}") == []
    assert core.find_secrets(f'{{"access_token": "{cred}"}}') == []


@given(st.one_of(pats, bearer_credentials))
def test_masked_form_never_holds_the_secret_part_and_never_alarms(token: str) -> None:
    masked = core.masked_form(token)
    body = token.removeprefix(core.PAT_PREFIX)
    assert len(masked) <= len(core.PAT_PREFIX) + 5
    # Past the prefix it shows (`pat_` of a body `pat_000A` is in `pat_AIC_…` by right).
    shown = masked.removeprefix(core.PAT_PREFIX)
    assert body[: len(body) - 4] not in shown or len(body) - 4 <= 0
    assert core.find_secrets(masked) == []
    assert core.find_secrets(f"Authorization: Bearer {masked}") == []


@given(text_before, pats, text_after)
def test_mask_secrets_is_idempotent_and_hides(before: str, token: str, after: str) -> None:
    once = core.mask_secrets(before + token + after)
    assert token not in once
    assert core.mask_secrets(once) == once


def test_needle_fast_path_agrees_with_find_secrets() -> None:
    token, cred = new_pat(), new_session_token()
    data = f"a {token} b\nAuthorization: Bearer {cred}\n".encode()
    found = []
    for rule in core.RULES:
        for needle in rule.needles:
            pos = data.find(needle)
            while pos != -1:
                found.extend(s for s in [core.secret_at(data, pos, rule)] if s is not None)
                pos = data.find(needle, pos + 1)
    assert sorted(s.token for s in found) == sorted([token, cred])
