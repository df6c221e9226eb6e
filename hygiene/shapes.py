"""What a keyword-anchored value must look like to be a credential: part of the detection core.

:mod:`hygiene.detection` finds values after ``Authorization`` and ``access_token``; this module
tells the credentials among them from the code, prose and examples that sit in the same
places in real source: identifiers, types, member paths (``request.META``), word strings,
low-entropy runs (``token123``, ``abcdef123456``), the RFCs' and vendors' documented example
values, and the HTTP authentication scheme words. Like :mod:`hygiene.detection`, it imports
nothing else of the package.
"""

from __future__ import annotations

import itertools
import re
from typing import Final

from hygiene.fingerprints import basic_parts

# HTTP authentication schemes: the IANA registry (RFC 7235 and its successors), then schemes
# in wide use. Only these count as a scheme before a credential; any other word after
# `Authorization:` is the value itself (and then a word, so nothing is reported: prose such as
# `:param authorization: The Authorization HTTP request header`).
IANA_SCHEMES: Final = (
    "Basic",
    "Bearer",
    "Concealed",
    "Digest",
    "DPoP",
    "GNAP",
    "HOBA",
    "Mutual",
    "Negotiate",
    "NTLM",
    "OAuth",
    "PrivateToken",
    "SCRAM-SHA-1",
    "SCRAM-SHA-256",
    "vapid",
)
COMMON_SCHEMES: Final = (
    "Token",  # GitHub, Django REST framework
    "AWS4-HMAC-SHA256",  # AWS Signature Version 4 (structured, see detection)
    "AWS",  # AWS Signature Version 2: `AWS AccessKeyId:Signature`
    "SharedKey",  # Azure Storage: `SharedKey account:Signature`
    "SharedKeyLite",
    "SSWS",  # Okta
    "ApiKey",
    "Api-Key",
    "Key",
    "Bot",  # Discord
    "JWT",
    "MAC",
    "Hawk",
    "GoogleLogin",
    "Splunk",
    "GenieKey",  # Opsgenie
    "Client-ID",  # Imgur
    "DeepL-Auth-Key",
    "Klaviyo-API-Key",
    "Zoho-oauthtoken",
)
SCHEMES: Final = frozenset(s.lower() for s in IANA_SCHEMES + COMMON_SCHEMES)
# Longest first, so an alternation never stops at a prefix (`SharedKey` in `SharedKeyLite`).
# `-` is left unescaped: literal outside a class in every dialect, and JavaScript's unicode
# mode (secretlint) refuses `\-` there.
SCHEME_PATTERN: Final = "|".join(
    re.escape(s).replace("\\-", "-")
    for s in sorted(IANA_SCHEMES + COMMON_SCHEMES, key=len, reverse=True)
)
# Schemes whose credential is `NAME:SIGNATURE`: the signature is the secret, NAME is not.
ACCOUNT_SCHEMES: Final = frozenset({"sharedkey", "sharedkeylite", "aws"})

# Values published as examples in specifications and vendor documentation: copied into test
# fixtures and docstrings everywhere, never anyone's live credential.
EXAMPLE_VALUES: Final = frozenset(
    {
        "mF_9.B5f-4.1JqM",  # RFC 6750 section 2.1, bearer token
        "2YotnFZFEjr1zCsicMWpAA",  # RFC 6749, access token
        "tGzv3JOkF0XG5Qx2TlKWIA",  # RFC 6749, refresh token
        "SplxlOBeZQQYbYS6WxSbIA",  # RFC 6749, authorization code
        "czZCaGRSa3F0MzpnWDFmQmF0M2JW",  # RFC 6749 section 2.3.1, Basic s6BhdRkqt3:gX1fBat3bV
        "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",  # RFC 7617 (and 2617), Basic Aladdin:open sesame
        "SlAV32hkKG",  # OpenID Connect Core 1.0, access token
        "8xLOxBtZp8",  # OpenID Connect Core 1.0, refresh token
        "h480djs93hd8",  # OAuth 2.0 bearer token drafts, copied by oauthlib and authlib
        "AKIAIOSFODNN7EXAMPLE",  # AWS documentation, access key id
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # AWS documentation, secret access key
        "401f7ac837da42b97f613d789819ff93537bee6a",  # Django REST framework, TokenAuthentication
        "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",  # Django REST framework documentation
        # Azure Storage emulator (Azurite) account key, published by Microsoft.
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    }
)
# jwt.io's example token (HS256, secret "your-256-bit-secret"): known by its signature, so the
# edited-payload variants people paste stay quiet too.
JWT_IO_SIGNATURE: Final = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


