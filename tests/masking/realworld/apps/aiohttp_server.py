"""aiohttp's server with its access log. Modes: ``none``, ``install``, ``dictconfig``."""

from __future__ import annotations

import logging.config

import common
from aiohttp import web


async def everything(request: web.Request) -> web.Response:
    body = await request.read()
    status, payload = common.handle(
        request.method, request.path, request.query_string, dict(request.headers), body
    )
    return web.json_response(payload, status=status)


def main() -> None:
    mode, _, port = common.args()
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(levelname)s %(name)s: %(message)s"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
        "root": {"level": "INFO", "handlers": ["console"]},
    }
    if mode == "dictconfig":
        from hygiene.masking.recipes.dictconfig import with_redaction

        config = with_redaction(config)
    logging.config.dictConfig(config)
    if mode == "install":
        common.attach(mode)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", everything)
    fmt = '%a "%r" %s %b "%{Authorization}i" "%{Cookie}i"'
    web.run_app(app, host="127.0.0.1", port=port, access_log_format=fmt, print=None)


if __name__ == "__main__":
    main()
