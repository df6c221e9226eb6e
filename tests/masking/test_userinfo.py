"""A token as a URL's user name, with no password (``https://TOKEN@host``: how GitHub, GitLab
and other forges take one): masked when it is a credential, while user names stay.

The decision: a PAT is the PAT rule's (always masked). Another user name is masked when it is
a token of a known format (the core's issuers) or 20 characters or more that the scanner would
report as a credential (random: not words, not a placeholder or an example). Shorter random
user names stay: a name such as ``admin123`` or ``ec2-user`` is not told apart from a short
credential by its shape, and user names are everywhere in URLs (``ssh://git@``,
``postgres://postgres@``); masking them would cost logs their meaning for credentials too
short to be issued by a forge.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene.detection import PAT_PREFIX, find_secrets, is_reportable_credential
from hygiene.masking import mask
from hygiene.masking.credentials import USER_CREDENTIAL_LENGTH
from tests.helpers import SecretGuard, examples, run_hygiene

_ALNUM = string.ascii_letters + string.digits


def _random(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _known_formats() -> list[str]:
    """Tokens of third-party formats the core's issuers know, built here at run time."""
    upper = string.ascii_uppercase + string.digits
    return [
        "gh" + "p_" + _random(_ALNUM, 36),
        "gl" + "pat-" + _random(_ALNUM, 20),
        "xo" + "xb-" + _random(_ALNUM, 24),
        "AK" + "IA" + _random(upper, 16),
        "np" + "m_" + _random(_ALNUM, 36),
        "h" + "f_" + _random(_ALNUM, 34),
    ]


def _credential(make: Callable[[], str]) -> str:
    """A value of ``make`` that reads as a credential (a random one of 20 characters reads as
    words about once in 2,500 draws: drawn again, so that the tests cannot flake)."""
    while True:
        value = make()
        if is_reportable_credential(value):
            return value


def _random_users(guard: SecretGuard) -> list[str]:
    return [
        _credential(lambda: secrets.token_urlsafe(30)),  # 40 characters, base64url
        _credential(lambda: secrets.token_hex(20)),  # 40 hex digits (a classic OAuth token)
        _credential(lambda: _random(_ALNUM, USER_CREDENTIAL_LENGTH)),  # as short as it goes
        guard.session_token(),  # a JWT-shaped session token
    ]


# Where a URL with a token as its user name shows up.
PLACES = [
    "{}",
    "git clone {} ./repo",
    "INFO fetching {} (attempt 2)",
    '{{"remote": "{}", "ok": true}}',
    "remote='{}'",
    "<url>{}</url>",
    "see ({}).",
]
SHAPES = [
    "https://{}@github.com/org/repo.git",
    "http://{}@127.0.0.1:8080/x",
    "git+https://{}@gitlab.example.com/group/project",
    "https://{}@host",
    "ssh://{}@host:22/path",
]


def _check(guard: SecretGuard, text: str, secret: str) -> str:
    out = mask(text)
    guard.capture(out)
    assert secret not in out
    assert secret[:12] not in out  # no part of it shows before the tail
    assert mask(out) == out  # idempotent
    assert find_secrets(out) == []
    return out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("place", PLACES)
def test_a_pat_as_a_urls_user_name_is_masked(guard: SecretGuard, shape: str, place: str) -> None:
    pat = guard.pat()
    out = _check(guard, place.format(shape.format(pat)), pat)
    assert f"{PAT_PREFIX}\u2026{pat[-4:]}@" in out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("place", PLACES)
def test_a_random_token_as_a_urls_user_name_is_masked(
    guard: SecretGuard, shape: str, place: str
) -> None:
    for token in [*_random_users(guard), *_known_formats()]:
        guard.remember(token)
        text = place.format(shape.format(token))
        out = _check(guard, text, token)
        url = shape.format(token)
        # Only the user name changes: the scheme, the host and what is around stay.
        assert out == text.replace(url, url.replace(token, f"\u2026{token[-4:]}"))


USER_NAMES = [
    "git",
    "postgres",
    "jane.doe",
    "john.smith%40example.com",
    "jonathan.doe%40corporation.example.com",
    "user.name+tag%40gmail.com",
    "DOMAIN%5Cjohn.doe",
    "deploy-bot",
    "jenkins-deploy-bot-2024",
    "service-account-prod-eu-west-1",
    "build-agent-linux-x64-01",
    "k8s-cluster-admin-2023",
    "svc_account_reporting",
    "ci_deploy_user_staging",
    "sa_reporting_2024",
    "terraform-cloud-runner",
    "my-very-long-username-here",
    "AzureDiamond",
    "Administrator",
    "x-access-token",
    "gitlab-ci-token",
    "oauth2",
    "ec2-user",
    "admin123",
    "anonymous",
    "your_token",  # a placeholder
    "x" * 30,
]


