"""What a hostile server says is checked, masked and escaped before anything of it is shown.

Real ``hygiene`` / ``revoke-leaked`` processes against servers on loopback that answer
``tokens create`` with a value that is no PAT, an id made to walk a URL path, an expiry of
controls or megabytes; and error codes and messages carrying ESC sequences, newlines that
forge result lines, the caller's own session token and password. The safe outcome: nothing
printed as a token, nothing recorded, one error line (exit 2) or one result line per id, no
raw control in any output, no secret in any output.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from hygiene.detection import PAT_PREFIX, fingerprint
from hygiene.inventory import open_inventory
from hygiene.testing.hostile import HostileServer, step_of
from hygiene.testing.misbehaviours import Answer, Conn
from hygiene.testing.server import DEMO_ORGS
from tests.helpers import SecretGuard, run_hygiene
from tests.hostile.common import env_for, leak
from tests.security.test_escape import assert_inert, lines_of

TERMINAL = "\x1b]0;pwned\x07\x1b[2J\u202e\u009b"
FORGED = "\nrevoked        tok_forged  sha256:000000000000\nhygiene: created tok_forged"
CREATE = ("tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "30")
EXPIRES = "2030-01-01T00:00:00+00:00"
TOKEN_ID = "tok_0123abcd"


def _create_answer(value: str, token_id: Any = TOKEN_ID, expires: Any = EXPIRES) -> Answer:
    body = {"token": value, "token_id": token_id, "name": "ci", "expires_at": expires}
    return Answer.json(201, body, "hostile-create")


def _entries(tmp_path: Path) -> list[object]:
    path = tmp_path / "inventory.sqlite3"
    if not path.exists():
        return []
    with open_inventory(path, create=False) as inventory:
        return list(inventory.entries())


def _created_with(
    guard: SecretGuard, tmp_path: Path, answer: Answer
) -> tuple[bytes, bytes, int, HostileServer]:
    with HostileServer() as server:
        guard.remember(server.password)
        server.set_fault("create", answer)
        proc = run_hygiene(None, *CREATE, env=env_for(server, tmp_path))
    # stdout of a run that succeeded holds the new value, printed once by design
    guard.capture(proc.stderr, *([proc.stdout] if proc.returncode else []))
    return proc.stdout, proc.stderr, proc.returncode, server


# value (built from a fresh PAT ``p``) -> why it must not be shown
BAD_VALUES = {
    "osc-title-after": lambda p: p + TERMINAL,
    "forged-lines-after": lambda p: p + FORGED,
    "bidi-inside": lambda p: p[:12] + "\u202e" + p[12:],
    "space-inside": lambda p: p[:12] + " " + p[12:],
    "overlong": lambda p: p + "A" * 5000,
    "placeholder": lambda p: PAT_PREFIX + "x" * 24,
    "no-prefix": lambda p: "hello" + TERMINAL,
}


@pytest.mark.parametrize("case", sorted(BAD_VALUES))
def test_tokens_create_never_shows_a_value_that_is_not_a_pat(
    case: str, tmp_path: Path, guard: SecretGuard
) -> None:
    value = BAD_VALUES[case](guard.pat())
    guard.remember(value)
    out, err, code, _ = _created_with(guard, tmp_path, _create_answer(value))
    assert code == 2, err
    assert out == b""  # nothing printed as a token
    assert_inert(out, err)
    (line,) = lines_of(err)
    assert line.startswith("hygiene: error: create token: ")
    assert _entries(tmp_path) == []  # nothing recorded


BAD_IDS: dict[str, Any] = {
    "dot-dot-slash": "../../admin",
    "slash-dot-dot": "tok/../../users",
    "dot-dot": "..",
    "dots-inside": "tok..x",
    "query": "tok?force=1",
    "fragment": "tok#x",
    "percent": "%2e%2e%2fadmin",
    "escape": "tok" + TERMINAL,
    "newline": "tok" + FORGED,
    "space": "tok 1",
    "huge": "t" * 100_000,
    "empty": "",
    "number": 12345,
}


@pytest.mark.parametrize("case", sorted(BAD_IDS))
def test_tokens_create_refuses_a_token_id_unfit_for_a_url_path(
    case: str, tmp_path: Path, guard: SecretGuard
) -> None:
    value = guard.pat()
    out, err, code, _ = _created_with(guard, tmp_path, _create_answer(value, BAD_IDS[case]))
    assert code == 2, err
    assert out == b""
    assert_inert(out, err)
    (line,) = lines_of(err)
    assert line.startswith("hygiene: error: create token: ")
    if isinstance(BAD_IDS[case], str) and BAD_IDS[case]:
        # the token exists on the service: its fingerprint lets the user find and revoke it
        assert fingerprint(value) in line
    assert _entries(tmp_path) == []


def test_tokens_create_refuses_a_token_value_given_as_the_id(
    tmp_path: Path, guard: SecretGuard
) -> None:
    value, other = guard.pat(), guard.pat()
    out, err, code, _ = _created_with(guard, tmp_path, _create_answer(value, other))
    assert (code, out) == (2, b"")
    assert_inert(err)
    assert _entries(tmp_path) == []


BAD_EXPIRIES: dict[str, Any] = {
    "controls": TERMINAL,
    "forged-lines": "2030-01-01" + FORGED,
    "words": "next tuesday",
    "not-a-month": "2030-13-01",
    "100-kB": "2030-01-01T00:00:00" + "0" * 100_000,
    "10-MB": "9" * 10_000_000,
    "list": ["2030-01-01"],
}


@pytest.mark.parametrize("case", sorted(BAD_EXPIRIES))
def test_tokens_create_refuses_an_expiry_that_is_not_a_date(
    case: str, tmp_path: Path, guard: SecretGuard
) -> None:
    value = guard.pat()
    answer = _create_answer(value, expires=BAD_EXPIRIES[case])
    out, err, code, _ = _created_with(guard, tmp_path, answer)
    if case == "list":  # not a string: the service named no expiry, the requested one stands
        assert code == 0, err
        assert out.decode().strip() == value
        return
    assert code == 2, err
    assert out == b""
    assert_inert(out, err)
    (line,) = lines_of(err)
    assert line.startswith("hygiene: error: create token: ")
    assert len(line) < 1000  # none of the megabytes is echoed
    assert _entries(tmp_path) == []


def test_a_good_answer_is_still_shown_once_and_recorded(tmp_path: Path, guard: SecretGuard) -> None:
    value = guard.pat()
    out, err, code, _ = _created_with(guard, tmp_path, _create_answer(value, "tok_ok:1.2"))
    assert code == 0, err
    assert out.decode() == value + "\n"
    assert_inert(err)
    (line,) = lines_of(err)
    assert line.startswith("created tok_ok:1.2 (ci) in org_main, expires 2030-01-01")
    assert len(_entries(tmp_path)) == 1


class EchoingServer(HostileServer):
    """Answers ``step`` with an error whose code and message echo what the caller sent (its
    bearer token, or the password it logged in with) inside terminal sequences and forged
    lines, as a careless or hostile service would."""

    def __init__(self, step: str, status: int = 403) -> None:
        super().__init__()
        self.echo_step = step
        self.echo_status = status
        self.echoed: list[str] = []

    def _answer(
        self, conn: Conn, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> bool:
        if step_of(method, path) != self.echo_step:
            return super()._answer(conn, method, path, headers, body)
        sent = headers.get("authorization", "").removeprefix("Bearer ")
        if not sent:  # login: the password
            sent = str(json.loads(body or b"{}").get("password", ""))
        self.echoed.append(sent)
        doc = {
            "error": f"DENIED{TERMINAL}{sent}{FORGED}",
            "message": f"you sent {sent} and {TERMINAL} {FORGED}",
        }
        conn.send(Answer.json(self.echo_status, doc).bytes())
        return False


def _echo_run(
    guard: SecretGuard, tmp_path: Path, step: str, args: tuple[str, ...], prog: str = "hygiene"
) -> tuple[bytes, bytes, int, EchoingServer]:
    status = 401 if step == "login" else 403
    with EchoingServer(step, status) as server:
        guard.remember(server.password)
        token_id = leak(server, tmp_path, guard) if prog == "revoke-leaked" else ""
        proc = run_hygiene(
            guard,
            *[a.replace("{id}", token_id) for a in args],
            env=env_for(server, tmp_path),
            prog=prog,
        )
    assert server.echoed, "the step was never reached"
    for sent in server.echoed:
        guard.remember(sent)
    return proc.stdout, proc.stderr, proc.returncode, server


@pytest.mark.parametrize("step", ["login", "memberships", "create"])
def test_tokens_create_errors_echoing_our_credentials_show_them_masked(
    step: str, tmp_path: Path, guard: SecretGuard
) -> None:
    out, err, code, _ = _echo_run(guard, tmp_path, step, CREATE)
    assert (code, out) == (2, b""), err
    assert_inert(out, err)
    (line,) = lines_of(err)  # the forged lines stay inside it
    assert line.startswith("hygiene: error: ")
    if step != "login":  # a login error shows only the code, and one that is no code is dropped
        assert "\\x1b]0;pwned\\x07" in line  # escaped, visibly
    assert _entries(tmp_path) == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_revoke_results_echoing_our_session_token_show_it_masked(
    fmt: str, tmp_path: Path, guard: SecretGuard
) -> None:
    args = ("--token-id", "{id}", "--yes", "--format", fmt)
    out, err, code, _ = _echo_run(guard, tmp_path, "revoke", args, prog="revoke-leaked")
    assert code == 1, err  # failed, not revoked
    assert_inert(out, err)
    if fmt == "text":
        (line,) = lines_of(out)  # one result line; the forged "revoked" line is inside it
        assert line.startswith("failed ")
    else:
        (result,) = json.loads(out)["results"]
        assert result["status"] == "failed"
    summary = [ln for ln in lines_of(err) if ln.startswith("revoke-leaked: ")]
    assert summary[-1].startswith("revoke-leaked: 0 revoked, 0 not_found, 1 failed")


def test_an_aic_token_echoed_back_is_masked(tmp_path: Path, guard: SecretGuard) -> None:
    # AIC_TOKEN instead of a login: the service echoes that very token in the error.
    with EchoingServer("create") as server:
        token, _ = server.state.login(server.email, server.password) or ("", 0)
        guard.remember(token)
        guard.remember(server.password)
        env = {**env_for(server, tmp_path), "AIC_TOKEN": token, "AIC_PASSWORD": ""}
        proc = run_hygiene(guard, *CREATE, env=env)
    assert server.echoed == [token]
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert_inert(proc.stderr)
    assert len(lines_of(proc.stderr)) == 1


def test_an_unknown_secret_in_a_message_is_masked_by_the_engine(
    tmp_path: Path, guard: SecretGuard
) -> None:
    # Not ours, so not known by value: the masking engine's rules catch it by its shape.
    other, third, fourth = guard.session_token(), guard.session_token(), guard.session_token()
    pat = guard.pat()
    message = (
        f"see Authorization: Bearer {other} or {pat}{TERMINAL} or "
        f'{{"client_secret": "{third}"}} or https://ci:{fourth}@example.invalid/'
    )
    answer = Answer.json(403, {"error": "FORBIDDEN", "message": message})
    out, err, code, _ = _created_with(guard, tmp_path, answer)
    assert (code, out) == (2, b"")
    assert_inert(err)
    (line,) = lines_of(err)
    assert PAT_PREFIX + "\N{HORIZONTAL ELLIPSIS}" in line


def test_password_never_shown_even_when_short_words_match(
    tmp_path: Path, guard: SecretGuard
) -> None:
    # A password that is also an ordinary word of the message: masked wherever it appears.
    with HostileServer() as server:
        server.password = "s3cr" + secrets.token_hex(2)
        server.state.add_account(server.email, server.password, DEMO_ORGS)  # replaces it
        guard.remember(server.password)
        answer = Answer.json(403, {"error": "X", "message": f"password {server.password} ok"})
        server.set_fault("memberships", answer)
        proc = run_hygiene(guard, *CREATE, env=env_for(server, tmp_path))
    assert proc.returncode == 2
    assert server.password not in proc.stderr.decode()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_hostile_report_cannot_forge_or_steer_revoke_results(
    fmt: str, tmp_path: Path, guard: SecretGuard
) -> None:
    # A report is a file anyone may have written: its paths and masked forms are untrusted.
    planted = guard.pat()
    findings = [
        {
            "path": f"src/{TERMINAL}{FORGED}",
            "line": 3,
            "type": "aic-pat",
            "masked": f"{planted}{TERMINAL}",  # a real value where a masked form belongs
            "fingerprint": "sha256:" + secrets.token_hex(32),
        }
        for _ in range(3)
    ]
    report = tmp_path / f"report{TERMINAL}.json"
    report.write_text(json.dumps({"findings": findings}), encoding="utf-8")
    with HostileServer() as server:
        guard.remember(server.password)
        proc = run_hygiene(
            guard,
            str(report),
            "--yes",
            "--format",
            fmt,
            env=env_for(server, tmp_path),
            prog="revoke-leaked",
        )
    assert proc.returncode == 1, proc.stderr  # unresolved, none revoked
    assert_inert(proc.stdout, proc.stderr)
    if fmt == "text":
        lines = lines_of(proc.stdout)
        assert len(lines) == 3  # one per finding; the forged "revoked" lines are inside them
        assert all(line.startswith("unresolved ") for line in lines)
        assert all(PAT_PREFIX + "\N{HORIZONTAL ELLIPSIS}" in line for line in lines)
    else:
        results = json.loads(proc.stdout)["results"]
        assert [r["status"] for r in results] == ["unresolved"] * 3
    # The summary comes last (before it, one line on the empty inventory and how to fill it).
    *notes, summary = [ln for ln in lines_of(proc.stderr) if ln.startswith("revoke-leaked: ")]
    assert "3 unresolved" in summary
    assert all("token inventory" in note for note in notes)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_logging_out_a_leaked_session_the_service_echoes_shows_it_masked(
    fmt: str, tmp_path: Path, guard: SecretGuard
) -> None:
    # Each leaked session's logout is answered with that token echoed (no login of ours: a
    # leaked session is logged out with itself).
    with EchoingServer("logout") as server:
        guard.remember(server.password)
        leaked = [server.state.login(server.email, server.password) for _ in range(2)]
        log = tmp_path / f"app{TERMINAL}.log"
        log.write_text(
            "".join(f"Authorization: Bearer {guard.remember(t)}\n" for t, _ in filter(None, leaked))
        )
        proc = run_hygiene(
            guard,
            "--scan",
            str(log),
            "--yes",
            "--format",
            fmt,
            env=env_for(server, tmp_path),
            prog="revoke-leaked",
        )
        for sent in server.echoed:
            guard.remember(sent)
    # Both leaked sessions were logged out with themselves (the run's own login, which learns
    # the service's session shape, is logged out and echoed too).
    assert {t for t, _ in filter(None, leaked)} <= set(server.echoed)
    assert proc.returncode == 1, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    if fmt == "text":
        lines = lines_of(proc.stdout)
        assert len(lines) == 2
        assert all(line.startswith("failed ") for line in lines)
    else:
        assert [r["status"] for r in json.loads(proc.stdout)["results"]] == ["failed"] * 2
    (summary,) = lines_of(proc.stderr)
    assert summary.startswith("revoke-leaked: 0 revoked, 0 not_found, 2 failed")
