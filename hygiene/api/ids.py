"""Identifiers a server hands us, checked before they are stored or sent anywhere.

An organization id goes into the ``X-Active-Org-Id`` header of every call, and is shown in
results and messages. One from a hostile or broken server could carry a line break (a second
header, a split request), a path (``../``), a query or fragment, or megabytes of text: only a
short run of safe characters is an id. Token ids are checked where they are read
(:func:`hygiene.inventory.check_token_id`) and again before they go into a URL.
"""

from __future__ import annotations

import re

import httpx

from hygiene.detection import mask_secrets
from hygiene.errors import ApiError

ORG_HEADER = "X-Active-Org-Id"
MAX_ID = 128
# Letters, digits and _ . : - (org_<id> in the API document); no space, slash, ?, #, %, CR/LF.
_ID = re.compile(rf"[A-Za-z0-9_.:-]{{1,{MAX_ID}}}")


def is_org_id(value: object) -> bool:
    """Whether ``value`` can be an organization id: a str of 1..128 safe characters, no ``..``."""
    return isinstance(value, str) and bool(_ID.fullmatch(value)) and ".." not in value


def shown(value: str) -> str:
    """``value`` as a message may show it: escaped (no line break), masked, at most 40 chars."""
    cut = value[:40]
    return mask_secrets(repr(cut)) + ("..." if len(value) > 40 else "")


def check_org_header(request: httpx.Request) -> None:
    """Refuse (ApiError, nothing sent) a request whose ``X-Active-Org-Id`` is not an id."""
    org = request.headers.get(ORG_HEADER)
    if org is not None and not is_org_id(org):
        raise ApiError(
            f"{request.method} {request.url.path}: the organization id {shown(org)} is not an "
            "organization id (1 to 128 of A-Z a-z 0-9 _ . : -); not sent",
            code="INVALID_ORG_ID",
        )


__all__ = ["MAX_ID", "ORG_HEADER", "check_org_header", "is_org_id", "shown"]
