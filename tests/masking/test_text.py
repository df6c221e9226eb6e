"""mask(): every secret in every context, the rest byte for byte, idempotent."""

from __future__ import annotations

import secrets as random_secrets

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hygiene.detection import masked_form
from hygiene.masking import is_sensitive_key, mask
from hygiene.masking.keys import SENSITIVE_ENDINGS
from hygiene.masking.spans import Span
from tests.helpers import assert_no_secret, new_pat, new_session_token, secret_parts
from tests.strategies import (
    bearer_credentials,
    pats,
    placeholder_pats,
    text_after,
    text_before,
)

# `{}` is the secret; the text around it must survive unchanged.
CONTEXTS = [
    "Authorization: Bearer {}",
    "authorization:bearer   {} next",
    "AUTHORIZATION: BASIC {}",
    "Proxy-Authorization: Negotiate {}",
    '{{"Authorization": "Bearer {}", "Accept": "*/*"}}',
    "{{'authorization': 'Bearer {}', 'accept': '*/*'}}",
    "curl -H 'Authorization: Bearer {}' https://pam.example.com",
    'curl -H "Authorization: token {}" https://pam.example.com',
    "[(b'authorization', b'Bearer {}'), (b'accept', b'*/*')]",
    '{{"body": "{{\\"Authorization\\": \\"Bearer {}\\", \\"x\\": 1}}"}}',
    '{{"access_token": "{}", "expires_in": 900}}',
    "{{'access_token': '{}'}}",
    "GET /cb?access_token={}&state=1",
    "grant_type=password&username=bob&password={}&scope=read",
    "refresh_token={} scope=read",
    '{{"refreshToken": "{}"}}',
    '{{"client_secret": "{}"}}',
    "AIC_PASSWORD={} AIC_EMAIL=bob@example.com",
    "api_key: {}",
    "X-Api-Key: {}",
    "Cookie: session={}; theme=dark",
    "Set-Cookie: sid={}; Path=/; HttpOnly",
    "db.password = '{}'",
    "sessionid={};",
    'HTTP Request: POST https://pam.example.com/api/v1/auth/login?token={} "HTTP/1.1 200 OK"',
    "https://bob:{}@pam.example.com/api",
    "Error: invalid Bearer {} supplied",
    "{{'private_key': '{}'}}",
]


@pytest.mark.parametrize("context", CONTEXTS)
def test_credential_masked_in_context(context: str) -> None:
    cred = new_session_token()
    text = context.format(cred)
    masked = mask(text)
    assert_no_secret([masked], [cred])
    prefix, _, suffix = context.partition("{}")
    head, tail = prefix.format(), suffix.format()
    assert masked.startswith(head.rsplit(" ", 1)[0])
    if "ookie" not in head:  # a Cookie header is hidden to the end of its line
        assert masked.endswith(tail)
    assert mask(masked) == masked


@pytest.mark.parametrize("context", ["{}", "token={}&x=1", '{{"value": "{}"}}', "id {} ok"])
def test_pat_masked_anywhere_keeping_prefix_and_tail(context: str) -> None:
    pat = new_pat()
    masked = mask(context.format(pat))
    assert masked == context.format(masked_form(pat))
    assert masked_form(pat).startswith("pat_AIC_…")


def test_urlencoded_pat_is_masked() -> None:
    pat = new_pat()
    text = "GET /x?t=" + pat.replace("_", "%5F", 2) + "&a=1"
    masked = mask(text)
    assert_no_secret([masked], [pat])
    assert masked.endswith("&a=1")


@pytest.mark.parametrize("quote", ['"', "'", '\\"'])
def test_quoted_value_ends_at_its_closing_quote(quote: str) -> None:
    value = "a b&c;d e=f"
    text = f"{quote}password{quote}: {quote}{value}{quote}, {quote}user{quote}: {quote}bob{quote}"
    masked = mask(text)
    assert "a b" not in masked
    assert "c;d" not in masked
    assert "e=f" not in masked
    assert masked.endswith(f"{quote}user{quote}: {quote}bob{quote}")


def test_authorization_masks_short_and_low_entropy_credentials() -> None:
    assert mask("Authorization: Basic abc") == "Authorization: Basic …"
    assert mask("authorization: hunter2") == "authorization: …2"
    assert "hunter" not in mask("{'Authorization': 'Bearer hunter two'}")


