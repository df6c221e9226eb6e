"""Credentials named by their context (issue #26, item 4): each shape in real formats, through
mask(), a RedactingFilter, install() and `hygiene mask`; and the ordinary text and
placeholders around them left alone."""

from __future__ import annotations

import base64
import email
import html.parser
import json
import logging
import netrc
import secrets
import shlex
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from hygiene.masking import RedactingFilter, install, mask
from tests.helpers import SecretGuard, run_hygiene
from tests.masking.conftest import stream_handler

# A case: the realistic text holding the secrets, and the words that must stay readable.
Case = tuple[str, list[str]]
Build = Callable[[SecretGuard], Case]


def _password(guard: SecretGuard) -> str:
    """A password as people pick them: letters, digits and a symbol, no token shape."""
    return guard.remember("Pw-" + secrets.token_urlsafe(12).replace("-", "x") + "!9")


def _env_yaml(guard: SecretGuard) -> Case:
    token, password, quoted = guard.session_token(), _password(guard), guard.session_token()
    text = f"""apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: api
          image: registry.example.com/api:1.4
          env:
            - name: LOG_LEVEL
              value: debug
            - name: API_TOKEN
              value: {token}
            - name: DB_PASSWORD
              value: "{password}"
            - name: GITHUB_TOKEN
              value: '{quoted}'
            - name: SIGNING_KEY
              valueFrom:
                secretKeyRef:
                  name: api-secrets
                  key: signing-key
"""
    env = yaml.safe_load(text)["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {e["name"]: e.get("value") for e in env}["API_TOKEN"] == token  # a real manifest
    return text, [
        "LOG_LEVEL",
        "value: debug",
        "secretKeyRef",
        "api-secrets",
        "registry.example.com",
    ]


def _env_flow_yaml(guard: SecretGuard) -> Case:
    token = guard.session_token()
    text = f"env:\n- {{name: AIC_TOKEN, value: {token}}}\n- {{name: PORT, value: '8080'}}\n"
    assert yaml.safe_load(text)["env"][0]["value"] == token
    return text, ["AIC_TOKEN", "PORT", "'8080'"]


def _env_kubectl_json(guard: SecretGuard) -> Case:
    token, password = guard.session_token(), _password(guard)
    pod = {
        "kind": "Pod",
        "spec": {
            "containers": [
                {
                    "name": "worker",
                    "env": [
                        {"name": "QUEUE_URL", "value": "amqp://mq.internal:5672/"},
                        {"name": "REFRESH_TOKEN", "value": token},
                        {"name": "SMTP_PASS", "value": password},
                    ],
                }
            ]
        },
    }
    return json.dumps(pod, indent=2), ["QUEUE_URL", "amqp://mq.internal:5672/", "SMTP_PASS"]


def _env_ecs(guard: SecretGuard) -> Case:
    token, password, last = guard.session_token(), _password(guard), guard.session_token()
    task = {
        "family": "billing",
        "containerDefinitions": [
            {
                "name": "billing",
                "environment": [
                    {"name": "REGION", "value": "eu-west-1"},
                    {"name": "STRIPE_API_KEY", "value": token},
                    {"name": "DATABASE_PASSWORD", "value": password},
                    # Terraform's jsonencode sorts keys; hand-written task files vary too.
                    {"value": last, "name": "SESSION_SECRET"},
                ],
            }
        ],
    }
    return json.dumps(task), ["REGION", "eu-west-1", "STRIPE_API_KEY", "SESSION_SECRET"]


def _urlencoded(guard: SecretGuard) -> Case:
    token, session, password = guard.session_token(), guard.session_token(), _password(guard)
    callback = f"https://app.example.com/cb?access_token={token}&state=af0ifjsldkj"
    nested = urllib.parse.urlencode({"next": callback, "lang": "en"})
    twice = urllib.parse.quote(urllib.parse.quote(callback, safe=""), safe="")
    headers = urllib.parse.urlencode({"h": json.dumps({"Authorization": f"Bearer {session}"})})
    body = urllib.parse.urlencode({"q": json.dumps({"user": "alice", "password": password})})
    lines = [
        f"GET /login?{nested} HTTP/1.1",
        f"redirect: /sso?target={twice}",
        f"debug headers={headers}",
        f"POST /search body={body}",
    ]
    return "\n".join(lines), ["GET /login?next=", "af0ifjsldkj", "lang=en", "alice", "Bearer"]


def _flags(guard: SecretGuard) -> Case:
    token, password, secret = guard.session_token(), _password(guard), guard.session_token()
    key, go_token, eq = guard.session_token(), guard.session_token(), _password(guard)
    lines = [
        f"+ deploy --env prod --token {token} --region eu-west-1",
        f"+ mysql-backup --host db --password '{password}' --verbose",
        f'+ oauth2-proxy --client-id web --client-secret "{secret}"',
        f"+ ./loadtest -api-key {key} -rate 50",
        f"+ terraform-runner -token {go_token}",
        f"+ psql-wrapper --password={eq} --db app",
    ]
    for line in lines:
        shlex.split(line[2:])  # each is a real command line
    return "\n".join(lines), ["--env prod", "--region eu-west-1", "--client-id web", "-rate 50"]


def _curl(guard: SecretGuard) -> Case:
    password, quoted, proxy = _password(guard), _password(guard), _password(guard)
    session, key = guard.session_token(), guard.session_token()
    lines = [
        f"curl -u deploy:{password} https://ci.example.com/api/build",
        f"curl --user 'svc-reporter:{quoted}' -X POST https://api.example.com/v1/report",
        f"curl -U proxyuser:{proxy} -x http://proxy:3128 https://example.com",
        f'curl -H "Authorization: Bearer {session}" https://api.example.com/me',
        f"curl --header 'X-Api-Key: {key}' https://api.example.com/v2/items",
    ]
    for line in lines:
        shlex.split(line)
    return "\n".join(lines), ["deploy:", "svc-reporter:", "proxyuser:", "https://ci.example.com"]


def _netrc(guard: SecretGuard, tmp: Path) -> Case:
    one, many, default = _password(guard), guard.session_token(), _password(guard)
    text = (
        f"machine ci.example.com login deploy password {one}\n"
        "\n"
        "machine api.example.com\n"
        "    login svc-reporter\n"
        "    account reporting\n"
        f"    password {many}\n"
        "\n"
        f"default login anonymous password {default}\n"
    )
    path = tmp / "netrc"
    path.write_text(text)
    path.chmod(0o600)
    parsed = netrc.netrc(str(path))
    assert parsed.authenticators("api.example.com") == ("svc-reporter", "reporting", many)
    return text, ["ci.example.com", "login deploy", "svc-reporter", "account reporting"]


def _pgpass(guard: SecretGuard) -> Case:
    first, wild, bouncer, escaped = (_password(guard) for _ in range(4))
    text = (
        f"db.example.com:5432:app:alice:{first}\n"
        f"*:*:*:replicator:{wild}\n"
        f"10.0.4.17:6432:billing:bob:{bouncer}\n"
        f"localhost:5432:*:carol:{escaped}\\:tail\n"
    )
    guard.remember(escaped + "\\:tail")
    return text, ["db.example.com:5432:app:alice:", "*:*:*:replicator:", "10.0.4.17:6432:"]


class _Inputs(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("input", "meta") and (found.get("name") or found.get("type")):
            name = found.get("name") or str(found.get("type"))
            self.values[name] = found.get("value") or found.get("content") or ""


def _html(guard: SecretGuard) -> Case:
    csrf, password, rails, meta, django = (guard.session_token() for _ in range(5))
    text = f"""<form method="post" action="/login">
  <input type="hidden" name="csrf_token" value="{csrf}">
  <input type="text" name="username" value="alice">
  <input type="password" name="pw" value="{password}" autocomplete="current-password">
  <input value="{rails}" name="authenticity_token" type="hidden" />
  <input type='hidden' name='csrfmiddlewaretoken' value='{django}'>
</form>
<meta name="csrf-token" content="{meta}">
"""
    parser = _Inputs()
    parser.feed(text)
    assert parser.values["authenticity_token"] == rails  # real HTML, as a browser reads it
    return text, ['name="username" value="alice"', 'action="/login"', 'name="csrf-token"']


def _folded(guard: SecretGuard) -> Case:
    session, basic_password, split = guard.session_token(), _password(guard), guard.session_token()
    basic = base64.b64encode(f"svc:{basic_password}".encode()).decode()
    guard.remember(basic)
    head, tail = split[: len(split) // 2], split[len(split) // 2 :]
    guard.remember(tail)
    requests = [
        f"GET /a HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer\r\n {session}\r\nAccept: */*\r\n",
        f"GET /b HTTP/1.1\r\nAuthorization:\r\n\tBasic {basic}\r\nHost: api\r\n",
        f"GET /c HTTP/1.1\r\nProxy-Authorization: Bearer {head}\r\n  {tail}\r\nHost: api\r\n",
    ]
    message = email.message_from_string(requests[0].split("\r\n", 1)[1])
    assert " ".join(str(message["Authorization"]).split()) == f"Bearer {session}"  # obs-fold
    return "\r\n".join(requests), ["Host: api", "Accept: */*", "GET /b HTTP/1.1"]


def _signed_urls(guard: SecretGuard) -> Case:
    sas = base64.b64encode(secrets.token_bytes(32)).decode()
    gcs, cloudfront = secrets.token_hex(128), secrets.token_urlsafe(96)
    guard.remember(sas)
    guard.remember(urllib.parse.quote(sas, safe=""))
    guard.remember(gcs)
    guard.remember(cloudfront)
    v4, legacy = _presigned_s3(guard)
    azure = (
        "https://acct.blob.core.windows.net/reports/q3.pdf?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2026-12-01T00:00:00Z&spr=https&sig={urllib.parse.quote(sas, safe='')}"
    )
    google = (
        "https://storage.googleapis.com/bucket/obj.tar.gz?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        "&X-Goog-Credential=sa%40proj.iam.gserviceaccount.com%2F20261128%2Fauto%2Fstorage"
        f"%2Fgoog4_request&X-Goog-Date=20261128T000000Z&X-Goog-Expires=900&X-Goog-Signature={gcs}"
        "&X-Goog-SignedHeaders=host"
    )
    cf = f"https://d111.cloudfront.net/v.mp4?Expires=1798761600&Signature={cloudfront}&Key-Pair-Id=K2"
    lines = [f"download {azure}", f"fetch {v4}", f"get {legacy}", f"fetch {google}", f"play {cf}"]
    return "\n".join(lines), ["sp=r", "X-Goog-Expires=900", "Key-Pair-Id=K2", "X-Amz-Expires=600"]


def _presigned_s3(guard: SecretGuard) -> list[str]:
    """Presigned URLs made by botocore itself (signed locally: no request is sent), with
    SigV4 (``X-Amz-Signature``) and the legacy query signature (``Signature``)."""
    import botocore.session
    from botocore.config import Config

    urls = []
    for version, field in (("s3v4", "X-Amz-Signature"), ("s3", "Signature")):
        client = botocore.session.get_session().create_client(
            "s3",
            region_name="eu-west-1",
            aws_access_key_id="AKIA" + secrets.token_hex(8).upper(),
            aws_secret_access_key=secrets.token_urlsafe(30),
            config=Config(signature_version=version),
        )
        url: str = client.generate_presigned_url(
            "get_object", Params={"Bucket": "reports", "Key": "q3.pdf"}, ExpiresIn=600
        )
        signature = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)[field][0]
        guard.remember(signature)
        guard.remember(urllib.parse.quote(signature, safe=""))
        urls.append(url)
    return urls


CASES: dict[str, Build] = {
    "env-yaml": _env_yaml,
    "env-flow-yaml": _env_flow_yaml,
    "env-kubectl-json": _env_kubectl_json,
    "env-ecs": _env_ecs,
    "urlencoded": _urlencoded,
    "flags": _flags,
    "curl": _curl,
    "pgpass": _pgpass,
    "html": _html,
    "folded-authorization": _folded,
    "signed-urls": _signed_urls,
}


@pytest.fixture(params=[*CASES, "netrc"])
def case(request: pytest.FixtureRequest, guard: SecretGuard, tmp_path: Path) -> Case:
    if request.param == "netrc":
        return _netrc(guard, tmp_path)
    return CASES[request.param](guard)


def test_mask_hides_each_shape_and_keeps_the_rest(case: Case, guard: SecretGuard) -> None:
    text, kept = case
    masked = mask(text)
    guard.capture(masked)
    for word in kept:
        assert word in masked
    assert mask(masked) == masked  # a second pass finds nothing more


def test_a_redacting_filter_hides_each_shape(
    case: Case, guard: SecretGuard, logger: logging.Logger
) -> None:
    text, kept = case
    handler, sink = stream_handler()
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    logger.warning("config dump:\n%s", text)
    logger.error("as an argument", extra={"dump": text})
    guard.capture(sink.getvalue())
    assert kept[0] in sink.getvalue()


def test_install_hides_each_shape(case: Case, guard: SecretGuard, logger: logging.Logger) -> None:
    text, kept = case
    handler, sink = stream_handler()
    logger.addHandler(handler)
    installation = install(streams=False)
    try:
        logger.info("request %s", text)
        logger.info(text)  # (no arguments: the message is not %-formatted)
    finally:
        installation.uninstall()
    guard.capture(sink.getvalue())
    assert kept[0] in sink.getvalue()


def test_hygiene_mask_hides_each_shape(case: Case, guard: SecretGuard) -> None:
    text, kept = case
    proc = run_hygiene(guard, "mask", input=text.encode())
    assert proc.returncode == 0
    out = proc.stdout.decode()
    for word in kept:
        assert word in out
    assert out.count("\n") == text.count("\n")  # line for line
