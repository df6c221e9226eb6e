"""uvicorn + FastAPI (Starlette underneath), optionally with the Sentry SDK.

Modes: ``none`` (no masking), ``install`` (``basicConfig`` + ``install()`` at start-up, then
``uvicorn.run``), ``dictconfig`` (``log_config=`` the uvicorn recipe), ``cli`` (imported by
``python -m uvicorn --log-config``), ``cli-install`` (imported by ``python -m uvicorn``,
calling ``install()`` at import), ``sentry-install`` / ``sentry`` (Sentry with a file
transport, without / with the Sentry recipe; both with ``install()``).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import common
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

app = FastAPI()
SENTRY = False


@app.api_route("/{path:path}", methods=["GET", "POST"])
async def everything(request: Request, path: str) -> JSONResponse:
    body = await request.body()
    status, payload = common.handle(
        request.method, "/" + path, request.url.query, dict(request.headers), body
    )
    if path == "tokens" and SENTRY:
        import sentry_sdk

        # A Sentry log (enable_logs): its template and parameters go through before_send_log.
        sentry_sdk.logger.info("issued token {token}", token=payload["token"])
    headers = {"Set-Cookie": f"sessionid={common.new_pat()}; HttpOnly"} if path == "login" else None
    return JSONResponse(payload, status_code=status, headers=headers)


def init_sentry(workdir: Path, recipe: bool) -> None:
    import sentry_sdk
    from sentry_sdk.transport import Transport

    sink = workdir / "out" / "sentry.envelopes"

    class FileTransport(Transport):
        def capture_envelope(self, envelope: Any) -> None:
            with sink.open("ab") as f:
                f.write(envelope.serialize() + b"\n")

    hooks: dict[str, Any] = {}
    if recipe:
        from hygiene.masking.recipes import sentry as masking

        hooks = {
            "before_send": masking.before_send,
            "before_send_transaction": masking.before_send,
            "before_breadcrumb": masking.before_breadcrumb,
            "before_send_log": masking.before_send_log,
        }
    sentry_sdk.init(
        dsn="http://public@127.0.0.1:9/1",
        transport=FileTransport,
        send_default_pii=True,
        max_request_body_size="always",
        enable_logs=True,
        traces_sample_rate=1.0,
        **hooks,
    )


def uvicorn_config(workdir: Path) -> dict[str, Any]:
    from uvicorn.config import LOGGING_CONFIG

    config = json.loads(json.dumps(LOGGING_CONFIG))
    config["loggers"]["app"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


def main() -> None:
    import uvicorn

    mode, workdir, port = common.args()
    log_config: dict[str, Any] | None = None
    if mode in ("none", "install") or mode.startswith("sentry"):
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if mode.startswith("sentry"):
        global SENTRY
        SENTRY = True
        init_sentry(workdir, recipe=mode == "sentry")
    if mode != "none" and mode != "dictconfig":
        common.attach(mode)
    if mode == "dictconfig":
        from hygiene.masking.recipes.uvicorn import log_config as recipe

        log_config = recipe(uvicorn_config(workdir))
    kwargs: dict[str, Any] = {"log_config": log_config} if log_config else {}
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info", **kwargs)


if __name__ == "__main__":
    main()
elif os.environ.get("HYGIENE_APP_MODE") == "cli-install":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    common.attach("install")
