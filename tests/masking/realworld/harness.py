"""The real-library battery's harness: secrets, real processes, loopback traffic, leak search.

Every app runs in its own process (``apps/*.py``) with stdout and stderr sent to files in its
work folder; everything it writes there (logs, e-mails, captured Sentry envelopes, exported
OpenTelemetry records) is searched for every form of every secret the test made.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import quopri
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hygiene.detection import PAT_PREFIX
from hygiene.masking.recipes.frames import looks_like_random_credential
from tests.helpers import REPO_ROOT

APPS = Path(__file__).parent / "apps"
# One access-log line per request, werkzeug's colours included.
ACCESS = re.compile(rb'HTTP/1\.1(?:\x1b\[[0-9;]*m)?" \d{3}')
PIECE = 12
ROUNDS = 3  # every exchange is sent this many times to each server (33 requests)


def access_lines(data: bytes) -> int:
    """Access-log lines written (logging's error dump quotes the message: not counted)."""
    return sum(
        1 for line in data.splitlines() if ACCESS.search(line) and not line.startswith(b"Message: ")
    )  # no 12-character piece of a secret may appear anywhere


def random_credential(prefix: str = "") -> str:
    """A credential that looks random by every rule of the toolkit (made at run time)."""
    while True:
        value = prefix + secrets.token_urlsafe(24)
        if looks_like_random_credential(value) and looks_like_random_credential(value[-24:]):
            return value


@dataclass
class Secrets:
    """One set of secrets per app run, one per placement (so a leak names its placement)."""

    bearer: str = field(default_factory=lambda: random_credential("eyJ"))
    basic_user: str = "svc-reporter"
    basic_password: str = field(default_factory=random_credential)
    query_session: str = field(default_factory=random_credential)
    query_pat: str = field(default_factory=lambda: random_credential(PAT_PREFIX))
    json_password: str = field(default_factory=random_credential)
    json_pat: str = field(default_factory=lambda: random_credential(PAT_PREFIX))
    form_password: str = field(default_factory=random_credential)
    form_token: str = field(default_factory=random_credential)
    cookie: str = field(default_factory=random_credential)
    exc_pat: str = field(default_factory=lambda: random_credential(PAT_PREFIX))
    local_session: str = field(default_factory=lambda: random_credential("eyJ"))
    grouped: list[str] = field(
        default_factory=lambda: [random_credential(PAT_PREFIX) for _ in range(3)]
    )
    created: list[str] = field(default_factory=list)  # PATs the app made and returned

    @property
    def basic(self) -> str:
        raw = f"{self.basic_user}:{self.basic_password}".encode()
        return base64.b64encode(raw).decode()

    def named(self) -> dict[str, str]:
        """Every secret by placement name (base64 of the Basic credentials included)."""
        found: dict[str, str] = {}
        for name, value in asdict(self).items():
            if name == "basic_user":
                continue
            values = value if isinstance(value, list) else [value]
            for i, one in enumerate(values):
                found[f"{name}[{i}]" if isinstance(value, list) else name] = one
        found["basic_base64"] = self.basic
        return found

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self) | {"basic": self.basic}))


def forms(secret: str) -> list[tuple[str, str]]:
    """(form name, text) for every way ``secret`` must never appear."""
    body = secret.removeprefix(PAT_PREFIX)
    out = [("whole", secret), ("after prefix", body)]
    out += [
        ("url-encoded", urllib.parse.quote(secret, safe="")),
        ("json-escaped", secret.replace("/", "\\/")),
    ]
    out += [("percent-encoded", _percent_encoded(secret))]
    out += [("12-char piece", body[i : i + PIECE]) for i in range(len(body) - PIECE + 1)]
    return out


def _percent_encoded(secret: str) -> str:
    """``pat%5FAIC%5F...``: what a client that encodes ``_`` sends (quote() keeps ``_``)."""
    return urllib.parse.quote(secret, safe="").replace("_", "%5F")


def find_leaks(outputs: dict[str, bytes], known: Secrets) -> list[str]:
    """Where any form of any secret appears, as ``placement: form in file`` (never the value)."""
    texts = {name: data.decode("utf-8", "replace") for name, data in outputs.items()}
    for name, data in outputs.items():
        if name.startswith("mail/"):  # e-mails are quoted-printable: `=3D`, soft line breaks
            texts[name + " (decoded)"] = quopri.decodestring(data).decode("utf-8", "replace")
    leaks = []
    for placement, secret in known.named().items():
        for form, text in forms(secret):
            for name, content in texts.items():
                if text in content:
                    leaks.append(f"{placement}: {form} in {name}")
                    break
            else:
                continue
            break  # one report per placement is enough
    return leaks


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_PASSED_ENV = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "SYSTEMROOT"})


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    # A small environment: Django's admin e-mail lists the process environment.
    env = {k: v for k, v in os.environ.items() if k in _PASSED_ENV}
    # HYGIENE_BATTERY_CORE: another checkout's `hygiene` for the apps (to compare cores).
    core = os.environ.get("HYGIENE_BATTERY_CORE", str(REPO_ROOT))
    env["PYTHONPATH"] = os.pathsep.join([core, str(APPS)])
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@dataclass
class App:
    """A running app process and the folder its output goes to."""

    proc: subprocess.Popen[bytes]
    workdir: Path
    port: int