def is_example(value: str) -> bool:
    """True for a documented example value (see :data:`EXAMPLE_VALUES`)."""
    return value in EXAMPLE_VALUES or value.endswith("." + JWT_IO_SIGNATURE)


# Words of an identifier: `getAccessToken` -> get, Access, Token; `JWTAuth` -> JWT, Auth.
_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_VOWELS = frozenset("aeiouyAEIOUY")
# Words of code without a vowel (`httpClient`, `srcPath`, `JwtToken`, `AccessTokenTTL`).
_VOWELLESS = (
    "http https html xml src dst cfg ctx msg req rsp fn cb js ts sms pwd tmp std dns tls ssl "
    "jwt mfa sql rpc grpc csr hmac hdr btn nbf sdk cli svc kms sts sqs sns acl ttl crt pkcs "
    "gql mgmt url crl cdn xss csrf pk sk db ms vpc"
)
_VOWELLESS_WORDS = frozenset(_VOWELLESS.split())
_UNCOMMON_PAIR_SHARE = 0.2
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_DIGIT_IN_WORD = re.compile(r"[0-9][a-z]{2}")
_CHUNK = re.compile(r"[._/~+%=-]+")
_WORD_AND_COUNTER = re.compile(r"([A-Za-z]{3,12})[_-]?[0-9]{1,4}")
# A vendor prefix and short numbers: `xoxb-1234-1243` (a real Slack token adds 10-13 digit
# groups and a random part), `ghp-12-34`.
_PREFIX_AND_NUMBERS = re.compile(r"[a-z]{3,8}(?:[_-][0-9]{1,4}){2,3}")
# The letter pairs that make 99% of those in the words of the identifiers of CPython's
# standard library (339 of the 676): code's words are made of them, random letters only about
# one time in two.
_PAIRS = """
    ab ac ad ae af ag ai ak al am an ap ar as at au av aw ax ay ba bc bd be bi bj bl bo bp
    br bs bu by ca cc ce cf ch ci ck cl cm co cr cs ct cu cy da db dd de df dg di dl do dr
    ds dt du dy ea eb ec ed ee ef eg ei ek el em en eo ep eq er es et eu ev ew ex ey fa fc
    fd fe ff fi fl fo fr fs ft fu fy ga ge gg gh gi gl gn go gr gs gt gu ha he hi ho hr ht
    hu ia ib ic id ie if ig ii ik il im in io ip ir is it iv ix iz je jo ju ka ke ki kl kn
    ks kw la lb ld le lf li ll ln lo lp ls lt lu ly ma mb md me mi ml mm mo mp ms mt mu na
    nc nd ne nf ng ni nk nl nm nn no np ns nt nu nv ny oa ob oc od oe of og oi ok ol om on
    oo op or os ot ou ov ow ox pa pc pd pe ph pi pl po pp pr ps pt pu py qu ra rb rc rd re
    rf rg ri rk rl rm rn ro rp rr rs rt ru rv rw ry sa sc se sf sg sh si sk sl sm sn so sp
    sq sr ss st su sw sy ta tc td te tf th ti tk tl tm to tp tr ts tt tu tw ty ua ub uc ud
    ue uf ug ui ul um un uo up ur us ut va ve vi vo wa wd we wh wi wl wn wo wr ws xa xc xe
    xf xi xm xp xt xx ye yi yl ym yn yo yp yr ys yt yw ze zi zo
"""
_COMMON_PAIRS = frozenset(_PAIRS.split())


