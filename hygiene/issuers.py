"""Who issued a credential: the rule that a credential goes only to its issuer.

A ``bearer-token`` finding is any credential after ``Authorization`` or in an ``access_token``
field; most are not this service's. Before one is sent to the service (to log it out, to ask
whether it is live), :func:`issuer_of` decides whether it can be this service's session:

* a value of a known third-party format (GitHub, GitLab, Slack, Stripe, Google, AWS, npm,
  OpenAI, Anthropic, Twilio, SendGrid, Atlassian, Azure SAS, ...) is that issuer's;
* a ``Basic`` credential (base64 of ``user:password``) is a password for some host, never a
  session of anyone's: it is not sent;
* a JWT whose ``iss`` names another host than the service's is that host's;
* when a session of this service is at hand (its shape learned by :class:`SessionShape`), a
  value of another shape has an unknown issuer, and is not sent either.

Everything else may be the service's own session token. The answer names the issuer and the
next step for a human; an issuer read from a JWT is shown only when it is a plain host name
(the value is attacker-written text). This module is part of the detection core: it imports
nothing else of the package.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from hygiene.fingerprints import basic_parts


@dataclass(frozen=True)
class Issuer:
    """Who issued a credential that is not this service's, and where a human revokes it."""

    name: str
    next_step: str


@dataclass(frozen=True)
class _Format:
    pattern: re.Pattern[str]
    issuer: Issuer


def _fmt(pattern: str, name: str, where: str) -> _Format:
    return _Format(re.compile(pattern), Issuer(name, f"revoke it at {name}: {where}"))


_GITHUB = "https://github.com/settings/tokens (or the app's settings)"
_GITLAB = "User settings > Access tokens (or the project's / group's token settings)"
_GOOGLE = "https://console.cloud.google.com/apis/credentials"
_AWS = "the IAM console (deactivate and delete the access key, or revoke the role's sessions)"
_OPENAI = "https://platform.openai.com/api-keys"
_MS = "the Microsoft Entra admin center (revoke the sessions, rotate the secret)"

