"""The parts under ``--scan``: splitting what a scan finds, logging out, recording partial runs."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import fingerprint, masked_form
from hygiene.errors import AuthFailed, InputError, UsageError
from hygiene.inventory import REVOKED, open_inventory
from hygiene.revoke import RevokeOptions
from hygiene.revoke.scanned import scan_paths
from hygiene.revoke.sessions import SessionTarget, log_out_all
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard
from tests.revoke.conftest import leak_pats
from tests.revoke.test_revoke_live import run
from tests.strategies import bearer_credentials, pats

# How a credential sits on a log line; each shape is found by the scanner whatever the value.
LINE_SHAPES = (
    "Authorization: Bearer {}",
    "{{'access_token': '{}'}}",
    "curl -H 'authorization: {}'",
)


def test_scan_splits_pats_from_sessions_and_deduplicates(
    tmp_path: Path, guard: SecretGuard
) -> None:
    pat, session = guard.pat(), guard.session_token()
    log = tmp_path / "a.log"
    log.write_text(
        f"Authorization: Bearer {pat}\naccess_token={session}\n"
        f'{{"authorization": "Bearer {session}"}}\n'
    )
    found = scan_paths([str(log), "-"], io.StringIO(f"token: Bearer {pat}\n"))
    assert [(f.key, f.type, f.where) for f in found.pats] == [
        (fingerprint(pat), "aic-pat", f"{log}:1"),
        (fingerprint(pat), "aic-pat", "<stdin>:1"),
    ]
    (target,) = found.sessions
    assert (target.fingerprint, target.where, target.masked) == (
        fingerprint(session),
        f"{log}:2",
        masked_form(session),
    )
    assert session not in repr(target)
    assert session not in repr(found)
    assert found.errors == []


def test_scan_of_a_missing_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        scan_paths([str(tmp_path / "nope.log")], io.StringIO())


def test_stdin_cannot_feed_ids_and_scan_at_once(tmp_path: Path, guard: SecretGuard) -> None:
    with pytest.raises(UsageError, match="not both"):
        run(RevokeOptions(ids_from="-", scan=("-",)), {}, guard)


def test_auth_failed_partway_still_records_what_was_revoked(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inv.sqlite3"
    leaks = leak_pats(control_plane, inventory, guard, 12)
    login = control_plane.state.login(control_plane.email, control_plane.password)
    assert login is not None
    session = guard.remember(login[0])
    # A fixed session (AIC_TOKEN) that the service kills at the 5th authenticated call: the
    # memberships call and three DELETEs succeed, then every call answers 401 = AUTH_FAILED.
    control_plane.switches.unauthorized_at = 5
    env = {
        "AIC_BASE_URL": control_plane.base_url,
        "AIC_TOKEN": session,
        "HYGIENE_INVENTORY": str(inventory),
    }
    with pytest.raises(AuthFailed):
        run(RevokeOptions(token_ids=tuple(x.token_id for x in leaks), yes=True), env, guard)
    revoked = {x.token_id for x in leaks if control_plane.state.pat(x.token_id).revoked}
    assert len(revoked) == 3
    with open_inventory(inventory) as inv:
        marked = {e.token_id for e in inv.entries() if e.state == REVOKED}
    assert marked == revoked


def _redirect_handler(target: str, hits: list[str]) -> type[BaseHTTPRequestHandler]:
    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Silent."""

        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(307)
            self.send_header("Location", target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Redirect


@pytest.fixture
def redirecting(control_plane: ControlPlane) -> Iterator[tuple[str, list[str]]]:
    """A loopback server answering every GET with a redirect to the stand-in."""
    hits: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _redirect_handler(control_plane.base_url, hits))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}", hits
    finally:
        server.shutdown()
        server.server_close()


def test_a_redirect_is_failed_and_never_followed(
    redirecting: tuple[str, list[str]], control_plane: ControlPlane, guard: SecretGuard
) -> None:
    base_url, hits = redirecting
    login = control_plane.state.login(control_plane.email, control_plane.password)
    assert login is not None
    token = guard.remember(login[0])
    target = SessionTarget(fingerprint(token), "x.log:1", masked_form(token), token)
    (result,) = log_out_all([target], base_url)
    assert (result.status, result.http_status, result.token_id) == ("failed", 307, None)
    assert hits == ["/api/v1/org/memberships"]
    assert control_plane.requests == []  # the token never reached the redirect's target
    assert control_plane.state.authenticate(token) is not None


@given(
    st.lists(
        st.tuples(st.one_of(pats, bearer_credentials), st.sampled_from(LINE_SHAPES)),
        min_size=1,
        max_size=12,
    )
)
def test_every_leak_lands_once_on_its_side(leaks: list[tuple[str, str]]) -> None:
    text = "".join(shape.format(value) + "\n" for value, shape in leaks)
    found = scan_paths(["-"], io.StringIO(text))
    pat_values = {v for v, _ in leaks if v.startswith("pat_AIC_")}
    session_values = [v for v, _ in leaks if not v.startswith("pat_AIC_")]
    assert {f.key for f in found.pats} == {fingerprint(v) for v in pat_values}
    first_seen = list(dict.fromkeys(fingerprint(v) for v in session_values))
    assert [t.fingerprint for t in found.sessions] == first_seen