def test_value_tails_after_punctuation_do_not_leak() -> None:
    cred = "ab-cd/ef+gh=ij.kl~mn"
    for text in (f"Authorization: Bearer {cred}", f"access_token={cred}&x=1"):
        masked = mask(text)
        assert "ef+gh" not in masked
        assert "kl~" not in masked


@pytest.mark.parametrize(
    "text",
    [
        f"\x1b[33m{new_pat()}\x1b[0m done",
        f"Authorization: \x1b[1mBearer\x1b[0m {new_session_token()}",
        f"\x1b[32mAuthorization\x1b[0m: Bearer {new_session_token()}",
    ],
)
def test_ansi_colour_codes_do_not_hide_a_secret(text: str) -> None:
    masked = mask(text)
    secret = text.split()[-1] if "Bearer" in text else text[5:].split("\x1b")[0]
    assert_no_secret([masked], [secret])
    assert "\x1b[" in masked
    assert mask(masked) == masked


CLEAN = [
    "user alice logged in from 10.0.0.1",
    '{"token_type": "bearer", "expires_in": 900, "max_tokens": 3}',
    "password_hash=abc123 passwordless=true",
    "Authorization: Bearer",
    "Authorization: Bearer …k3Xz",
    "password=…",
    'headers = {"Authorization": f"Bearer {token}"}',
    "pat_AIC_xxxxxxxx and pat_AIC_EXAMPLE_TOKEN in the docs",
    "PWD=/home/bob OLDPWD=/tmp",
    '{"password": null, "token": ""}',
    "GET https://pam.example.com/api/v1/orgs?page=2",
    "the cache_key=users:42 primary_key=id",
]


@pytest.mark.parametrize("text", CLEAN)
def test_text_without_secrets_is_unchanged(text: str) -> None:
    assert mask(text) is text


def test_invalid_utf8_surrogates_survive() -> None:
    pat = new_pat()
    raw = b"\xff\xfe log " + pat.encode() + b" \xc3"
    text = raw.decode("utf-8", "surrogateescape")
    masked = mask(text).encode("utf-8", "surrogateescape")
    assert masked.startswith(b"\xff\xfe log pat_AIC_")
    assert masked.endswith(b" \xc3")


def test_lowercase_changing_length_does_not_shift_positions() -> None:
    cred = new_session_token()
    text = f"İİİ user İ password={cred} İ"
    masked = mask(text)
    assert masked == "İİİ user İ password=… İ"


_KEY_CONTEXTS = st.sampled_from(
    [
        "Authorization: Bearer {}",
        '{{"access_token": "{}"}}',
        "{{'password': '{}'}}",
        "token={}&next=1",
        '\\"client_secret\\": \\"{}\\"',
        "(b'authorization', b'Basic {}')",
        "X-Api-Key: {}",
        "{}",
    ]
)


@given(
    before=text_before,
    secret=st.one_of(pats, bearer_credentials),
    after=text_after,
    context=_KEY_CONTEXTS,
)
def test_no_secret_survives_in_any_context(
    before: str, secret: str, after: str, context: str
) -> None:
    if context == "{}" and not secret.startswith("pat_AIC_"):
        secret = "pat_AIC_" + random_secrets.token_urlsafe(16)
    # A part the surrounding text holds itself (`autho` in `authorization`) is no leak.
    around = before + context + after
    assume(not any(part in around for part in secret_parts(secret)))
    text = before + " " + context.format(secret) + " " + after
    masked = mask(text)
    for part in secret_parts(secret):
        assert part not in masked
    assert mask(masked) == masked


@given(st.text())
def test_arbitrary_text_is_masked_idempotently(text: str) -> None:
    once = mask(text)
    assert mask(once) == once


@given(
    st.text(alphabet=st.characters(blacklist_characters="\x1b")).filter(
        lambda t: (
            not any(
                h in t.lower()
                for h in (
                    "pass",
                    "pwd",
                    "secret",
                    "token",
                    "key",
                    "authoriz",
                    "sessi",
                    "cookie",
                    "credential",
                    "bearer",
                    "aic",
                    "://",
                )
            )
        )
    )
)
def test_text_without_hints_is_returned_unchanged(text: str) -> None:
    assert mask(text) is text


@given(placeholder_pats)
def test_placeholders_are_left_alone(text: str) -> None:
    assert mask(text) is text


@pytest.mark.parametrize("ending", SENSITIVE_ENDINGS)
@pytest.mark.parametrize("form", ["{}=Value123 next", '{{"{}": "Value123"}}', "my_{}: Value123"])
def test_every_sensitive_key_passes_the_gate(ending: str, form: str) -> None:
    text = form.format(ending.upper() if "my_" in form else ending)
    assert "Value1" not in mask(text)