# Prefixes are matched at the start of the value; each needs a body long enough to be a key,
# so a word such as `sk-learn` is no Stripe key. Order matters where prefixes nest.
FORMATS: Final = (
    _fmt(r"gh[pousr]_[A-Za-z0-9]{30,}", "GitHub", _GITHUB),
    _fmt(r"github_pat_[A-Za-z0-9_]{40,}", "GitHub", _GITHUB),
    _fmt(r"gl(?:pat|oas|rt|cbt|ptt|dt|ft|imt|agent|soat)-[A-Za-z0-9_-]{16,}", "GitLab", _GITLAB),
    _fmt(r"xox[abposer]-[A-Za-z0-9-]{10,}", "Slack", "https://api.slack.com/apps"),
    _fmt(r"xapp-[0-9]-[A-Za-z0-9-]{10,}", "Slack", "https://api.slack.com/apps"),
    _fmt(
        r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{16,}",
        "Stripe",
        "https://dashboard.stripe.com/apikeys",
    ),
    _fmt(r"ya29\.[A-Za-z0-9_.-]{16,}|1//[A-Za-z0-9_-]{20,}", "Google", _GOOGLE),
    _fmt(r"AIza[A-Za-z0-9_-]{30,}", "Google", _GOOGLE),
    _fmt(r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}", "AWS", _AWS),
    _fmt(r"(?:IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9+/=]{20,}", "AWS", _AWS),
    _fmt(r"npm_[A-Za-z0-9]{30,}", "npm", "https://www.npmjs.com/settings/~/tokens"),
    _fmt(r"sk-ant-[A-Za-z0-9_-]{20,}", "Anthropic", "https://console.anthropic.com/settings/keys"),
    _fmt(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}", "OpenAI", _OPENAI),
    _fmt(r"sk-[A-Za-z0-9]{20,}T3BlbkFJ[A-Za-z0-9]{20,}", "OpenAI", _OPENAI),
    _fmt(r"(?:SK|AC)[0-9a-fA-F]{32}", "Twilio", "https://console.twilio.com (API keys)"),
    _fmt(
        r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        "SendGrid",
        "https://app.sendgrid.com/settings/api_keys",
    ),
    _fmt(
        r"AT(?:ATT|CTT|OAT)[A-Za-z0-9_=-]{20,}",
        "Atlassian",
        "https://id.atlassian.com/manage-profile/security/api-tokens",
    ),
    _fmt(
        r"(?:sv|sig|se|sr|sp|spr|srt|ss|st|skoid)=[^&\s]*",
        "Azure (a shared access signature)",
        "the storage account (rotate its keys or the signing key)",
    ),
    _fmt(r"hf_[A-Za-z0-9]{30,}", "Hugging Face", "https://huggingface.co/settings/tokens"),
    _fmt(
        r"do[opr]_v1_[a-f0-9]{64}",
        "DigitalOcean",
        "https://cloud.digitalocean.com/account/api/tokens",
    ),
    _fmt(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", "Shopify", "the store's app settings"),
    _fmt(r"pypi-AgE[A-Za-z0-9_-]{40,}", "PyPI", "https://pypi.org/manage/account/token/"),
    _fmt(r"dckr_pat_[A-Za-z0-9_-]{20,}", "Docker Hub", "https://app.docker.com/settings"),
    _fmt(r"hv[sbr]\.[A-Za-z0-9_-]{20,}", "HashiCorp Vault", "the Vault that issued it"),
    _fmt(r"glsa_[A-Za-z0-9_]{20,}|glc_[A-Za-z0-9+/=_-]{20,}", "Grafana", "the Grafana instance"),
    _fmt(r"(?:NRAK|NRII)-[A-Za-z0-9]{20,}", "New Relic", "https://one.newrelic.com (API keys)"),
    _fmt(r"PMAK-[a-f0-9]{20,}-[a-f0-9]{20,}", "Postman", "https://go.postman.co/settings"),
    _fmt(r"dapi[a-f0-9]{32}", "Databricks", "the workspace's user settings"),
    _fmt(r"lin_api_[A-Za-z0-9]{30,}", "Linear", "https://linear.app/settings/api"),
    _fmt(r"figd_[A-Za-z0-9_-]{30,}", "Figma", "https://www.figma.com/settings"),
    _fmt(r"sbp_[a-f0-9]{40}", "Supabase", "https://supabase.com/dashboard/account/tokens"),
    _fmt(r"dp\.(?:st|ct|sa|scim)\.[A-Za-z0-9_-]{20,}", "Doppler", "the Doppler dashboard"),
    _fmt(r"EAA[A-Za-z0-9]{30,}", "Meta", "https://developers.facebook.com/apps"),
)

BASIC: Final = Issuer(
    "Basic (a user name and password, no session)",
    "change that password at the host it was sent to",
)
UNKNOWN: Final = Issuer(
    "unknown issuer (not shaped like this service's sessions)",
    "find who issued it from where it was found, and revoke it there",
)

# Hosts of well-known JWT issuers, named for humans.
_JWT_ISSUERS: Final = (
    ("accounts.google.com", "Google"),
    ("sts.windows.net", "Microsoft Entra ID"),
    ("login.microsoftonline.com", "Microsoft Entra ID"),
    ("token.actions.githubusercontent.com", "GitHub Actions"),
    ("auth0.com", "Auth0"),
    ("okta.com", "Okta"),
    ("amazonaws.com", "AWS"),
    ("gitlab.com", "GitLab"),
)
_HOST: Final = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::[0-9]{1,5})?")
_IP: Final = re.compile(r"[0-9.]+")  # IPv4; an IPv6 host is no plain host name here
_B64: Final = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_B64URL: Final = re.compile(r"[A-Za-z0-9_-]*")
_MAX_JWT_PART: Final = 8192


def _decoded(part: str, alphabet: re.Pattern[str], altchars: bytes | None) -> bytes | None:
    if not part or len(part) > _MAX_JWT_PART or not alphabet.fullmatch(part):
        return None
    padded = part.rstrip("=") + "=" * (-len(part.rstrip("=")) % 4)
    try:
        return base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None


def is_basic(value: str) -> bool:
    """Whether ``value`` is a ``Basic`` credential: base64 of printable ``user:password``."""
    return basic_parts(value) is not None


def _json_part(part: str) -> dict[str, object] | None:
    raw = _decoded(part, _B64URL, b"-_")
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def jwt_claims(value: str) -> dict[str, object] | None:
    """The claims of ``value`` when it is a JWT (header with ``alg``, JSON payload), else None."""
    parts = value.split(".")
    if len(parts) != 3:
        return None
    header = _json_part(parts[0])
    if header is None or "alg" not in header:
        return None
    return _json_part(parts[1])