def start(
    script: str,
    mode: str,
    workdir: Path,
    port: int | None = None,
    *,
    argv: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> App:
    """Start ``apps/<script>`` (or ``argv``) and wait until it accepts connections."""
    port = port or free_port()
    out = workdir / "out"
    out.mkdir(parents=True, exist_ok=True)
    cmd = argv or [sys.executable, str(APPS / script), mode, str(workdir), str(port)]
    with (out / "stdout.log").open("wb") as so, (out / "stderr.log").open("wb") as se:
        proc = subprocess.Popen(
            cmd, stdout=so, stderr=se, cwd=workdir, env=_env(env), start_new_session=True
        )
    app = App(proc, workdir, port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"{script} {mode} exited early: {collect(workdir).get('stderr.log', b'')[-3000:]!r}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return app
        except OSError:
            time.sleep(0.05)
    stop(app)
    raise AssertionError(f"{script} {mode} did not start")


def stop(app: App, sig: int = signal.SIGINT) -> dict[str, bytes]:
    """Stop the app's whole process group (it is ours: started in a new session) and collect."""
    try:
        os.killpg(app.proc.pid, sig)
        app.proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(app.proc.pid, signal.SIGKILL)
        app.proc.wait(timeout=10)
    time.sleep(0.1)  # children of the group (reloaders, workers) finish their last writes
    return collect(app.workdir)


def run(
    script: str, mode: str, workdir: Path, *args: str, env: dict[str, str] | None = None
) -> dict[str, bytes]:
    """Run ``apps/<script>`` to its end (clients, loggers); return everything it wrote."""
    out = workdir / "out"
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(APPS / script), mode, str(workdir), *args]
    with (out / "stdout.log").open("wb") as so, (out / "stderr.log").open("wb") as se:
        subprocess.run(
            cmd, stdout=so, stderr=se, cwd=workdir, env=_env(env), timeout=60, check=False
        )
    return collect(workdir)


def collect(workdir: Path) -> dict[str, bytes]:
    """Every file the app wrote (everything under ``out/``), by relative name."""
    out = workdir / "out"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@dataclass
class Exchange:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""


def exchanges(known: Secrets) -> list[Exchange]:
    """One request per placement of a secret (the app's routes: /items, /login, /tokens, /fail)."""
    form = urllib.parse.urlencode(
        {"username": "ada", "password": known.form_password, "access_token": known.form_token}
    )
    login = json.dumps(
        {"username": "ada", "password": known.json_password, "access_token": known.json_pat}
    )
    plain = {"Accept": "application/json"}
    out = [
        Exchange(
            "GET",
            f"/items?q=1&access_token={known.query_session}",
            {**plain, "Authorization": f"Bearer {known.bearer}"},
        ),
        Exchange("GET", f"/items?access_token={_percent_encoded(known.query_pat)}", plain),
        Exchange("GET", "/items", {**plain, "Authorization": f"Basic {known.basic}"}),
        Exchange("POST", "/login", {**plain, "Content-Type": "application/json"}, login.encode()),
        Exchange(
            "POST",
            "/login",
            {**plain, "Content-Type": "application/x-www-form-urlencoded"},
            form.encode(),
        ),
        Exchange("GET", "/items", {**plain, "Cookie": f"sessionid={known.cookie}; theme=dark"}),
        Exchange("POST", "/tokens", {**plain, "Content-Type": "application/json"}, b"{}"),
        Exchange(
            "GET",
            f"/fail?access_token={known.exc_pat}",
            {**plain, "Authorization": f"Bearer {known.local_session}"},
        ),
    ]
    out += [Exchange("GET", f"/refresh?access_token={pat}", plain) for pat in known.grouped]
    return out


def send_traffic(port: int, known: Secrets, rounds: int = 1) -> list[int]:
    """Send every exchange ``rounds`` times; remember the PATs the app created; statuses."""
    statuses = []
    for _ in range(rounds):
        for ex in exchanges(known):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            try:
                conn.request(ex.method, ex.path, body=ex.body or None, headers=ex.headers)
                resp = conn.getresponse()
                data = resp.read()
            except http.client.RemoteDisconnected:  # http.server drops a request that raised
                statuses.append(0)
                continue
            finally:
                conn.close()
            statuses.append(resp.status)
            cookie = resp.getheader("Set-Cookie") or ""
            if cookie.startswith("sessionid="):  # a session the app handed out
                known.created.append(cookie.split(";")[0].removeprefix("sessionid="))
            if ex.path == "/tokens":
                token = json.loads(data)["token"]
                known.created.append(token)
    return statuses
