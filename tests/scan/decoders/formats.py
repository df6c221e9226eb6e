"""Real formats, each carrying a credential the way that format really does.

Each :class:`Format` builds one file (name and bytes) around a credential: a PAT (``pat``) or a
session token (``session``). The recall battery plants one of each kind in every format and
asserts the scanner reports it with its exact fingerprint.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.scan.decoders.containers import (
    b64,
    bzipped,
    gzipped,
    mime_b64,
    tarred,
    utf16,
    xzipped,
    zipped,
)

if TYPE_CHECKING:
    from tests.helpers import SecretGuard

Build = Callable[[str], tuple[str, bytes]]


@dataclass(frozen=True)
class Format:
    name: str
    kind: str  # "pat" or "session": what credential the format carries here
    build: Build

    def plant(self, guard: SecretGuard, folder: Path) -> tuple[Path, str]:
        """A file of this format in ``folder``, carrying a new credential of its kind (made
        and remembered by ``guard``): its path, and the credential."""
        cred = guard.pat() if self.kind == "pat" else guard.session_token()
        name, data = self.build(cred)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_bytes(data)
        return path, cred


FORMATS: list[Format] = []


def fmt(name: str, kind: str = "pat") -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        FORMATS.append(Format(name, kind, build))
        return build

    return register


def text(name: str, body: str) -> tuple[str, bytes]:
    return name, body.encode()


@fmt("dotenv")
def _env(c: str) -> tuple[str, bytes]:
    return text(".env", f"DEBUG=false\nAIC_TOKEN={c}\nPORT=8080\n")


@fmt("yaml")
def _yaml(c: str) -> tuple[str, bytes]:
    return text("config.yaml", f"service:\n  name: api\n  aic:\n    token: {c}\n")


@fmt("toml")
def _toml(c: str) -> tuple[str, bytes]:
    return text("settings.toml", f'[aic]\nbase_url = "https://aic"\ntoken = "{c}"\n')


@fmt("ini")
def _ini(c: str) -> tuple[str, bytes]:
    return text("app.ini", f"[aic]\nurl = https://aic\ntoken = {c}\n")


@fmt("json")
def _json(c: str) -> tuple[str, bytes]:
    return text("config.json", json.dumps({"aic": {"token": c, "retries": 3}}, indent=2))


@fmt("java properties")
def _properties(c: str) -> tuple[str, bytes]:
    return text("application.properties", f"server.port=8080\naic.token={c}\n")


@fmt("spring xml")
def _spring(c: str) -> tuple[str, bytes]:
    bean = f'<bean id="aic">\n  <property name="token" value="{c}"/>\n</bean>\n'
    return text("beans.xml", f'<?xml version="1.0"?>\n<beans>\n{bean}</beans>\n')


@fmt("nginx")
def _nginx(c: str) -> tuple[str, bytes]:
    conf = f'location /api/ {{\n  proxy_set_header Authorization "Bearer {c}";\n}}\n'
    return text("nginx.conf", conf)


@fmt("docker-compose")
def _compose(c: str) -> tuple[str, bytes]:
    body = f"services:\n  api:\n    image: api:1\n    environment:\n      - AIC_TOKEN={c}\n"
    return text("docker-compose.yml", body)


@fmt("kubernetes secret data (yaml, base64)")
def _k8s_yaml(c: str) -> tuple[str, bytes]:
    body = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: aic\ntype: Opaque\ndata:\n"
    return text("secret.yaml", body + f"  user: {b64('bot')}\n  token: {b64(c)}\n")


@fmt("kubernetes secret data (json, base64)")
def _k8s_json(c: str) -> tuple[str, bytes]:
    doc = {"apiVersion": "v1", "kind": "Secret", "data": {"config": b64(f"token: {c}\n")}}
    return text("secret.json", json.dumps(doc))


@fmt("kubernetes secret stringData")
def _k8s_string(c: str) -> tuple[str, bytes]:
    return text("secret-str.yaml", f"kind: Secret\nstringData:\n  token: {c}\n")


@fmt("docker config.json auth")
def _docker_auth(c: str) -> tuple[str, bytes]:
    doc = {"auths": {"registry.example.invalid": {"auth": b64(f"ci-bot:{c}")}}}
    return text("config.json", json.dumps(doc, indent="\t"))


@fmt(".npmrc")
def _npmrc(c: str) -> tuple[str, bytes]:
    return text(
        ".npmrc", f"registry=https://npm.example.invalid/\n//npm.example.invalid/:_authToken={c}\n"
    )


@fmt(".pypirc")
def _pypirc(c: str) -> tuple[str, bytes]:
    return text(
        ".pypirc",
        f"[distutils]\nindex-servers = aic\n\n[aic]\nusername = __token__\npassword = {c}\n",
    )


@fmt(".netrc")
def _netrc(c: str) -> tuple[str, bytes]:
    return text(".netrc", f"machine aic.example.invalid login bot password {c}\n")


@fmt("git credentials")
def _git_credentials(c: str) -> tuple[str, bytes]:
    return text(".git-credentials", f"https://bot:{c}@git.example.invalid\n")


@fmt("curl command (PAT)")
def _curl_pat(c: str) -> tuple[str, bytes]:
    return text("call.sh", f"#!/bin/sh\ncurl -sS -H 'Authorization: Bearer {c}' https://aic/api\n")


@fmt("curl command (session)", "session")
def _curl_session(c: str) -> tuple[str, bytes]:
    return text("call-session.sh", f'curl -H "Authorization: Bearer {c}" https://aic/api/v1/me\n')


@fmt("bash history")
def _history(c: str) -> tuple[str, bytes]:
    return text(".bash_history", f"ls -la\nexport AIC_TOKEN={c}\naic tokens list\n")


@fmt("powershell utf-16 output")
def _powershell(c: str) -> tuple[str, bytes]:
    out = f"\r\nName                           Value\r\n----                           -----\r\nAIC_TOKEN                      {c}\r\n"
    return "env.txt", utf16(out)


@fmt(".reg utf-16 export")
def _reg(c: str) -> tuple[str, bytes]:
    body = f'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\Software\\Aic]\r\n"Token"="{c}"\r\n'
    return "aic.reg", utf16(body)


@fmt("utf-16 big-endian without bom")
def _utf16be(c: str) -> tuple[str, bytes]:
    return "notes-be.txt", utf16(f"remember: token {c} for the bot\n", "be", bom=False)


@fmt("utf-16 little-endian without bom")
def _utf16le(c: str) -> tuple[str, bytes]:
    return "notes-le.txt", utf16(f"first line\nsecond line token={c}\n", "le", bom=False)


@fmt("utf-16 inside a binary")
def _utf16_binary(c: str) -> tuple[str, bytes]:
    blob = b"\x7fELF\x02\x01\x01" + bytes(range(256)) + utf16(c, bom=False) + b"\x00\x00\x90" * 40
    return "tool.exe", blob


@fmt("powershell -EncodedCommand")
def _encoded_command(c: str) -> tuple[str, bytes]:
    import base64

    command = base64.b64encode(f"$env:AIC_TOKEN = '{c}'; aic login".encode("utf-16-le")).decode()
    return text("run.ps1", f"powershell.exe -NoProfile -EncodedCommand {command}\n")


@fmt("jupyter notebook")
def _notebook(c: str) -> tuple[str, bytes]:
    cell = {"cell_type": "code", "source": ["import os\n", f'TOKEN = "{c}"\n'], "outputs": []}
    doc = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return text("analysis.ipynb", json.dumps(doc, indent=1))


@fmt("har (session)", "session")
def _har(c: str) -> tuple[str, bytes]:
    headers = [
        {"name": "Accept", "value": "*/*"},
        {"name": "Authorization", "value": f"Bearer {c}"},
    ]
    entry = {"request": {"method": "GET", "url": "https://aic/api", "headers": headers}}
    return text(
        "session.har", json.dumps({"log": {"version": "1.2", "entries": [entry]}}, indent=2)
    )


@fmt("har (pat)")
def _har_pat(c: str) -> tuple[str, bytes]:
    headers = [{"name": "authorization", "value": f"Bearer {c}"}]
    return text("pat.har", json.dumps({"log": {"entries": [{"request": {"headers": headers}}]}}))


@fmt("postman header", "session")
def _postman_header(c: str) -> tuple[str, bytes]:
    header = [{"key": "Authorization", "value": f"Bearer {c}", "type": "text"}]
    item = {"name": "me", "request": {"method": "GET", "header": header, "url": "https://aic/me"}}
    doc = {
        "info": {
            "name": "aic",
            "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
        },
        "item": [item],
    }
    return text("aic.postman_collection.json", json.dumps(doc, indent="\t"))


@fmt("postman bearer array", "session")
def _postman_bearer(c: str) -> tuple[str, bytes]:
    auth = {"type": "bearer", "bearer": [{"key": "token", "value": c, "type": "string"}]}
    return text("bearer.postman_collection.json", json.dumps({"info": {}, "auth": auth}, indent=4))


@fmt("postman environment access_token", "session")
def _postman_env(c: str) -> tuple[str, bytes]:
    values = [{"key": "access_token", "value": c, "enabled": True}]
    return text("dev.postman_environment.json", json.dumps({"name": "dev", "values": values}))


@fmt("openapi json example", "session")
def _openapi_json(c: str) -> tuple[str, bytes]:
    param = {
        "name": "Authorization",
        "in": "header",
        "schema": {"type": "string"},
        "example": f"Bearer {c}",
    }
    doc = {"openapi": "3.0.3", "paths": {"/me": {"get": {"parameters": [param]}}}}
    return text("openapi.json", json.dumps(doc, indent=2))


@fmt("openapi yaml example", "session")
def _openapi_yaml(c: str) -> tuple[str, bytes]:
    body = (
        "openapi: 3.0.3\npaths:\n  /me:\n    get:\n      parameters:\n"
        "        - name: Authorization\n          in: header\n          schema:\n"
        f"            type: string\n          example: Bearer {c}\n"
    )
    return text("openapi.yaml", body)


@fmt("terraform tfstate")
def _tfstate(c: str) -> tuple[str, bytes]:
    outputs = {"aic_token": {"value": c, "type": "string", "sensitive": True}}
    return text("terraform.tfstate", json.dumps({"version": 4, "outputs": outputs}, indent=2))


@fmt("sqlite database row")
def _sqlite(c: str) -> tuple[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "app.db"
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE tokens (id INTEGER PRIMARY KEY, owner TEXT, value TEXT)")
        db.execute("INSERT INTO tokens (owner, value) VALUES (?, ?)", ("bot", c))
        db.commit()
        db.close()
        return "app.db", path.read_bytes()


@fmt("minified js bundle")
def _minified(c: str) -> tuple[str, bytes]:
    filler = "".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(3000))
    return text(
        "app.min.js", f'!function(){{{filler};var cfg={{token:"{c}",retries:3}};{filler}}}();'
    )


@fmt("source map")
def _source_map(c: str) -> tuple[str, bytes]:
    doc = {
        "version": 3,
        "sources": ["src/api.ts"],
        "sourcesContent": [f'export const TOKEN = "{c}";\n'],
        "mappings": "AAAA",
    }
    return text("app.js.map", json.dumps(doc))


@fmt("csv")
def _csv(c: str) -> tuple[str, bytes]:
    return text("export.csv", f"name,token,created\nci-bot,{c},2026-11-22\n")


@fmt("log with basic auth")
def _basic_log(c: str) -> tuple[str, bytes]:
    line = f"2026-11-22T10:00:00Z DEBUG > Authorization: Basic {b64('ci-bot:' + c)}\n"
    return text("http-debug.log", "2026-11-22T09:59:59Z INFO start\n" + line)


@fmt("gunicorn access log", "session")
def _gunicorn(c: str) -> tuple[str, bytes]:
    line = f'10.0.0.7 - - [22/Nov/2026:10:00:00 +0000] "GET /api/v1/me?access_token={c} HTTP/1.1" 200 512 "-" "curl/8.4.0"\n'
    return text("access.log", line)


@fmt("json log line", "session")
def _json_log(c: str) -> tuple[str, bytes]:
    record = {"level": "debug", "headers": {"authorization": f"Bearer {c}"}}
    return text("app.jsonl", json.dumps(record) + "\n")


@fmt("raw http request", "session")
def _http_request(c: str) -> tuple[str, bytes]:
    return text(
        "request.http", f"GET /api/v1/me HTTP/1.1\r\nHost: aic\r\nAuthorization: Bearer {c}\r\n\r\n"
    )


@fmt("form body", "session")
def _form(c: str) -> tuple[str, bytes]:
    return text("body.txt", f"grant_type=refresh&access_token={c}&scope=read\n")


@fmt("python source")
def _python(c: str) -> tuple[str, bytes]:
    return text("settings.py", f'import os\n\nAIC_TOKEN = os.environ.get("AIC_TOKEN", "{c}")\n')


@fmt("go source")
def _go(c: str) -> tuple[str, bytes]:
    return text("main.go", f'package main\n\nconst token = "{c}"\n')


@fmt("dockerfile")
def _dockerfile(c: str) -> tuple[str, bytes]:
    return text("Dockerfile", f'FROM python:3.12\nENV AIC_TOKEN={c}\nCMD ["app"]\n')


@fmt("github actions workflow")
def _workflow(c: str) -> tuple[str, bytes]:
    return text(
        "ci.yml",
        f"on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n      AIC_TOKEN: {c}\n",
    )


@fmt("helm values")
def _helm(c: str) -> tuple[str, bytes]:
    return text("values.yaml", f"replicaCount: 2\naic:\n  existingSecret: ''\n  token: \"{c}\"\n")


@fmt("email with base64 attachment")
def _eml(c: str) -> tuple[str, bytes]:
    attachment = mime_b64(("x" * 50 + "\n" + f"AIC_TOKEN={c}\n").encode())
    body = (
        "From: a@example.invalid\r\nTo: b@example.invalid\r\nSubject: env\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\n'
        'see attached\r\n--b1\r\nContent-Type: text/plain; name=".env"\r\n'
        f"Content-Transfer-Encoding: base64\r\n\r\n{attachment}\r\n--b1--\r\n"
    )
    return text("mail.eml", body)


@fmt("url-safe base64 payload")
def _urlsafe(c: str) -> tuple[str, bytes]:
    payload = b64(json.dumps({"sub": "bot", "tok": c}), urlsafe=True).rstrip("=")
    return text("claims.txt", f"payload={payload}\n")


@fmt("binary with ascii")
def _binary(c: str) -> tuple[str, bytes]:
    return "blob.bin", bytes(range(256)) * 4 + c.encode() + b"\x00" + bytes(range(255, -1, -1))


def _member(c: str) -> bytes:
    return f"# config\nAIC_TOKEN={c}\n".encode()


@fmt("zip (deflated)")
def _zip(c: str) -> tuple[str, bytes]:
    return "bundle.zip", zipped({"README": b"hi\n", "conf/.env": _member(c)})


@fmt("zip (stored)")
def _zip_stored(c: str) -> tuple[str, bytes]:
    return "stored.zip", zipped({"conf/app.env": _member(c)}, stored=True)


@fmt("jar")
def _jar(c: str) -> tuple[str, bytes]:
    members = {
        "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
        "application.properties": f"aic.token={c}\n".encode(),
    }
    return "app.jar", zipped(members)


@fmt("wheel")
def _whl(c: str) -> tuple[str, bytes]:
    members = {
        "pkg/__init__.py": f'TOKEN = "{c}"\n'.encode(),
        "pkg-1.0.dist-info/METADATA": b"Name: pkg\n",
    }
    return "pkg-1.0-py3-none-any.whl", zipped(members)


@fmt("docx")
def _docx(c: str) -> tuple[str, bytes]:
    document = (
        f"<w:document><w:body><w:p><w:r><w:t>token: {c}</w:t></w:r></w:p></w:body></w:document>"
    )
    members = {"[Content_Types].xml": b"<Types/>", "word/document.xml": document.encode()}
    return "handover.docx", zipped(members)


@fmt("xlsx")
def _xlsx(c: str) -> tuple[str, bytes]:
    strings = f'<sst count="2"><si><t>name</t></si><si><t>{c}</t></si></sst>'
    members = {"[Content_Types].xml": b"<Types/>", "xl/sharedStrings.xml": strings.encode()}
    return "tokens.xlsx", zipped(members)


@fmt("apk")
def _apk(c: str) -> tuple[str, bytes]:
    dex = b"dex\n035\x00" + bytes(64) + c.encode() + b"\x00" + bytes(32)
    members = {"AndroidManifest.xml": b"\x03\x00\x08\x00", "classes.dex": dex}
    return "app.apk", zipped(members)


@fmt("tgz")
def _tgz(c: str) -> tuple[str, bytes]:
    return "chart.tgz", tarred({"chart/values.yaml": f"token: {c}\n".encode()}, "w:gz")


@fmt("tar.gz")
def _targz(c: str) -> tuple[str, bytes]:
    return "release.tar.gz", tarred({"release/.env": _member(c)}, "w:gz")


@fmt("tar.bz2")
def _tarbz2(c: str) -> tuple[str, bytes]:
    return "backup.tar.bz2", tarred({"home/.netrc": f"machine x password {c}\n".encode()}, "w:bz2")


@fmt("tar.xz")
def _tarxz(c: str) -> tuple[str, bytes]:
    return "backup.tar.xz", tarred({"etc/aic.conf": _member(c)}, "w:xz")


@fmt("plain tar")
def _tar(c: str) -> tuple[str, bytes]:
    return "layer.tar", tarred({"app/.env": _member(c)})


@fmt("zip inside a tar.gz")
def _zip_in_tar(c: str) -> tuple[str, bytes]:
    inner = zipped({"conf/.env": _member(c)})
    return "dist.tar.gz", tarred({"dist/bundle.zip": inner}, "w:gz")


@fmt("jar inside a zip")
def _jar_in_zip(c: str) -> tuple[str, bytes]:
    inner = zipped({"config.yml": f"token: {c}\n".encode()})
    return "outer.zip", zipped({"lib/b.jar": inner})


@fmt("gzip without suffix")
def _gzip_plain(c: str) -> tuple[str, bytes]:
    return "dump", gzipped(_member(c))


@fmt("gzip log")
def _gzip_log(c: str) -> tuple[str, bytes]:
    return "app.log.gz", gzipped(f"start\nGET /x?token={c}\n".encode())


@fmt("bzip2 file")
def _bz2(c: str) -> tuple[str, bytes]:
    return "notes.bz2", bzipped(_member(c))


@fmt("xz file")
def _xz(c: str) -> tuple[str, bytes]:
    return "notes.xz", xzipped(_member(c))


@fmt("base64 secret inside a helm chart tgz")
def _chart_secret(c: str) -> tuple[str, bytes]:
    secret = f"kind: Secret\ndata:\n  token: {b64(c)}\n".encode()
    return "chart-secret.tgz", tarred({"chart/templates/secret.yaml": secret}, "w:gz")


@fmt("utf-16 file inside a zip")
def _utf16_in_zip(c: str) -> tuple[str, bytes]:
    return "exports.zip", zipped({"reg/aic.reg": utf16(f'"Token"="{c}"\r\n')})


@fmt("session in a gzipped har", "session")
def _har_gz(c: str) -> tuple[str, bytes]:
    name, data = _har(c)
    return name + ".gz", gzipped(data)
