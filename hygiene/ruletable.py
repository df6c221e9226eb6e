"""The rule table: every way a secret appears, and every word that names one, written once.

The scanner, the masker, the logging filter (Python and C), the ``hygiene mask`` stream and the
exports all read what they look for from here, never from a copy:

* :data:`KEY_WORDS`: the words a sensitive key ends with (``password``, ``api_key``,
  ``refresh_token``), each with its hint (the piece of it every spelling holds, which the cheap
  gates look for) and its masked-form policy (:data:`HIDDEN` or :data:`TAIL`).
* :data:`TABLE`: one :class:`Row` per rule: the literals every match holds (``hints``, any
  case; ``cased``, as written), the scanner's needles, the pattern (the scanner's rules; the
  masking-only rules judge in :mod:`hygiene.masking`), the decoders whose output may carry it,
  and its masked-form policy.

Adding a sensitive key word is one :class:`KeyWord` line here; adding a rule is one
:class:`Row` here and, for a masking-only rule, its judge in :mod:`hygiene.masking`. What the
gates search is derived (:func:`gate_hints`), so no gate can miss what a rule needs.

Part of the detection core: it imports nothing of the package but :mod:`hygiene.shapes`.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from hygiene.shapes import SCHEME_PATTERN

AIC_PAT: Final = "aic-pat"
BEARER_TOKEN: Final = "bearer-token"  # noqa: S105 - a type id, not a password

# Masked-form policies: a bare ellipsis (a password's tail helps guessing it), or the core's
# masked form (prefix, ellipsis, short tail: a human can match a token to the inventory).
HIDDEN: Final = "hidden"
TAIL: Final = "tail"

# The decoders (hygiene.scan.decoders) whose output the scanner searches for a rule.
COMPRESSED: Final = "compressed"  # gzip, bz2, xz, zstd streams and archive members
UTF16: Final = "utf16"
BASE64: Final = "base64"


class KeyWord(NamedTuple):
    """A word a sensitive key ends with, lowercased and without ``_``, ``-`` and ``.``."""

    word: str
    # What every spelling of a key ending so holds (``pass_word`` holds ``pass``): what the
    # gates look for. Shared pieces keep the gates short (``key`` for every ``*key``).
    hint: str
    masked: str
    # False: the word names a secret only in the forms hygiene.masking.keys spells out
    # (``pass`` in ``DB_PASS``, never in ``bypass``).
    alone: bool = True


KEY_WORDS: Final = (
    KeyWord("password", "pass", HIDDEN),
    KeyWord("passwd", "pass", HIDDEN),
    KeyWord("pwd", "pwd", HIDDEN),
    KeyWord("passphrase", "pass", HIDDEN),
    KeyWord("secret", "secret", HIDDEN),
    KeyWord("privatekey", "key", HIDDEN),
    KeyWord("secretkey", "key", HIDDEN),
    KeyWord("signingkey", "key", HIDDEN),
    KeyWord("encryptionkey", "key", HIDDEN),
    KeyWord("credential", "credential", HIDDEN),
    KeyWord("credentials", "credential", HIDDEN),
    KeyWord("cookie", "cookie", HIDDEN),
    KeyWord("token", "token", TAIL),
    KeyWord("apikey", "key", TAIL),
    KeyWord("accesskey", "key", TAIL),
    KeyWord("authorization", "authoriz", TAIL),
    KeyWord("session", "sessi", TAIL),
    KeyWord("sessionid", "sessi", TAIL),
    KeyWord("sessid", "sessi", TAIL),
    KeyWord("pass", "pass", HIDDEN, alone=False),
)

HIDDEN_ENDINGS: Final = tuple(k.word for k in KEY_WORDS if k.alone and k.masked == HIDDEN)
TOKEN_ENDINGS: Final = tuple(k.word for k in KEY_WORDS if k.alone and k.masked == TAIL)
SENSITIVE_ENDINGS: Final = HIDDEN_ENDINGS + TOKEN_ENDINGS
WORD_ENDINGS: Final = tuple(k.word for k in KEY_WORDS if not k.alone)
KEY_HINTS: Final = tuple(dict.fromkeys(k.hint for k in KEY_WORDS))


# The scanner's patterns (hygiene.detection compiles and judges them).

# The longest credential we report (16 KiB: large JWTs are found whole); longer runs (base64
# blobs in binaries) are cut here so the scanner's read-ahead stays bounded.
MAX_TOKEN_LENGTH: Final = 16384

# The secret part: token characters, or `_` and `-` URL-encoded (`%5F`, `%2D`: a form body
# or a logged query string encodes them), decoded in the reported token. Each repetition
# is one character or one escape, never both, so the walk stays linear.
_PAT_BODY = r"(?:[A-Za-z0-9_-]|%5[Ff]|%2[Dd]){8," + str(MAX_TOKEN_LENGTH) + "}"
PAT_PATTERN: Final = r"pat_AIC_(?P<cred>" + _PAT_BODY + ")"
# URL-encoded form (`pat%5FAIC%5F...`), as seen in logged query strings.
PAT_URLENCODED_PREFIX: Final = r"pat%5[Ff]AIC%5[Ff]"
PAT_URLENCODED_PATTERN: Final = PAT_URLENCODED_PREFIX + r"(?P<cred>" + _PAT_BODY + ")"

# The key's closing quote and the value's opening quote, each optional and escaped zero to
# three times (JSON inside JSON inside JSON).
_KEY_QUOTE = r"""(?P<kq>\\{0,3}["'])?"""
_VALUE_QUOTE = r"""(?P<vq>\\{0,3}["'])?"""
# Between the key and its value: `:`, `=`, or the comma of a quoted pair
# (`("Authorization", "…")`, `(b'authorization', b'…')`); the comma counts only there (see
# detection's `_in_pair`), never in import lists, argument lists or JSON arrays.
_SEPARATOR = r"[ \t]*(?:[:=]|(?P<comma>,[ \t]*b?))[ \t]*"
# The credential itself: token68 characters plus `%` (URL-encoded values).
_CRED = r"(?P<cred>[A-Za-z0-9._~+/=%-]{1," + str(MAX_TOKEN_LENGTH) + "})"
# A credential ends at whitespace, a quote, a backslash, a delimiter or the end of input:
# `get_token(` or `os.environ[` are code, not values.
_CRED_END = r"""(?=[\s"'\\,;&)\]}>|]|$)"""
# Only real authentication scheme words are schemes; `SharedKey account:SIG` names an account.
_SCHEME = (
    r"(?:(?P<scheme>(?i:" + SCHEME_PATTERN + r"))[ \t]+"
    r"(?:(?P<account>[A-Za-z0-9._-]{1,64}):)?)?"
)
_KEY_VALUE = _KEY_QUOTE + _SEPARATOR + _VALUE_QUOTE + r"[ \t]*"

AUTHORIZATION_PATTERN: Final = r"(?i:authorization)" + _KEY_VALUE + _SCHEME + _CRED + _CRED_END
ACCESS_TOKEN_PATTERN: Final = r"(?i:access[_-]?token)" + _KEY_VALUE + _CRED + _CRED_END

# HAR, Postman and OpenAPI carry a header or key as a name/value pair: the keyword is the value
# of `name`/`key` (`{"name": "Authorization", "value": "Bearer ..."}`, Postman's
# `"bearer": [{"key": "token", "value": "..."}]`), the credential that of a sibling `value`
# (OpenAPI: `example`) of the same object, up to six lines on. The gap holds no `name`/`key`
# field and no YAML list item, so the value of the next pair is never taken.
_PAIR_KEYS = r"(?i:authorization|access_token)"
_PAIR_TOKEN_KEY = r"""["'](?i:token)"""  # noqa: S105 - a pattern, not a password
_PAIR_GAP_CHAR = r"""(?:(?!\\{0,3}["'](?:name|key)\\{0,3}["']|- )[^\n])"""
_PAIR_GAP = r"(?:" + _PAIR_GAP_CHAR + r"{0,120}\r?\n){0,6}?" + _PAIR_GAP_CHAR + r"{0,120}?"
_PAIR_VALUE_KEY = r"""(?<=[\s"',{\\])(?i:value|example)"""
# An optional quote, escaped zero to three times (JSON inside JSON inside JSON).
_QUOTE = r"""(?:\\{0,3}["'])?"""


def _pair(key: str) -> str:
    value = _QUOTE + r"[ \t]*[:=][ \t]*" + _QUOTE + r"[ \t]*" + _SCHEME + _CRED + _CRED_END
    return key + _QUOTE + r"[ \t]*(?:,|\r?\n)" + _PAIR_GAP + _PAIR_VALUE_KEY + value


# Two rules, so that no needle of one lies inside another of the same rule (`access_token"`
# holds `ccess_token` and `token"`): the scanner ends a match at its rule's next needle.
PAIR_PATTERN: Final = _pair(_PAIR_KEYS)
PAIR_TOKEN_PATTERN: Final = _pair(_PAIR_TOKEN_KEY)


class Row(NamedTuple):
    """One rule: what every match holds, how it is found, read and shown."""

    name: str
    # What the scanner reports a match as; None for a rule of masking alone.
    type_id: str | None
    # Every match holds one of these, in some case (lowercase here): what gates look for.
    hints: tuple[str, ...]
    # Every match holds one of these exactly as written: a cheaper test for short texts
    # (a capital `I` is rarer than any letter of `pat_aic_`). Empty: ``hints`` serve.
    cased: tuple[str, ...]
    # The scanner's literals (every match holds one) and how far before its literal a match
    # starts: `authorization` is searched as `uthoriz`, which no spelling of it lacks.
    needles: tuple[bytes, ...]
    back: int
    # The scanner's pattern (None: masking alone, judged in hygiene.masking).
    pattern: str | None
    # Keyword-anchored: any case, and the value judged by its shape (hygiene.shapes).
    keyword: bool
    # The decoders whose output the scanner reads for this rule.
    decoders: tuple[str, ...]
    # How a match is shown: TAIL or HIDDEN; KEYED: as its key word says.
    masked: str


KEYED: Final = "keyed"
_URLENCODED_NEEDLES = tuple(f"pat%5{a}AIC%5{b}".encode() for a in "Ff" for b in "Ff")

TABLE: Final = (
    Row("pat", AIC_PAT, ("pat_aic_",), ("AIC",), (b"pat_AIC_",), 0, PAT_PATTERN, False,
        (COMPRESSED, UTF16, BASE64), TAIL),
    # A PAT in a logged URL's query string; needles: the whole prefix, each case of its escapes
    # (a match is cut at the next needle: a body holding `pat%5F` is no second token).
    Row("pat-urlencoded", AIC_PAT, ("pat%5faic%5f",), ("AIC",), _URLENCODED_NEEDLES, 0,
        PAT_URLENCODED_PATTERN, False, (COMPRESSED,), TAIL),
    Row("authorization", BEARER_TOKEN, ("authoriz",), (), (b"uthoriz",), 1,
        AUTHORIZATION_PATTERN, True, (COMPRESSED,), TAIL),
    Row("access-token", BEARER_TOKEN, ("token",), (),
        (b"ccess_token", b"ccess-token", b"ccesstoken"), 1, ACCESS_TOKEN_PATTERN, True,
        (COMPRESSED,), TAIL),
    # Name/value pairs (HAR, Postman, OpenAPI); a pair whose value is a PAT is the PAT rule's.
    Row("pair", BEARER_TOKEN, ("authoriz", "token"), (), (b"uthorization", b"ccess_token"), 1,
        PAIR_PATTERN, True, (COMPRESSED,), TAIL),
    Row("pair-token", BEARER_TOKEN, ("token",), (), (b'token"', b"token'"), 1,
        PAIR_TOKEN_PATTERN, True, (COMPRESSED,), TAIL),
    # Masking alone (hygiene.masking: keyvalues, elements, credentials).
    Row("sensitive-key", None, KEY_HINTS, (), (), 0, None, True, (), KEYED),
    Row("bearer", None, ("bearer",), (), (), 0, None, True, (), TAIL),
    Row("basic", None, ("basic",), (), (), 0, None, True, (), HIDDEN),
    # A URL's password: `@` is what a short text is gated on; the stream, where URLs are
    # everywhere, runs the rule's own pattern instead (hygiene.masking.stream).
    Row("userinfo", None, ("@",), (), (), 0, None, False, (), HIDDEN),
    # Credentials named by their context (hygiene.masking.context); the context rules anchored
    # on a key word (env lists, flags, netrc, HTML fields) are gated by the key words' hints.
    # A signed URL's signature: Azure SAS `sig=` (its `=` URL-encoded too), X-Amz-Signature...
    Row("signed-url", None, ("sig=", "sig%", "signature"), (), (), 0, None, False, (), TAIL),
    # curl's user and password: `-u user:password`, `--user`, `--proxy-user`.
    Row("curl-user", None, ("-u ", "--user"), (), (), 0, None, False, (), HIDDEN),
    # pgpass lines: the PostgreSQL and PgBouncer ports, and a wildcard field.
    Row("pgpass", None, (":5432:", ":6432:", ":*:"), (), (), 0, None, False, (), HIDDEN),
)  # fmt: skip

# The rows of hygiene.masking.context's rules that are gated on their own hints.
CONTEXT_ROWS: Final = ("signed-url", "curl-user", "pgpass")

# What the masker reads through rather than as text: ANSI colour codes start with ESC.
LOOK_THROUGH: Final = ("\x1b",)


def gate_hints(
    *, cased: bool, skip: tuple[str, ...] = ()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a gate looks for so that a text without any of it holds nothing a rule masks:
    ``(caseless, exact)``: lowercase literals searched in any case, and literals searched as
    written. ``cased``: a row's ``cased`` literals replace its ``hints`` where it has them
    (short texts); ``skip``: rows (by name) whose caller finds them otherwise."""
    caseless: list[str] = []
    exact: list[str] = []
    for row in TABLE:
        if row.name in skip:
            continue
        if cased and row.cased:
            exact.extend(row.cased)
        else:
            caseless.extend(row.hints)
    caseless.extend(LOOK_THROUGH)
    return tuple(dict.fromkeys(caseless)), tuple(dict.fromkeys(exact))


__all__ = [
    "ACCESS_TOKEN_PATTERN",
    "AIC_PAT",
    "AUTHORIZATION_PATTERN",
    "BASE64",
    "BEARER_TOKEN",
    "COMPRESSED",
    "CONTEXT_ROWS",
    "HIDDEN",
    "HIDDEN_ENDINGS",
    "KEYED",
    "KEY_HINTS",
    "KEY_WORDS",
    "LOOK_THROUGH",
    "MAX_TOKEN_LENGTH",
    "PAIR_PATTERN",
    "PAIR_TOKEN_PATTERN",
    "PAT_PATTERN",
    "PAT_URLENCODED_PATTERN",
    "PAT_URLENCODED_PREFIX",
    "SENSITIVE_ENDINGS",
    "TABLE",
    "TAIL",
    "TOKEN_ENDINGS",
    "UTF16",
    "WORD_ENDINGS",
    "KeyWord",
    "Row",
    "gate_hints",
]