def test_sensitive_key_names() -> None:
    for key in (
        "password",
        "AIC_PASSWORD",
        "db.password",
        "clientSecret",
        "x-api-key",
        "refresh_token",
        "Set-Cookie",
        "PHPSESSID",
        "sessionId",
        "--password",
        # `pass` as an environment variable's last word, or after db / database / key
        "DB_PASS",
        "SMTP_PASS",
        "db_pass",
        "dbPass",
        "database-pass",
        "keyPass",
    ):
        assert is_sensitive_key(key), key
    for key in (
        *("password_hash", "token_type", "max_tokens", "cache_key", "PWD", "passwordless"),
        *("pass", "bypass", "compass", "test_pass", "first_pass", "monkeypass", "XPASS"),
        *("auth", "oauth", "X-Auth"),  # (Sentry's `auth`: see keys.py)
    ):
        assert not is_sensitive_key(key), key


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("DB_PASS=Value123 next", "DB_PASS=… next"),  # hidden whole, as a password
        ("db_pass: Value123", "db_pass: …"),
        ("bypass=Value123 test_pass=Value123", "bypass=Value123 test_pass=Value123"),
        ("pass: 12 fail: 0", "pass: 12 fail: 0"),  # a test summary
    ],
)
def test_pass_names_a_password_in_an_environment_variable_or_after_db(
    text: str, masked: str
) -> None:
    assert mask(text) == masked
    assert mask(masked) == masked


@pytest.mark.parametrize(
    "line",
    [
        # Source lines of real packages (aiohttp, botocore), as tracebacks show them.
        "self._session = session",
        "session=self._session,",
        "aws_session_token=aws_session_token,",
        "instance_var=instance_name, session=self._session",
    ],
)
def test_code_handing_a_variable_on_under_its_own_name_is_left_alone(line: str) -> None:
    assert mask(line) is line


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("password=password", "password=…"),  # a (weak) password can be spelled like its key
        ("credentials=credentials,", "credentials=…,"),
        ("session=session-7f3a", "session=…f3a"),
        ("x_session=y_session", "x_session=…on"),
    ],
)
def test_a_value_spelled_otherwise_or_under_a_password_key_is_masked(
    text: str, masked: str
) -> None:
    assert mask(text) == masked


_LONG_NAMES = [
    # Names longer than 64 characters, as real configs and environments hold them.
    "com.example.billing.service.infrastructure.datasource.primary.password",
    "MY_VERY_LONG_APPLICATION_NAME_PRODUCTION_DATABASE_CONNECTION_PASSWORD",
    "spring.datasource.hikari.data-source-properties.ssl-client-private-key",
    "terraform_remote_state_backend_azurerm_storage_account_access_token",
]


@pytest.mark.parametrize("name", _LONG_NAMES)
@pytest.mark.parametrize("form", ["{}=Value123 next", '{{"{}": "Value123"}}', "{}: Value123"])
def test_a_key_longer_than_64_characters_is_judged_by_its_end(name: str, form: str) -> None:
    assert len(name) > 64
    assert is_sensitive_key(name)
    masked = mask(form.format(name))
    assert "Value1" not in masked
    assert name in masked  # the name itself stays
    assert mask(masked) == masked


_NAME_PART = st.text(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=12
)


@given(
    parts=st.lists(_NAME_PART, min_size=1, max_size=14),
    boundary=st.sampled_from("_.-"),
    ending=st.sampled_from(SENSITIVE_ENDINGS),
    value=st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=6, max_size=24),
    form=st.sampled_from(["{}={}&next=1", '{{"{}": "{}"}}', "{}: {}", "export {}='{}'"]),
)
def test_a_sensitive_name_of_any_length_hides_its_value(
    parts: list[str], boundary: str, ending: str, value: str, form: str
) -> None:
    name = boundary.join([*parts, ending])
    secret = "Q" + value  # never a literal (`null`) or a bare scheme word
    masked = mask(form.format(name, secret))
    assert secret not in masked, (name, masked)


@pytest.mark.parametrize(
    "run",
    [
        "A" * 70 + "password",  # no `_` `.` `-` near its end: a blob, not a name
        "Zm9vYmFy" * 9 + "token",
    ],
)
def test_a_long_run_with_no_boundary_is_not_a_key(run: str) -> None:
    assert not is_sensitive_key(run)
    assert mask(f"{run}=Value123") == f"{run}=Value123"


