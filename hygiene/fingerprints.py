"""How a secret is named without being shown: its fingerprint and its masked form.

Part of the detection core (with :mod:`hygiene.detection` and :mod:`hygiene.shapes`): it
imports nothing else of the package.

A PAT, or any credential drawn at random from a large space, is named by ``sha256:`` + the hex
SHA-256 of the whole token: the inventory, baselines and detect-secrets' ``hashed_secret``
(SHA-1) depend on it, and a hash of 128 random bits cannot be reversed by guessing.

A *guessable* credential is another matter: a Basic credential is ``base64(user:password)``,
and people choose passwords. A plain hash of it, published in a SARIF report, is a dictionary
attack away from the password. Such a credential is named by ``scrypt:`` + a memory-hard
hash under a fixed, public salt: still the same on every machine (baselines and settings'
``[[allow]]`` keep working), but each guess costs an attacker milliseconds and megabytes
instead of nanoseconds. A Basic credential's masked form shows no tail at all (its last
characters are the password's).
"""

from __future__ import annotations

import binascii
import functools
import math
import re
from collections import Counter
from typing import Final

PAT_PREFIX: Final = "pat_AIC_"
ELLIPSIS: Final = "…"

SHA256_PREFIX: Final = "sha256:"
SCRYPT_PREFIX: Final = "scrypt:"
# The prefixes a published fingerprint starts with (settings and baselines check them).
FINGERPRINT_PREFIXES: Final = (SHA256_PREFIX, SCRYPT_PREFIX)
# A published fingerprint, whole (baselines, settings' [[allow]], reports read back).
FINGERPRINT_PATTERN: Final = r"(?:sha256|scrypt):[0-9a-f]{64}"
# scrypt's cost: 2^12 rounds of 8 KiB blocks, 4 MiB a guess (about 7 ms on one core here). A
# report of N distinct guessable credentials costs N times that, once (answers are cached);
# an attacker's guess costs the same, on hardware where memory, not arithmetic, is the limit.
SCRYPT_N: Final = 1 << 12
SCRYPT_R: Final = 8
# Public on purpose: the salt separates these hashes from every other use of scrypt (no table
# computed for another system applies); it is no secret, and needs none.
SCRYPT_SALT: Final = b"aic-token-hygiene/guessable-credential/v1"
# Below this many bits (length times the value's own per-character Shannon entropy) a value
# may have been chosen by a person: a random 20-character base62 token measures about 85.
GUESSABLE_BITS: Final = 72.0

_PRINTABLE: Final = re.compile(rb"[\x20-\x7e]+")


def basic_parts(value: str) -> tuple[str, str] | None:
    """``(user, password)`` when ``value`` is base64 of printable ``user:password``, else None."""
    if len(value) % 4 == 1 or not value.isascii():
        return None
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None
    if b":" not in raw or not _PRINTABLE.fullmatch(raw):
        return None
    user, password = raw.decode("ascii").split(":", 1)
    # A JSON object (`{"a":1}` base64'd: some services' opaque tokens) has no user name.
    return None if user.startswith(("{", "[")) else (user, password)


def entropy_bits(value: str) -> float:
    """Length times the per-character Shannon entropy of ``value`` (an upper bound on what a
    person typing it put in, a fair estimate for random strings)."""
    if not value:
        return 0.0
    n = len(value)
    per_char = -sum(c / n * math.log2(c / n) for c in Counter(value).values())
    return per_char * n


def is_guessable(token: str) -> bool:
    """True for a credential a dictionary may hold: a Basic ``user:password``, or a value with
    too little entropy to be random. PATs never are (the service draws them)."""
    if token.startswith(PAT_PREFIX):
        return False
    return basic_parts(token) is not None or entropy_bits(token) < GUESSABLE_BITS


def sha256_fingerprint(token: str) -> str:
    """``sha256:`` + hex SHA-256 of the full token (prefix included, UTF-8): a PAT's identity
    (inventory, baselines) and, in memory only, any secret's."""
    import hashlib  # here: loading OpenSSL is 3 ms that a scan finding nothing never needs

    return SHA256_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)
def _scrypt(token: str) -> str:
    import hashlib

    digest = hashlib.scrypt(
        token.encode("utf-8"), salt=SCRYPT_SALT, n=SCRYPT_N, r=SCRYPT_R, p=1, dklen=32
    )
    return SCRYPT_PREFIX + digest.hex()


def fingerprint(token: str) -> str:
    """The fingerprint a report, baseline or printed line carries: :func:`sha256_fingerprint`
    or, for a guessable credential, ``scrypt:`` + a memory-hard hash no dictionary runs
    through cheaply."""
    return _scrypt(token) if is_guessable(token) else sha256_fingerprint(token)


def short_fingerprint(fp: str) -> str:
    """The 12 hex digits a text line shows of a fingerprint (``scrypt:`` ones keep their
    prefix, so the two kinds are told apart)."""
    kind, _, digest = fp.partition(":")
    return digest[:12] if kind == "sha256" else f"{kind}:{digest[:12]}"


def sha1_hex(token: str) -> str:
    """Hex SHA-1 of the token, as detect-secrets stores it in ``hashed_secret``."""
    import hashlib

    return hashlib.sha1(token.encode("utf-8"), usedforsecurity=False).hexdigest()


def masked_form(token: str) -> str:
    """What a human may see of a token: its public prefix, an ellipsis, at most 4 last chars.

    The tail shrinks for short secrets so that at least three quarters stay hidden, and a
    Basic credential shows none (its last characters are the password's).
    """
    prefix = PAT_PREFIX if token.startswith(PAT_PREFIX) else ""
    body = token[len(prefix) :]
    shown = 0 if not prefix and basic_parts(body) is not None else min(4, len(body) // 4)
    return prefix + ELLIPSIS + (body[-shown:] if shown else "")


__all__ = [
    "ELLIPSIS",
    "FINGERPRINT_PATTERN",
    "FINGERPRINT_PREFIXES",
    "PAT_PREFIX",
    "SCRYPT_PREFIX",
    "SHA256_PREFIX",
    "basic_parts",
    "entropy_bits",
    "fingerprint",
    "is_guessable",
    "masked_form",
    "sha1_hex",
    "sha256_fingerprint",
    "short_fingerprint",
]
