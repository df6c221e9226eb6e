"""A masked exception's attributes keep their types (issue #26, item 5): what its ``__str__``
reads (a named tuple, a URL object, a mapping proxy) still works on the masked copy."""

from __future__ import annotations

import logging
import traceback
import types
from typing import NamedTuple

from hygiene.masking import install
from hygiene.masking.exceptions import mask_exception
from tests.helpers import SecretGuard
from tests.masking.conftest import stream_handler


class Url:
    """A URL object made from its text, as yarl's and httpx's are."""

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def host(self) -> str:
        return self.text.split("/")[2]

    def __str__(self) -> str:
        return self.text


class Info(NamedTuple):
    method: str
    url: Url
    headers: types.MappingProxyType[str, str]


class UpstreamError(Exception):
    """Built the way aiohttp's ClientResponseError is: its str() reads its attributes."""

    def __init__(self, info: Info, status: int) -> None:
        super().__init__(info, status)
        self.info = info
        self.status = status

    def __str__(self) -> str:
        return f"{self.status} from {self.info.url.host}: {self.info.url}"


def _raised(guard: SecretGuard) -> UpstreamError:
    token = guard.session_token()
    headers = types.MappingProxyType({"Authorization": f"Bearer {token}", "Accept": "*/*"})
    info = Info("GET", Url(f"https://api.example.com/v1/me?access_token={token}"), headers)
    try:
        raise UpstreamError(info, 401)
    except UpstreamError as exc:
        return exc


def test_a_masked_copy_keeps_each_attribute_type(guard: SecretGuard) -> None:
    exc = _raised(guard)
    masked = mask_exception(exc)
    assert isinstance(masked, UpstreamError)
    assert masked is not exc
    assert type(masked.info) is Info
    assert type(masked.info.url) is Url
    assert type(masked.info.headers) is types.MappingProxyType
    assert masked.info.headers["Accept"] == "*/*"
    assert masked.status == 401
    assert str(masked).startswith("401 from api.example.com: https://api.example.com/v1/me?")
    assert masked.__traceback__ is exc.__traceback__
    assert isinstance(exc.info.url, Url)  # the caller's exception is untouched
    guard.capture(str(masked), repr(masked.args), repr(dict(masked.info.headers)))


def test_a_logged_exception_renders_masked_not_broken(
    guard: SecretGuard, logger: logging.Logger
) -> None:
    exc = _raised(guard)
    handler, sink = stream_handler()
    logger.addHandler(handler)
    installation = install(streams=False)
    try:
        try:
            raise exc
        except UpstreamError:
            logger.exception("call failed")
    finally:
        installation.uninstall()
    out = sink.getvalue()
    guard.capture(out)
    assert "<exception str() failed>" not in out
    assert "UpstreamError: 401 from api.example.com: https://api.example.com/v1/me?" in out
    assert "raise UpstreamError(info, 401)" in out  # the stack is still there
    assert len(traceback.format_exception(exc)) > 1