@pytest.mark.parametrize("name", USER_NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_user_names_in_urls_stay(name: str, shape: str) -> None:
    text = f"INFO cloning {shape.format(name)} now"
    assert mask(text) is text


@pytest.mark.parametrize(
    "text",
    [
        "git@github.com:org/repo.git",
        "mailto:jane.doe@example.com",
        "jane.doe@example.com wrote",
        "https://github.com/org/repo?ref=a1B2c3D4e5F6g7H8i9J0k1L2@x",  # no userinfo: a query
        "https://host/path#a1B2c3D4e5F6g7H8i9J0k1L2@x",  # a fragment
        "https://host/a1B2c3D4e5F6g7H8i9J0k1L2@x",  # a path
    ],
)
def test_what_is_no_user_name_stays(text: str) -> None:
    assert mask(text) is text


@pytest.mark.parametrize("length", [8, 12, 16, USER_CREDENTIAL_LENGTH - 1])
def test_a_short_random_user_name_stays(length: int) -> None:
    # The decision pinned (see the module's docs): below the length, a random user name is
    # not told apart from a name.
    user = _random(string.ascii_lowercase, 1) + _random(_ALNUM, length - 1)
    text = f"https://{user}@host/x"
    assert mask(text) is text


@pytest.mark.parametrize("kilobytes", [1, 80])  # line by line, and a block Hyperscan reads
def test_hygiene_mask_masks_a_token_as_a_user_name(guard: SecretGuard, kilobytes: int) -> None:
    tokens = [*_random_users(guard), *_known_formats()]
    for token in tokens:
        guard.remember(token)
    lines = [f"INFO cloning https://{t}@github.com/o/r.git" for t in tokens]
    filler = "INFO nothing to see here\n" * (kilobytes * 1024 // 25)
    data = (filler + "\n".join(lines) + "\n" + filler).encode()
    done = run_hygiene(guard, "mask", input=data)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode().splitlines()
    for token in tokens:
        assert f"INFO cloning https://\u2026{token[-4:]}@github.com/o/r.git" in out
    assert len(out) == data.count(b"\n")


# CPU time per KB no linear masking comes near (as tests/masking/test_properties.py).
_BUDGET_PER_KB = 0.004


@pytest.mark.parametrize(
    "unit",
    [
        "://" + "a1B2" * 16,  # users without their `@`
        "https://" + "a1B2" * 8 + "@h ",  # thousands of URLs with a token as user
        "://" + "a1B2" * 16 + "@",
        "x://y:" + "a1B2" * 8,
    ],
)
def test_user_names_are_judged_in_linear_time(unit: str) -> None:
    kilobytes = 256
    text = (unit * (kilobytes * 1024 // len(unit) + 1))[: kilobytes * 1024]
    start = time.process_time()
    mask(text)
    assert time.process_time() - start < _BUDGET_PER_KB * kilobytes


def test_a_huge_token_as_a_user_name_is_masked_whole() -> None:
    body = ("A1b2C3d4" * 20_000)[:100_000]
    out = mask(f"https://{body}@host after")
    assert out == f"https://\u2026{body[-4:]}@host after"


_USER_CHARS = _ALNUM + "-._~%+!$&'()*,;="


@settings(max_examples=examples(300), deadline=None)
@given(
    st.text(_USER_CHARS, min_size=1, max_size=60),
    st.sampled_from(SHAPES),
    st.sampled_from(PLACES),
)
def test_masking_user_names_is_idempotent(user: str, shape: str, place: str) -> None:
    once = mask(place.format(shape.format(user)))
    assert mask(once) == once


@pytest.mark.parametrize("count", [33, 40, 500])
def test_past_the_judged_urls_token_user_names_are_hidden_too(
    guard: SecretGuard, count: int
) -> None:
    # The first URLs of a text are judged one by one; past them (a line of hundreds of URLs)
    # a user name of token characters with a digit is hidden by its shape.
    tokens = [_credential(lambda: secrets.token_hex(20)) for _ in range(count)]
    names = ["ssh://git@host/r", "https://jane.doe@host/x", "https://jenkins-deploy-bot@h/"]
    urls = [f"https://{t}@github.com/o/r{n}.git" for n, t in enumerate(tokens)]
    text = " ".join(urls[:20] + names + urls[20:] + names) + " https://ci:pw0rd-1234@h/"
    for token in tokens:
        guard.remember(token)
    out = _check(guard, text, tokens[0])
    assert not [t for t in tokens if t in out]
    assert out.count("\u2026") == count + 1  # each token, and the password
    assert all(out.count(name) == 2 for name in names)


def test_hygiene_mask_hides_token_user_names_on_a_huge_line(guard: SecretGuard) -> None:
    tokens = [_credential(lambda: secrets.token_urlsafe(30)) for _ in range(3000)]
    for token in tokens:
        guard.remember(token)
    line = " ".join(f"https://{t}@github.com/o/r.git" for t in tokens)  # about 170 KB
    done = run_hygiene(guard, "mask", input=(line + "\n").encode())
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert not [t for t in tokens if t in out]
    assert out.count("https://\u2026") == len(tokens)


def test_a_logging_filter_masks_a_token_as_a_user_name(guard: SecretGuard) -> None:
    # The filter's common case (compiled where built) passes such a record on to mask().
    import io
    import logging

    from hygiene.masking import RedactingFilter

    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.addFilter(RedactingFilter())
    logger = logging.Logger("userinfo")
    logger.addHandler(handler)
    tokens = [*_random_users(guard), *_known_formats()]
    for token in tokens:
        guard.remember(token)
        logger.warning("cloning %s", f"https://{token}@github.com/o/r.git")
    guard.capture(sink.getvalue())
    lines = sink.getvalue().splitlines()
    assert lines == [f"cloning https://\u2026{t[-4:]}@github.com/o/r.git" for t in tokens]