def _reads_as_word(piece: str) -> bool:
    low = piece.lower()
    if low in _VOWELLESS_WORDS or low in ("a", "i"):  # `isAValid`, `getIDs`
        return True
    return len(low) >= 2 and not _VOWELS.isdisjoint(low)


def _uncommon_pairs_few(pieces: list[str]) -> bool:
    """True when at most one letter pair in five inside the pieces (at least one allowed) is
    uncommon in code's words."""
    pairs = uncommon = 0
    for piece in pieces:
        low = piece.lower()
        if low.isalpha() and low not in _VOWELLESS_WORDS:
            for i in range(len(low) - 1):
                pairs += 1
                uncommon += low[i : i + 2] not in _COMMON_PAIRS
    return uncommon <= max(1, pairs * _UNCOMMON_PAIR_SHARE)


def _versioned(pieces: list[str], i: int) -> bool:
    """True when the piece at ``i`` is followed by a number: `v2`, `S3Session`."""
    return i + 1 < len(pieces) and pieces[i + 1].isdigit()


def _split_name(value: str) -> tuple[list[str], int, int, int]:
    """The pieces of ``value``; in its most flipped chunk, how many are capital runs inside
    mixed-case words (`JWT` in `JWTAuth`) and how many lone letters that carry no version
    (`v` in `v2` does not count), and how many chunks are one-letter names (`X` in
    `process.env.X`, `e` in `e.headers`)."""
    pieces: list[str] = []
    capitals = lone = names = 0
    for chunk in _CHUNK.split(value):
        if len(chunk) == 1 and chunk.isalpha():
            names += 1
            continue
        found = _PIECES.findall(chunk)
        if not chunk.isupper():  # UPPER_SNAKE words are no case flips
            capitals = max(capitals, sum(1 for p in found if len(p) > 1 and p.isupper()))
        lone = max(
            lone,
            sum(
                1
                for i, p in enumerate(found)
                if len(p) == 1 and p.isalpha() and not _versioned(found, i)
            ),
        )
        pieces.extend(found)
    return pieces, capitals, lone, names


def is_wordlike(value: str) -> bool:
    """True when ``value`` reads as words: an identifier, a type, a member path, a word string.

    ``AccessTokenEntity``, ``request.META``, ``process.env.X``, ``my_accessToken`` read as
    words; random credentials do not: split at case changes they fall into short pieces, many
    capital runs and lone letters, letter pairs words seldom hold, numbers between them. Of
    100,000 random base62 values, about 40 of 16 to 23 characters read as words, 2 of 24 to 39,
    none of 40 or more (tests/test_detection_precision.py holds a fixed-seed sample).
    """
    if len(value) >= 16 and _HEX.fullmatch(value):
        return False  # a hex digest or key, however its letters pair
    if value[:1].isdigit() or (not value.islower() and _DIGIT_IN_WORD.search(value)):
        return False  # names start with a letter and end their words with digits (`base64Url`)
    pieces, capitals, lone, names = _split_name(value)
    if capitals > 1 or lone > 1:
        return False
    if not pieces:
        return names > 0
    size = good = digits = numbers = 0
    for i, piece in enumerate(pieces):
        size += len(piece)
        if piece.isdigit():
            digits += len(piece)
            numbers += 1
            if len(piece) > 4:
                return False  # a long number: ids and keys, not words
            good += len(piece)  # v2, base64, sha256
        elif _reads_as_word(piece) or (len(piece) == 1 and _versioned(pieces, i)):
            good += len(piece)
    words, letters = len(pieces) - numbers, size - digits
    return (
        good >= 0.85 * size
        and digits * 2 <= size
        and words <= _word_budget(value, letters)
        and _uncommon_pairs_few(pieces)
    )