@given(st.text(alphabet=st.sampled_from("abcdeikloprstwyz @\"':=_-ACIKPSTWZ"), max_size=60))
def test_the_key_gate_agrees_with_looking_for_every_hint(text: str) -> None:
    from hygiene.masking.hints import KEY, hints_in
    from hygiene.masking.keys import KEY_HINTS

    low = text.lower()
    assert (hints_in(text, low) == KEY) == any(hint in low for hint in KEY_HINTS)


@pytest.mark.parametrize(
    "hint", ["pass", "pwd", "secret", "token", "key", "authoriz", "sessi", "cookie", "credential"]
)
def test_every_key_hint_opens_the_gate(hint: str) -> None:
    from hygiene.masking.hints import KEY, hints_in
    from hygiene.masking.keys import KEY_HINTS

    assert set(KEY_HINTS) == {
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "authoriz",
        "sessi",
        "cookie",
        "credential",
    }
    assert hints_in(f"x {hint} y", f"x {hint} y") == KEY


@pytest.mark.parametrize(
    "text",
    [
        # A URL's password starting with a value's delimiter (`}` ends `//u:`): the value runs
        # on over both masked forms on a second pass.
        "api_key://u:}@=Cookie-and-more-after-it",
        "api_key://u:}@hostxxxxxxxxxxxxxxxxxxxxxxxx",
        "password=//u:,@h://v:}@host-and-more-after-it",
        # A value ending inside a URL's password (`//u:password` ends at `}`): merged with
        # it, and on a second pass the value runs on over the host (found by the deep
        # hypothesis profile).
        "password://u:password}00000000@000passwordpassword",
        # A token ending inside a key run too long to be a key: its `…` cuts the run, and
        # the rest (`.1password`) is a key of its own on a second pass.
        "password" * 4 + "pat_AIC_" + "000000012000000.1password:00000000000",
        "password" * 11 + "pat_AIC_" + "000000000012000000000000000.1password://u:",
        # A scheme inside a credential the bearer rule leaves to the PAT rule.
        "Bearer pat_AIC_" + "000000120000001/Bearer 00000012",
    ],
)
def test_masking_is_idempotent_where_masked_forms_change_what_follows(text: str) -> None:
    once = mask(text)
    assert mask(once) == once
    assert once.count("…") >= 1


@pytest.mark.parametrize("before", ["password" * 4, "password" * 11, "x" * 70])
def test_a_password_after_a_token_in_a_long_run_is_masked(before: str) -> None:
    text = before + "pat_AIC_" + "000000012000000.1password:hunter2hunter2"
    assert "hunter2" not in mask(text)


_PAT_PIECES = st.sampled_from(
    [
        *("pat_AIC_", "pat%5FAIC%5F", "pat%5fAIC%5f", "AIC", "%5F", "%2d", "%5", "%", "_", "-"),
        *("a", "Zq9", "x7Kd2", " ", "=", "…", "abcdefgh", "Xk3Lm9Qp"),
    ]
)


@given(st.lists(_PAT_PIECES, max_size=14).map("".join))
def test_pat_runs_find_what_the_core_rules_find(text: str) -> None:
    """mask()'s run patterns (no per-unit alternation) against the core's own PAT rules."""
    import re

    from hygiene.detection import PAT_PREFIX, masked_form
    from hygiene.masking import pats as masking
    from hygiene.shapes import is_explicit_placeholder, url_decoded

    tail = re.compile(r"[A-Za-z0-9_-]*")
    expected = []
    for rule in (masking._PAT_RULE, masking._PAT_URLENCODED_RULE):
        m = rule.text.search(text)
        while m is not None:
            end = tail.match(text, m.end()).end()  # type: ignore[union-attr]
            # Masking keeps explicit placeholders only (it errs toward hiding).
            if not is_explicit_placeholder(url_decoded(m["cred"])):
                expected.append((m.start(), end))
            m = rule.text.search(text, end)
    masking._VERDICTS.clear()
    found: list[Span] = []
    assert masking.pat_spans(text, found) == len(text)  # (fewer tokens than PRECISE_KEYS)
    plain = list(found)
    assert masking.urlencoded_pat_spans(text, found) == len(text)
    assert sorted((s[0], s[1]) for s in found) == sorted(expected)
    for start, end, replacement in plain:
        assert replacement == masked_form(text[start:end])
        assert replacement.startswith(PAT_PREFIX)
