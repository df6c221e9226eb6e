"""Real logging stacks (issue #26, item 5): loguru sinks and logging handlers that took the
real streams before install(), aiohttp's ClientResponseError after masking, and frame
variables that loguru's diagnose and structlog's dict_tracebacks print, through a pipe."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from hygiene.masking import install
from hygiene.masking.exceptions import mask_exception
from tests.helpers import SecretGuard, run_hygiene, run_python_app
from tests.masking.conftest import stream_handler

LOGURU_BEFORE_INSTALL = """
import logging, sys
from loguru import logger          # its default sink took sys.stderr on import
logger.add(sys.stdout, format="out {message}")
logger.add(sys.stdout.write, format="write {message}")
early = logging.StreamHandler()    # took sys.stderr; attached to no logger yet
import hygiene.masking
hygiene.masking.install()
hygiene.masking.install()          # a second call changes nothing, and warns of nothing
token, password = sys.argv[1], sys.argv[2]
logger.info("calling with Authorization: Bearer {}", token)
logger.warning("retrying with password={}", password)
late = logging.getLogger("late")
late.addHandler(early)
late.propagate = False
late.error("login failed for password=%s", password)
print("done", file=sys.stderr)
"""


def test_loguru_sinks_and_handlers_made_before_install_are_masked(
    tmp_path: Path, guard: SecretGuard
) -> None:
    token, password = guard.session_token(), guard.session_token()
    done = run_python_app(tmp_path, LOGURU_BEFORE_INSTALL, token, password)
    guard.capture(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("out calling with Authorization: Bearer …") == 1
    assert done.stdout.count("write retrying with password=…") == 1
    assert "calling with Authorization: Bearer …" in done.stderr  # loguru's default sink
    assert "login failed for password=…" in done.stderr
    assert "UncoveredWarning" not in done.stderr  # every sink was reached


LOGURU_UNREACHABLE = """
import functools, sys
from loguru import logger
logger.remove()
logger.add(functools.partial(print, end="", file=sys.stderr), format="{message}")
import hygiene.masking
hygiene.masking.install()
logger.info("not reached")
"""


def test_a_loguru_sink_install_cannot_reach_is_named_in_a_warning(tmp_path: Path) -> None:
    done = run_python_app(tmp_path, LOGURU_UNREACHABLE)
    assert done.returncode == 0, done.stderr[-2000:]
    warning = [line for line in done.stderr.splitlines() if "UncoveredWarning" in line]
    assert len(warning) == 1
    assert "loguru sink (id=1" in warning[0]
    assert "not masked" in warning[0]


def test_uninstall_gives_loguru_its_streams_back(tmp_path: Path) -> None:
    source = """
