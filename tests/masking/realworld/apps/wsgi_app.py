"""A WSGI app for gunicorn, and a Flask app for werkzeug's server (debug on and off).

``python wsgi_app.py MODE WORKDIR PORT`` runs Flask; gunicorn imports ``wsgi_app:application``
and reads its mode from ``HYGIENE_APP_MODE``. Modes: ``none``, ``install`` (``basicConfig`` +
``install()``), ``dictconfig`` (the filter through ``dictConfig``), ``debug`` (``install()``
and Flask's debugger and reloader), ``integration`` (gunicorn's ``RedactingLogger``).
"""

from __future__ import annotations

import json
import logging.config
import os
from collections.abc import Callable, Iterable
from typing import Any

import common

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(mode: str) -> None:
    """The app's own logging, the way each mode's README recipe says."""
    if mode == "dictconfig":
        from hygiene.masking.recipes.dictconfig import with_redaction

        config = {
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {"plain": {"format": FORMAT}},
            "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
            "root": {"level": "INFO", "handlers": ["console"]},
        }
        logging.config.dictConfig(with_redaction(config))
        return
    logging.basicConfig(level=logging.INFO, format=FORMAT)
    if mode != "none":
        common.attach(mode)


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """The plain WSGI app gunicorn serves."""
    headers = {
        k[5:].replace("_", "-").title(): v for k, v in environ.items() if k.startswith("HTTP_")
    }
    if environ.get("CONTENT_TYPE"):
        headers["Content-Type"] = environ["CONTENT_TYPE"]
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    status, payload = common.handle(
        environ["REQUEST_METHOD"],
        environ["PATH_INFO"],
        environ.get("QUERY_STRING", ""),
        headers,
        body,
    )
    start_response(f"{status} X", [("Content-Type", "application/json")])
    return [json.dumps(payload).encode()]


def flask_app() -> Any:
    from flask import Flask, Response, request

    app = Flask("flaskapp")

    @app.route("/<path:path>", methods=["GET", "POST"])
    def everything(path: str) -> Response:
        status, payload = common.handle(
            request.method,
            "/" + path,
            request.query_string.decode(),
            dict(request.headers),
            request.get_data(),
        )
        return Response(json.dumps(payload), status=status, mimetype="application/json")

    return app


if "HYGIENE_APP_MODE" in os.environ:  # imported by gunicorn
    setup_logging(
        os.environ["HYGIENE_APP_MODE"]
        if os.environ["HYGIENE_APP_MODE"] != "integration"
        else "install"
    )

if __name__ == "__main__":
    mode, workdir, port = common.args()
    setup_logging(mode)
    flask_app().run(host="127.0.0.1", port=port, debug=mode == "debug")