def _word_budget(value: str, letters: int) -> float:
    """How many words ``value`` may hold: words of 2.5 letters or more on average, at least
    two in each member of a dotted path without digits (`id.JWTId`). Random base62 and
    base64url values hold no dot; JWTs do, and digits in nearly every segment."""
    if "." not in value or any(c.isdigit() for c in value):
        return max(2, letters / 2.5)
    return sum(max(2, sum(c.isalpha() for c in part) / 2.5) for part in value.split("."))


def _consecutive(chars: str) -> bool:
    """True when each character is the one after the previous (``abcd``, ``7890``)."""
    return all(ord(b) - ord(a) == 1 or (a, b) == ("9", "0") for a, b in itertools.pairwise(chars))


def is_low_entropy(core: str) -> bool:
    """True for the runs people type as stand-ins: ``abcdef123456``, ``1a2b3c4d``,
    ``0123456789abcdef``, ``token123``, ``abcabcab``, ``k3k3k3k3``, ``xoxb-1234-1243``.

    ``core`` is a value without its prefix. Random values of 8 or more characters fall here
    far less than once in a million.
    """
    low = core.lower()
    if len(set(core)) <= 2 or any(low == (low[:p] * len(low))[: len(low)] for p in (2, 3, 4)):
        # Two characters, or a unit of two to four repeated in any case: abcabcab, 12341234,
        # idIdIdId (a camelCase identifier of one short word).
        return True
    # A word and a counter, in one case: token123, TOKEN_42 (not a random mix of cases).
    counted = _WORD_AND_COUNTER.fullmatch(core)
    if counted and (core.islower() or core.isupper()) and is_wordlike(counted.group(1)):
        return True
    if _PREFIX_AND_NUMBERS.fullmatch(core):
        return True
    if not low.isalnum():
        return False
    letters = "".join(c for c in low if c.isalpha())
    digits = "".join(c for c in low if c.isdigit())
    return _consecutive(letters) and _consecutive(digits)


def basic_is_placeholder(value: str) -> bool:
    """True when a Basic credential decodes to ``user:password`` with a stand-in password.

    ``dXNlcm5hbWU6cGFzc3dvcmQ=`` (username:password), ``Zm9vOmJhcg==`` (foo:bar) and the
    RFC 7617 example fill test suites; a password that reads as words, or is a low-entropy
    run, stands for one. A value that is not base64 of printable ``user:password`` is left to
    the general rule.
    """
    parts = basic_parts(value)
    if parts is None:
        return False
    password = parts[1]
    words = [w for w in re.split(r"[\s_.-]+", password) if w]
    return (
        not password
        or is_low_entropy(password)
        or all((w.isalpha() and w.islower()) or is_wordlike(w) for w in words)
        or len(password) < 6
    )


# A lone scheme word (or a JSON/JS literal) is not a credential. Public, as the other
# constants below, so `hygiene.rules` exports them, never a copy.
SCHEME_WORDS: Final = SCHEMES | {"none", "null", "undefined", "true", "false"}

# `x{6,}`: a run of six x's marks a placeholder; four would also hit about one random
# 32-character token in 35,000 (`...xxXx...`), a real leak we would then miss.
PLACEHOLDER_WORDS_PATTERN: Final = (
    r"example|redacted|placeholder|your[_-]?(?:token|pat|key|secret|api|access|own)|^asdf|"
    r"changeme|change[_-]me|replace[_-]?me|dummy|deadbeef|qwerty|x{6,}|\.\.\.|…|\*\*\*"
)
# Searched in the lowercased value: 5x cheaper than a case-insensitive search.
_PLACEHOLDER_WORDS = re.compile(PLACEHOLDER_WORDS_PATTERN)
TEMPLATE_MARKS: Final = ("${", "{{", "}}", "<", ">", "%s", "%(", "%d")
_TEMPLATE_CHARS: Final = re.compile(r"[${}<>%]")
# The characters stripped from both ends of a value before the placeholder checks.
PLACEHOLDER_TRIM: Final = "-_.="
# A value made only of these (after trimming) is an `x` run: `xxxx-xxxx`.
X_RUN_CHARS: Final = "xX-_."
MIN_CREDENTIAL_LENGTH: Final = 8


