"""HTTP clients logging at DEBUG as they do when someone debugs them: httpx/httpcore,
requests/urllib3, ``http.client`` with ``debuglevel``, aiohttp's client and botocore.

``python clients.py MODE WORKDIR LIBRARY URL``; the secrets to send are in ``WORKDIR/secrets.json``
(outside ``out/``, which is what the test searches). Modes: ``none``, ``install``,
``dictconfig`` (the filter through ``dictConfig``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging.config
import sys
from pathlib import Path
from typing import Any

import common

LOG = logging.getLogger("client")


def setup(mode: str) -> None:
    config: dict[str, Any] = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(levelname)s %(name)s: %(message)s"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
        "root": {"level": "DEBUG", "handlers": ["console"]},
    }
    if mode == "dictconfig":
        from hygiene.masking.recipes.dictconfig import with_redaction

        config = with_redaction(config)
    logging.config.dictConfig(config)
    if mode == "install":
        common.attach(mode)


def calls(s: dict[str, Any], url: str) -> list[tuple[str, str, dict[str, str], bytes]]:
    basic = base64.b64encode(f"{s['basic_user']}:{s['basic_password']}".encode()).decode()
    form = f"username=ada&password={s['form_password']}&access_token={s['form_token']}"
    login = json.dumps(
        {"username": "ada", "password": s["json_password"], "access_token": s["json_pat"]}
    )
    return [
        (
            "GET",
            f"{url}/items?q=1&access_token={s['query_session']}",
            {"Authorization": f"Bearer {s['bearer']}"},
            b"",
        ),
        ("GET", f"{url}/items?access_token={s['query_pat']}", {}, b""),
        ("GET", f"{url}/items", {"Authorization": f"Basic {basic}"}, b""),
        ("POST", f"{url}/login", {"Content-Type": "application/json"}, login.encode()),
        (
            "POST",
            f"{url}/login",
            {"Content-Type": "application/x-www-form-urlencoded"},
            form.encode(),
        ),
        ("GET", f"{url}/items", {"Cookie": f"sessionid={s['cookie']}"}, b""),
        ("POST", f"{url}/tokens", {}, b"{}"),
    ]


def with_httpx(s: dict[str, Any], url: str) -> None:
    import httpx

    with httpx.Client() as client:
        for method, target, headers, body in calls(s, url):
            resp = client.request(method, target, headers=headers, content=body or None)
            LOG.info("response %s: %s", resp.status_code, resp.text)


def with_requests(s: dict[str, Any], url: str) -> None:
    import requests

    with requests.Session() as session:
        for method, target, headers, body in calls(s, url):
            resp = session.request(method, target, headers=headers, data=body or None, timeout=10)
            LOG.info("response %s: %s", resp.status_code, resp.text)


def with_http_client(s: dict[str, Any], url: str) -> None:
    import http.client
    import urllib.parse

    for method, target, headers, body in calls(s, url):
        parts = urllib.parse.urlsplit(target)
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
        conn.set_debuglevel(1)
        conn.request(
            method,
            parts.path + ("?" + parts.query if parts.query else ""),
            body=body or None,
            headers=headers,
        )
        resp = conn.getresponse()
        LOG.info("response %s: %s", resp.status, resp.read().decode())
        conn.close()


def with_aiohttp(s: dict[str, Any], url: str) -> None:
    import aiohttp

    async def run() -> None:
        async with aiohttp.ClientSession() as session:
            for method, target, headers, body in calls(s, url):
                async with session.request(
                    method, target, headers=headers, data=body or None
                ) as resp:
                    LOG.info("response %s %s: %s", resp.status, resp.url, await resp.text())

    asyncio.run(run())


def with_botocore(s: dict[str, Any], url: str) -> None:
    import botocore.session

    session = botocore.session.get_session()
    client, sts = (
        session.create_client(
            service,
            region_name="us-east-1",
            endpoint_url=url,
            aws_access_key_id="AKIA" + "TESTONLY0000000",
            aws_secret_access_key=s["form_password"],
            aws_session_token=s["bearer"],
        )
        for service in ("secretsmanager", "sts")
    )
    client.create_secret(Name="app-db", SecretString=s["json_pat"])
    value = client.get_secret_value(SecretId="app-db")
    LOG.info("fetched secret %s", value["ARN"])
    # STS answers in XML: botocore logs the body, new credentials in elements, at DEBUG.
    role = sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/app-role", RoleSessionName="app")
    LOG.info("assumed role %s", role["AssumedRoleUser"]["Arn"])


def ordinary_failure(s: dict[str, Any]) -> None:
    current = s["local_session"]  # an ordinary name holding a session token
    raise common.UpstreamError(f"upstream rejected {s['exc_pat']} ({len(current)})")


def main() -> None:
    mode, workdir = sys.argv[1], Path(sys.argv[2])
    library, url = sys.argv[3], sys.argv[4]
    s = json.loads((workdir / "secrets.json").read_text())
    setup(mode)
    globals()[f"with_{library}"](s, url)
    for pat in s["grouped"]:
        LOG.error("token refresh failed for %s", pat)
    try:
        ordinary_failure(s)
    except common.UpstreamError:
        LOG.exception("call failed")


if __name__ == "__main__":
    main()