def host_of(url_or_host: str) -> str | None:
    """The lowercase host (with a port, if any) a URL or a bare host name names, or None."""
    text = url_or_host.strip().lower()
    try:
        parts = urlsplit(text if "//" in text else "//" + text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or not _HOST.fullmatch(host):
        return None
    return f"{host}:{port}" if port else host


def _jwt_issuer(iss: object, service_host: str | None) -> Issuer | None:
    """The issuer a JWT's ``iss`` names when that is not the service; None when it is."""
    if not isinstance(iss, str):
        return None  # no issuer claimed: it may be the service's own
    host = host_of(iss)
    if host is not None and service_host is not None and _issued_by(host, service_host):
        return None
    if host is None:
        return Issuer("a JWT of another issuer", "revoke it where its `iss` claim says")
    bare = host.partition(":")[0]
    name = next((n for h, n in _JWT_ISSUERS if bare == h or bare.endswith("." + h)), host)
    origin = "the JWT's issuer" if name == host else f"the JWT's issuer, {host}"
    return Issuer(name, f"revoke it at {name} ({origin})")


def _issued_by(iss_host: str, service_host: str) -> bool:
    """Whether a JWT issued at ``iss_host`` may be the service's: the service's own host or a
    name under it (``auth.pam.example.com`` for ``pam.example.com``). A sibling or parent
    name is another issuer: without the public-suffix list, ``a.co.uk`` and ``b.co.uk``
    cannot be told from one company's two hosts. Ports differ only when both are written."""
    iss, _, iss_port = iss_host.partition(":")
    ours, _, our_port = service_host.partition(":")
    if iss_port and our_port and iss_port != our_port:
        return False
    return iss == ours or (not _IP.fullmatch(ours) and iss.endswith("." + ours))


def known_issuer(value: str) -> Issuer | None:
    """The third-party issuer of a value of a known format, or None."""
    for fmt in FORMATS:
        if fmt.pattern.match(value):
            return fmt.issuer
    return None


@dataclass(frozen=True)
class SessionShape:
    """What this service's session tokens look like, learned from one of them: the number of
    dot-separated parts, the alphabet, a literal prefix, the length (within a factor of 2),
    and for a JWT its ``iss``. Never holds the sample itself."""

    parts: int
    alphabet: str
    prefix: str
    length: int
    jwt: bool
    iss: str | None

    @classmethod
    def learn(cls, sample: str) -> SessionShape:
        claims = jwt_claims(sample)
        iss = claims.get("iss") if claims else None
        prefix = m.group(0) if (m := _PREFIX.match(sample)) else ""
        if sample.startswith(_JSON_B64):
            prefix = _JSON_B64
        return cls(
            len(sample.split(".")),
            _alphabet(sample),
            prefix,
            len(sample),
            claims is not None,
            iss if isinstance(iss, str) else None,
        )

    def matches(self, value: str) -> bool:
        """Whether ``value`` may be a session token of the same service."""
        if len(value.split(".")) != self.parts or not value.startswith(self.prefix):
            return False
        if not self.length // 2 <= len(value) <= self.length * 2:
            return False
        if _ALPHABETS.index(_alphabet(value)) > _ALPHABETS.index(self.alphabet):
            return False
        if not self.jwt:
            return True
        claims = jwt_claims(value)
        return claims is not None and claims.get("iss") == self.iss


# A literal prefix such as `sess_` or `aic-`: letters, then `_` or `-`, within 12 characters.
_PREFIX: Final = re.compile(r"[A-Za-z]{2,10}[_-](?=[A-Za-z0-9])")
_JSON_B64: Final = "eyJ"  # `{"` in base64: a JSON header, every JWT's and many sessions' start
# Families, each within the next: a value of a wider family has another issuer. Letters and
# digits alone are no family of their own: a random base64 sample often lacks `-_+/`.
_ALPHABETS: Final = ("hex", "base64", "other")
_FAMILY_PATTERNS: Final = (
    re.compile(r"[0-9a-f.]+|[0-9A-F.]+"),
    re.compile(r"[A-Za-z0-9.+/=_-]+"),
)


def _alphabet(value: str) -> str:
    for name, pattern in zip(_ALPHABETS, _FAMILY_PATTERNS, strict=False):
        if pattern.fullmatch(value):
            return name
    return "other"


def issuer_of(
    value: str, service_url: str | None = None, shape: SessionShape | None = None
) -> Issuer | None:
    """Who issued ``value`` when it cannot be this service's session (see the module's
    docstring); None when it may be, and only then may it be sent to ``service_url``."""
    found = known_issuer(value)
    if found is not None:
        return found
    if is_basic(value):
        return BASIC
    claims = jwt_claims(value)
    if claims is not None:
        service_host = host_of(service_url) if service_url else None
        found = _jwt_issuer(claims.get("iss"), service_host)
        if found is not None:
            return found
    if shape is not None and not shape.matches(value):
        return UNKNOWN
    return None


__all__ = [
    "BASIC",
    "FORMATS",
    "UNKNOWN",
    "Issuer",
    "SessionShape",
    "host_of",
    "is_basic",
    "issuer_of",
    "jwt_claims",
    "known_issuer",
]
