"""The issuer rule as data (hygiene.issuers, part of the detection core): every third-party
format is named, this service's sessions never are, and nothing an attacker writes into a
JWT's ``iss`` is shown unless it is a plain host name."""

from __future__ import annotations

import base64
import json
import secrets

import httpx
import pytest

from hygiene.api.verify import verify_tokens
from hygiene.detection import fingerprint
from hygiene.issuers import BASIC, UNKNOWN, SessionShape, host_of, is_basic, issuer_of
from hygiene.revoke.plan import FOREIGN
from hygiene.revoke.sessions import SessionTarget, log_out_one, service_shape
from hygiene.testing.state import State
from tests.helpers import new_session_token
from tests.security.issuer_kit import (
    HEX,
    RecordingRelay,
    assert_never_sent,
    b64url,
    jwt,
    rnd,
    third_party,
)

SERVICE = "https://pam.example.test"


def test_every_third_party_format_is_named() -> None:
    for _ in range(20):
        for item in third_party():
            found = issuer_of(item.value, SERVICE)
            assert found is not None, item.label
            assert item.issuer in found.name, item.label
            assert found.next_step


def stand_in_sessions(count: int) -> list[str]:
    state = State()
    state.add_account("a@example.test", "pw", [("org_main", "admin")])
    sessions = []
    for _ in range(count):
        answer = state.login("a@example.test", "pw")
        assert answer is not None
        sessions.append(answer[0])
    return sessions


def test_this_services_sessions_are_never_foreign() -> None:
    sessions = stand_in_sessions(300) + [new_session_token() for _ in range(300)]
    shape = service_shape(stand_in_sessions(1)[0])
    assert shape is not None
    for value in sessions:
        assert issuer_of(value, SERVICE) is None
        assert issuer_of(value, "http://127.0.0.1:8080", shape) is None
    for _ in range(2000):  # opaque random sessions, no shape known: may be the service's
        assert issuer_of(secrets.token_urlsafe(32), SERVICE) is None


def test_basic_is_a_password_and_json_in_base64_is_not() -> None:
    for user in ("deploy", "ci@example.test", "", "x-access-token"):
        value = base64.b64encode(f"{user}:{rnd(12)}".encode()).decode()
        assert is_basic(value)
        assert issuer_of(value, SERVICE) is BASIC
    opaque = base64.b64encode(json.dumps({"sid": rnd(10), "n": 1}).encode()).decode()
    assert not is_basic(opaque)
    assert not is_basic(base64.b64encode(secrets.token_bytes(30)).decode())
    assert not is_basic(rnd(40, HEX))


@pytest.mark.parametrize(
    ("iss", "ours"),
    [
        (SERVICE, True),
        (SERVICE + "/", True),
        (SERVICE + ":443/realms/x", True),  # h and h:443 name one service
        ("https://PAM.example.test/", True),
        ("pam.example.test", True),
        ("https://auth.pam.example.test/realms/x", True),  # a name under the service's
        ("https://example.test", False),  # a parent: another issuer
        ("https://auth.example.test", False),  # a sibling: another issuer
        ("https://pam.example.test.evil.example", False),
        ("https://evilpam.example.test", False),
        ("https://pam.example.test@evil.example", False),
        ("https://evil.example/pam.example.test", False),
        ("https://evil.example?h=pam.example.test", False),
        ("", False),
        ("https://accounts.google.com", False),
    ],
)
def test_jwt_issuer_is_compared_by_host(iss: str, ours: bool) -> None:
    found = issuer_of(jwt({"iss": iss, "sub": "u"}), SERVICE)
    assert (found is None) == ours, found


@pytest.mark.parametrize(
    ("service", "iss", "ours"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080", True),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8081", False),
        ("http://127.0.0.1:8080", "http://x.127.0.0.1:8080", False),  # no names under an IP
        ("https://pam.example.test:8443", "https://pam.example.test:9443", False),
        ("http://[::1]:8080", "http://[::1]:8080", False),  # IPv6: no plain host, refused
    ],
)
def test_jwt_issuer_ports_and_addresses(service: str, iss: str, ours: bool) -> None:
    found = issuer_of(jwt({"iss": iss}), service)
    assert (found is None) == ours, found


def test_a_learned_shape_never_widens_the_rule() -> None:
    """A service (or a hostile one) answering its login with a Google-issued JWT cannot make
    leaked Google JWTs look like its own sessions."""
    shape = service_shape(jwt({"iss": "https://accounts.google.com", "sub": "me"}))
    assert shape is not None
    google = jwt({"iss": "https://accounts.google.com", "sub": "victim"})
    assert shape.matches(google)
    found = issuer_of(google, SERVICE, shape)
    assert found is not None
    assert found.name == "Google"
    for item in third_party():
        assert issuer_of(item.value, SERVICE, shape) is not None, item.label


