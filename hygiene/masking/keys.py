"""Which keys name a secret, and what a masked value of such a key looks like.

A key is sensitive when, lowercased and without ``_``, ``-`` and ``.``, it ends with one of
the words of the core's rule table (:data:`hygiene.ruletable.KEY_WORDS`): ``password``,
``AIC_PASSWORD``, ``db.password``, ``clientSecret``, ``x-api-key``, ``refresh_token``,
``Set-Cookie`` ... but not ``password_hash``, ``token_type``
or ``max_tokens``. Matching the end of the key is what users of env dumps and config logs
expect (``GITHUB_TOKEN``), while the word list keeps ``cache_key`` and ``primary_key`` out.
``pass`` names a password only as the last word of an environment variable (``DB_PASS``,
``SMTP_PASS``) or after ``db``, ``database`` or ``key`` (detect-secrets' ``db_?pass``):
``bypass``, ``test_pass`` and a test summary's ``pass:`` are no secrets.

Values of password-like keys become a bare ``…`` (a password's tail helps guessing it); values
of token-like keys keep the core's masked form (its tail lets a human match the inventory).
"""

from __future__ import annotations

import functools
import re
from typing import Final

from hygiene.detection import ELLIPSIS, PAT_PREFIX, masked_form
from hygiene.ruletable import HIDDEN_ENDINGS
from hygiene.ruletable import KEY_HINTS as KEY_HINTS
from hygiene.ruletable import SENSITIVE_ENDINGS as SENSITIVE_ENDINGS
from hygiene.ruletable import WORD_ENDINGS as WORD_ENDINGS

# The sensitive key words, what the gates look for and which values are hidden whole: the
# core's rule table (KEY_WORDS) says, once.
_HIDDEN: Final = HIDDEN_ENDINGS
# `pass` as a password's name (module docs): the word of KEY_WORDS not sensitive alone. Not
# `auth`, though Sentry's denylist has it, nor any `*_pass`: over the source lines of 17 installed HTTP, cloud and web packages (as
# traceback lines show them), a version with both masked 166 lines of code more than the 511
# masked then (`auth: BasicAuth | None`, `("auth", "0002_...")`, `test_pass = await ...`),
# and not one secret (bench/overmask_bench.py --other <that version's checkout>).
_PASS: Final = re.compile(
    r"(?:[A-Z0-9][_.-]+PASS|(?<![A-Za-z0-9])(?i:db|database|key)[_.-]?(?i:pass))\Z"
)


# Shell variables that only look sensitive: the working directory is not a password.
_NOT_SECRETS: Final = frozenset({"PWD", "OLDPWD"})

# Values made only of these hold nothing to mask: `-` is what access logs print for an absent
# header (gunicorn's `cookie="%({cookie}i)s"`), `***` what others already masked.
_NOTHING: Final = frozenset("*-_.")
# How masked forms start: hidden, a PAT's, a URL-encoded PAT's; and hidden with its `…`
# URL-encoded (a masked URL made into a URL object again: context.py, exceptions.py).
_ELLIPSIS_ENCODED: Final = "%E2%80%A6"
_MASKED_STARTS: Final = (
    ELLIPSIS,
    PAT_PREFIX + ELLIPSIS,
    PAT_PREFIX.replace("_", "%5F") + ELLIPSIS,
    _ELLIPSIS_ENCODED,
    PAT_PREFIX + _ELLIPSIS_ENCODED,
)

_STRIP: Final = str.maketrans("", "", "_-.")

# The longest key judged whole. A longer name (`com.example.app.database.connection.password`,
# a long environment variable) is judged by its end: what follows the first `_`, `.` or `-`
# among its last MAX_KEY + 1 characters. A run with no such boundary near its end is a blob
# (base64, a hash), not a name.
MAX_KEY: Final = 64
_BOUNDARY: Final = re.compile(r"[_.-]")


def long_key_start(text: str, end: int) -> int:
    """Where the key that ends at ``end`` starts, in a run of key characters longer than
    ``MAX_KEY``; -1 when the run has no boundary near its end."""
    m = _BOUNDARY.search(text, max(0, end - MAX_KEY - 1), end)
    return -1 if m is None else m.end()


@functools.lru_cache(maxsize=4096)  # keys repeat: a log holds few distinct ones
def _compact(key: str) -> str:
    return key.lower().translate(_STRIP)


def is_sensitive_key(key: str) -> bool:
    """Whether values stored under ``key`` are secrets (``password``, ``x-api-key`` ...)."""
    if len(key) > MAX_KEY:
        start = long_key_start(key, len(key))
        if start < 0:
            return False
        key = key[start:]
    if key in _NOT_SECRETS:
        return False
    return _compact(key).endswith(SENSITIVE_ENDINGS) or _names_a_pass(key)


@functools.lru_cache(maxsize=4096)
def _names_a_pass(key: str) -> bool:
    """Whether ``key`` names a password as ``pass`` (module docs)."""
    return _PASS.search(key) is not None


def is_masked(value: str) -> bool:
    """True for values that are already masked (or hold nothing to mask)."""
    stripped = value.strip()
    if not stripped or set(stripped) <= _NOTHING:  # `***`, or `-` for an absent header
        return True
    # A masked form is short: a long value that starts with `…` is not one.
    if len(stripped) > 20:
        return False
    if "%" in stripped:
        stripped = stripped.replace("%5f", "%5F").replace("%e2%80%a6", _ELLIPSIS_ENCODED)
    return stripped.startswith(_MASKED_STARTS)


def hides_whole(key: str) -> bool:
    """Whether values of the sensitive ``key`` are passwords, hidden whole (no masked form)."""
    return _compact(key).endswith(_HIDDEN) or _names_a_pass(key)


def masked_value(key: str, value: str) -> str:
    """The replacement for ``value`` stored under the sensitive ``key``."""
    if hides_whole(key):
        return ELLIPSIS
    return safe_masked_form(value)


def safe_masked_form(value: str) -> str:
    """The core's masked form, without a tail when the tail is not plain token characters.

    A tail such as ``:p@h`` could start a new match (``user:p@host``) on a second pass.
    """
    masked = masked_form(value)
    tail = masked[masked.index(ELLIPSIS) + 1 :]
    if tail and not tail.replace("_", "").replace("-", "").isalnum():
        return masked[: len(masked) - len(tail)]
    return masked
