"""A loopback server for the client apps: every answer carries a new PAT and a session cookie."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from hygiene.detection import PAT_PREFIX
from tests.masking.realworld.harness import Secrets, random_credential


@contextmanager
def upstream(known: Secrets) -> Iterator[str]:
    """Serve on 127.0.0.1 until the block ends; yield the base URL. Secrets it hands out join
    ``known.created``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            pat, cookie = random_credential(PAT_PREFIX), random_credential()
            known.created += [pat, cookie]
            arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:app-db-AbCdEf"
            body = json.dumps(
                {"token": pat, "SecretString": pat, "ARN": arn, "Name": "app-db"}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Set-Cookie", f"sessionid={cookie}; HttpOnly")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test process writes nothing: only the app's output is searched

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