def test_jwt_without_issuer_may_be_ours_and_a_broken_one_is_no_jwt() -> None:
    assert issuer_of(jwt({"sub": "u"}), SERVICE) is None
    header = b64url({"alg": "none"})
    assert issuer_of(f"{header}.{rnd(30)}.{rnd(20)}", SERVICE) is None
    # Any issuer at all when the service's address is unknown (a dry run): foreign.
    assert issuer_of(jwt({"iss": SERVICE}), None) is not None


@pytest.mark.parametrize(
    "iss",
    [
        "https://evil.example/\x1b[2J\x1b[31mPWNED",
        "evil\nrevoke-leaked: 0 foreign",
        "https://" + "a" * 300 + ".example",
        "pat" + "_AIC_" + rnd(24),
        "https://e\u0301vil.example",
        "javascript:alert(1)",
    ],
)
def test_a_hostile_issuer_claim_is_never_echoed(iss: str) -> None:
    found = issuer_of(jwt({"iss": iss}), SERVICE)
    assert found is not None
    shown = found.name + found.next_step
    assert shown.isprintable()
    assert "\x1b" not in shown
    assert "\n" not in shown
    assert "AIC" not in shown
    assert "PWNED" not in shown
    assert "alert" not in shown
    assert len(shown) < 200


def test_host_of_reads_only_plain_hosts() -> None:
    assert host_of("https://Pam.Example.test:8443/x") == "pam.example.test:8443"
    assert host_of("pam.example.test") == "pam.example.test"
    assert host_of("https://a b") is None
    assert host_of("https://x:99999999") is None


def test_a_learned_shape_refuses_other_shapes() -> None:
    hex_shape = SessionShape.learn(rnd(40, HEX))
    assert hex_shape.matches(rnd(40, HEX))
    assert not hex_shape.matches(rnd(40))
    prefixed = SessionShape.learn("sess_" + rnd(32))
    assert prefixed.matches("sess_" + rnd(32))
    assert not prefixed.matches("tok_" + rnd(33))
    assert not prefixed.matches("sess_" + rnd(200))  # four times as long
    jwt_shape = SessionShape.learn(jwt({"iss": SERVICE, "sub": "u"}))
    assert jwt_shape.matches(jwt({"iss": SERVICE, "sub": "v"}))
    assert not jwt_shape.matches(jwt({"sub": "v"}))  # our JWTs name us; this one does not
    assert issuer_of(rnd(40, HEX), SERVICE, jwt_shape) is UNKNOWN
    # The shape keeps no part of its sample.
    sample = "sess_" + rnd(32)
    assert sample[5:] not in repr(SessionShape.learn(sample))


def test_no_shape_is_learned_from_a_pat_or_a_foreign_value() -> None:
    assert service_shape(None) is None
    assert service_shape("pat" + "_AIC_" + rnd(30)) is None
    assert service_shape("gh" + "p_" + rnd(36)) is None


def test_log_out_one_refuses_a_foreign_value_whoever_calls_it(control_plane) -> None:
    """Defence in depth: the function that sends refuses too, not only the flow's sorting."""
    port = int(control_plane.base_url.rsplit(":", 1)[1])
    with RecordingRelay(port) as relay, httpx.Client(base_url=relay.url) as client:
        for item in third_party():
            target = SessionTarget("sha256:x", "log:1", "…", item.value)
            result = log_out_one(client, target)
            assert result.status == FOREIGN, item.label
            assert result.issuer
        assert relay.connections == 0


def test_verify_tokens_sends_only_pats(control_plane, guard) -> None:
    """The verification function itself refuses what is no PAT, whoever calls it."""
    port = int(control_plane.base_url.rsplit(":", 1)[1])
    items = third_party()
    for item in items:
        guard.remember(item.value)
    _, pat = control_plane.state.create_pat(
        control_plane.email, "org_main", "v", ["safes:read"], 30
    )
    guard.remember(pat)
    values = [item.value for item in items]
    with RecordingRelay(port) as relay:
        answers = verify_tokens(values, relay.url)
        assert relay.connections == 0
        assert set(answers.values()) == {"unknown"}
        answers = verify_tokens([*values, pat], relay.url)
        sent = relay.sent
    assert answers[fingerprint(pat)] == "live"
    assert len(answers) == len(items) + 1
    assert_never_sent(sent, items)
