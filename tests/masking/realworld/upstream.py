"""A loopback server for the client apps: every answer carries a new PAT and a session cookie
(STS's answer, new AWS credentials in XML)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from hygiene.detection import PAT_PREFIX
from tests.masking.realworld.harness import Secrets, random_credential

# An STS AssumeRole answer, as AWS writes it (its credentials made per request).
_ASSUME_ROLE = """<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <AssumedRoleUser>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:app</AssumedRoleId>
      <Arn>arn:aws:sts::123456789012:assumed-role/app-role/app</Arn>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIA5TESTONLY0000000</AccessKeyId>
      <SecretAccessKey>{secret_key}</SecretAccessKey>
      <SessionToken>{session}</SessionToken>
      <Expiration>2026-11-23T12:00:00Z</Expiration>
    </Credentials>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata>
</AssumeRoleResponse>
"""


@contextmanager
def upstream(known: Secrets) -> Iterator[str]:
    """Serve on 127.0.0.1 until the block ends; yield the base URL. Secrets it hands out join
    ``known.created``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if b"Action=AssumeRole" in self.rfile.read(length):
                self._assume_role()
                return
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

        def _assume_role(self) -> None:
            """STS's query protocol answers in XML (botocore logs the body at DEBUG)."""
            secret_key, session = random_credential(), random_credential()
            known.created += [secret_key, session]
            body = _ASSUME_ROLE.format(secret_key=secret_key, session=session).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/xml")
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
