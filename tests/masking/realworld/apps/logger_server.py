"""A loopback server whose app logs through one logging library (``HYGIENE_LOGGER``):
``jsonlogger`` (python-json-logger), ``structlog-json``, ``structlog-console``,
``structlog-stdlib`` (``ProcessorFormatter``), ``loguru``, ``otel`` (the OpenTelemetry SDK's
handler and an in-memory exporter dumped to ``out/otel.json``).

Modes: ``none``, ``install`` (``install()``), ``dictconfig`` (the filter in ``dictConfig``),
``integration`` (the library's recipe from ``hygiene.masking.recipes``).
"""

from __future__ import annotations

import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import common
import logger_setups


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        try:
            status, payload = common.handle(self.command, path, query, dict(self.headers), body)
        except common.UpstreamError:
            common.LOG.exception("request failed")
            status, payload = 500, {"ok": False}
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # http.server's own request log is another test's subject


def main() -> None:
    mode, workdir, port = common.args()
    library = os.environ["HYGIENE_LOGGER"]
    finish = logger_setups.SETUPS[library](mode, Path(workdir))
    try:
        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        finish()


if __name__ == "__main__":
    main()