def is_placeholder(value: str) -> bool:
    """True for values that stand for a secret without being one.

    ``value`` is the secret part (without ``pat_AIC_``) or a whole credential.
    """
    return is_explicit_placeholder(value) or is_low_entropy(value.strip(PLACEHOLDER_TRIM))


def is_explicit_placeholder(value: str) -> bool:
    """:func:`is_placeholder` without the low-entropy runs (``Ab3Ab3Ab3``, ``abcdef123456``):
    what masking leaves after ``pat_AIC_`` (it errs toward hiding; the scanner, toward
    precision)."""
    if "..." in value:  # a truncated example, wherever the cut (`eyJhbGciOi...`, `abc123...`)
        return True
    core = value.strip(PLACEHOLDER_TRIM)
    if not core or core.count(core[0]) == len(core):  # one repeated character
        return True
    if not core.strip(X_RUN_CHARS):
        return True
    # One character-class search first: template marks are rare, and eight `in` tests on
    # every candidate cost more than the regex that rules them all out.
    if _TEMPLATE_CHARS.search(core) and (
        core.startswith("$") or any(mark in core for mark in TEMPLATE_MARKS)
    ):
        return True
    return _PLACEHOLDER_WORDS.search(core.lower()) is not None


def looks_like_credential(value: str) -> bool:
    """Whether a value under a sensitive key may be a credential: masking's test, erring toward
    hiding.

    Random credentials have a digit or both letter cases; identifiers in code (``token_value``),
    scheme words and placeholders do not count. The scanner asks more
    (:func:`is_reportable_credential`).
    """
    if len(value) < MIN_CREDENTIAL_LENGTH or value.lower() in SCHEME_WORDS or is_placeholder(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    return has_digit or (any(c.islower() for c in value) and any(c.isupper() for c in value))


def is_reportable_credential(value: str) -> bool:
    """Whether the scanner reports a keyword-anchored value (after ``Authorization`` or an
    ``access_token`` key): it must look like a credential, erring toward precision.

    Beyond :func:`looks_like_credential`: not a ``name=value`` pair (``expires_in=3600``), not
    words (identifiers, types, member paths, word strings: :func:`is_wordlike`),
    not a documented example value (:data:`EXAMPLE_VALUES`).
    """
    return (
        looks_like_credential(value)
        and "=" not in value.rstrip("=")
        and not is_wordlike(value)
        and not is_example(value)
    )


_AWS4_KEY_ID: Final = re.compile(r"Credential=([A-Za-z0-9]+)")
_AWS4_SIGNATURE: Final = re.compile(r"Signature=([0-9a-fA-F]{64})(?![0-9a-fA-F])")


def aws4_signature(header: str, offset: int) -> tuple[int, int, str] | None:
    """The ``Signature=`` of an AWS Signature Version 4 header whose key id is not an example.

    ``Credential=`` holds the access key id and scope (public identifiers) and
    ``SignedHeaders=`` header names: a parameter name is never the credential. The signature
    is what a leak exposes (it authorizes replays of that request until it expires).
    """
    header = header.split("\n", 1)[0]
    key_id = _AWS4_KEY_ID.match(header)
    sig = _AWS4_SIGNATURE.search(header)
    if sig is None or (key_id is not None and is_placeholder(key_id.group(1))):
        return None
    token = sig.group(1)
    if is_placeholder(token) or is_example(token):
        return None
    return offset + sig.start(1), offset + sig.end(1), token


_URL_ESCAPES: Final = {"%5F": "_", "%5f": "_", "%2D": "-", "%2d": "-"}
_URL_ESCAPE = re.compile(r"%5[Ff]|%2[Dd]")


def url_decoded(body: str) -> str:
    """A PAT's secret part with its URL-encoded ``_`` and ``-`` (``%5F``, ``%2D``) decoded."""
    return _URL_ESCAPE.sub(lambda m: _URL_ESCAPES[m.group()], body) if "%" in body else body