import sys
from loguru import logger
sink = logger._core.handlers[0]._sink
import hygiene.masking
installation = hygiene.masking.install()
assert sink._stream is sys.stderr and sys.stderr is not sys.__stderr__
installation.uninstall()
assert sink._stream is sys.__stderr__ and sys.stderr is sys.__stderr__
"""
    done = run_python_app(tmp_path, source)
    assert done.returncode == 0, done.stderr[-2000:]


async def _client_response_error(url: str, token: str) -> BaseException:
    from aiohttp import ClientSession

    async with ClientSession() as session:
        headers = {"Authorization": f"Bearer {token}"}
        async with session.get(url, headers=headers) as response:
            try:
                response.raise_for_status()
            except Exception as exc:
                return exc
    raise AssertionError("the server did not answer 401")


async def _raised_by_a_real_server(path: str, token: str) -> BaseException:
    """A real aiohttp server on loopback answers 401: aiohttp raises its own error."""
    from aiohttp import web

    async def refuse(request: web.Request) -> web.Response:
        return web.json_response({"code": "AUTH_FAILED"}, status=401)

    app = web.Application()
    app.router.add_get("/api/v1/auth/memberships", refuse)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        return await _client_response_error(f"http://127.0.0.1:{port}{path}", token)
    finally:
        await runner.cleanup()


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/auth/memberships?access_token={}",
        "/api/v1/auth/memberships?next=%2Fcb%3Faccess_token%3D{}",
        "/api/v1/auth/memberships",
    ],
    ids=["query", "encoded-query", "header-only"],
)
def test_aiohttp_client_response_error_still_works_after_masking(
    path: str, guard: SecretGuard, logger: logging.Logger
) -> None:
    from aiohttp import ClientResponseError, RequestInfo
    from yarl import URL

    token = guard.session_token()
    exc = asyncio.run(_raised_by_a_real_server(path.format(token), token))
    assert isinstance(exc, ClientResponseError)
    masked = mask_exception(exc)
    assert isinstance(masked, ClientResponseError)
    assert isinstance(masked.request_info, RequestInfo)
    assert isinstance(masked.request_info.real_url, URL)
    assert masked.status == 401
    assert str(masked).startswith("401, message='Unauthorized', url='http://127.0.0.1:")
    guard.capture(str(masked), repr(masked.args))
    handler, sink = stream_handler()
    logger.addHandler(handler)
    installation = install(streams=False)
    try:
        try:
            raise exc
        except ClientResponseError:
            logger.exception("membership check failed")
    finally:
        installation.uninstall()
    guard.capture(sink.getvalue())
    assert "<exception str() failed>" not in sink.getvalue()
    assert "ClientResponseError: 401, message='Unauthorized'" in sink.getvalue()


LOGURU_DIAGNOSE = """
import sys
from loguru import logger
logger.remove()
logger.add(sys.stderr, diagnose=True, backtrace=True, colorize=False)

def connect(host, session_key):
    raise ConnectionError("refused")

def main(current, short):
    try:
        connect("db.internal", current)
    except ConnectionError:
        logger.exception("could not connect")
    values = {"sess": short}
    try:
        connect(values["sess"], short)
    except ConnectionError:
        logger.exception("again")

main(sys.argv[1], sys.argv[2])
"""

STRUCTLOG_DICT_TRACEBACKS = """
import sys
import structlog
structlog.configure(processors=[
    structlog.processors.add_log_level,
    structlog.processors.dict_tracebacks,
    structlog.processors.JSONRenderer(),
])
log = structlog.get_logger()

def connect(host, session_key):
    raise ConnectionError("refused")

def main(current, short):
    try:
        connect("db.internal", current)
    except ConnectionError:
        log.exception("could not connect")
    try:
        connect("db.internal", short)
    except ConnectionError:
        log.exception("again")

main(sys.argv[1], sys.argv[2])
"""


@pytest.mark.parametrize(
    ("source", "stream"),
    [(LOGURU_DIAGNOSE, "stderr"), (STRUCTLOG_DICT_TRACEBACKS, "stdout")],
    ids=["loguru-diagnose", "structlog-dict-tracebacks"],
)
def test_a_pipe_masks_frame_variables_tracebacks_print(
    source: str, stream: str, tmp_path: Path, guard: SecretGuard
) -> None:
    # A long JWT-like session token (loguru cuts it at 128 characters, structlog at 80) and
    # a short one, in variables whose names say nothing.
    long_token = guard.remember(guard.session_token() + "." + guard.session_token()[3:])
    short_token = guard.session_token()
    done = run_python_app(tmp_path, source, long_token, short_token)
    raw = getattr(done, stream)
    assert done.returncode == 0, done.stderr[-2000:]
    assert long_token[:40] in raw
    assert short_token in raw
    proc = run_hygiene(guard, "mask", input=raw.encode())
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert out.count("\n") == raw.count("\n")
    assert "db.internal" in out
    assert "ConnectionError" in out
    if stream == "stdout":
        for line in out.splitlines():
            json.loads(line)  # still one JSON object a line
