"""hygiene.fingerprints: PATs keep their plain SHA-256; guessable credentials are named by a
memory-hard hash and a Basic credential's masked form shows nothing of its password."""

from __future__ import annotations

import base64
import hashlib
import secrets

from hypothesis import given
from hypothesis import strategies as st

from hygiene.fingerprints import (
    ELLIPSIS,
    FINGERPRINT_PREFIXES,
    basic_parts,
    entropy_bits,
    fingerprint,
    is_guessable,
    masked_form,
    sha256_fingerprint,
)
from tests.helpers import new_pat, new_session_token


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def test_a_pat_keeps_its_plain_sha256_the_inventory_depends_on() -> None:
    pat = new_pat()
    assert fingerprint(pat) == "sha256:" + hashlib.sha256(pat.encode()).hexdigest()
    assert not is_guessable(pat)


def test_a_random_session_token_keeps_its_plain_sha256() -> None:
    token = new_session_token()
    assert fingerprint(token) == sha256_fingerprint(token)


def test_a_basic_credential_is_named_by_scrypt_the_same_everywhere() -> None:
    cred = _basic("deploy", "Winter2026!")
    named = fingerprint(cred)
    assert named.startswith("scrypt:")
    assert len(named) == len("scrypt:") + 64
    assert named == fingerprint(cred)  # stable: baselines and [[allow]] keep working
    assert hashlib.sha256(cred.encode()).hexdigest() not in named
    assert named.startswith(FINGERPRINT_PREFIXES)


def test_a_low_entropy_value_is_guessable_and_a_random_one_is_not() -> None:
    assert is_guessable("hunter2hunter2")
    assert is_guessable("correcthorse")
    assert not is_guessable(secrets.token_urlsafe(32))
    assert entropy_bits("aaaa") == 0.0


def test_a_basic_credential_shows_no_tail() -> None:
    cred = _basic("admin", secrets.token_hex(4))
    assert masked_form(cred) == ELLIPSIS
    assert basic_parts(cred) is not None


def test_other_credentials_keep_their_short_tail() -> None:
    token = secrets.token_urlsafe(32)
    assert masked_form(token) == ELLIPSIS + token[-4:]
    pat = new_pat()
    assert masked_form(pat) == "pat_AIC_" + ELLIPSIS + pat[-4:]


@given(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=24),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=24),
)
def test_no_basic_credential_shows_any_of_its_password(user: str, password: str) -> None:
    # A user part opening like JSON ({ or [) is an opaque token's base64, not a Basic user.
    cred = _basic("u" + user.replace(":", "u"), password)
    assert masked_form(cred) == ELLIPSIS
    assert fingerprint(cred).startswith("scrypt:")
