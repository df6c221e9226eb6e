"""Exact extents: the reported token is exactly the token, so its fingerprint resolves."""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import (
    MAX_TOKEN_LENGTH,
    MIN_SECRET_LENGTH,
    RULES,
    find_secrets,
    fingerprint,
)
from hygiene.scan.matcher.engine import scan_bytes
from hygiene.scan.matcher.needles import NeedleFinder
from tests.helpers import new_pat
from tests.strategies import pats, text_after, text_before

PREFIX = "pat" + "_AIC_"


def _encode(pat: str, underscore: bool, dash: bool, lower: bool) -> str:
    """``pat`` as a URL encoder that escapes ``_`` (and maybe ``-``) writes it."""
    under, minus = ("%5f", "%2d") if lower else ("%5F", "%2D")
    text = pat.replace("_", under) if underscore else pat
    return text.replace("-", minus) if dash else text


@given(
    pat=pats,
    underscore=st.booleans(),
    dash=st.booleans(),
    lower=st.booleans(),
    before=text_before,
    after=text_after.filter(lambda t: not t.startswith("%")),
)
def test_url_encoded_pat_is_found_decoded_wherever_it_is_put(
    finder: NeedleFinder,
    pat: str,
    underscore: bool,
    dash: bool,
    lower: bool,
    before: str,
    after: str,
) -> None:
    encoded = _encode(pat, underscore, dash, lower)
    data = (before + encoded + after).encode()
    found = [h.secret for h in scan_bytes(data, finder=finder)]
    assert pat in [s.token for s in found]
    secret = next(s for s in found if s.token == pat)
    start = len(before.encode())
    assert (secret.start, secret.end) == (start, start + len(encoded))
    assert secret.fingerprint == fingerprint(pat)


def test_a_url_encoded_pat_whose_body_holds_pat_underscore_is_one_token(
    finder: NeedleFinder,
) -> None:
    """Found by the property above in CI: `pat%5F` inside an encoded body was taken for the
    start of a second token, and the token was reported cut short (its fingerprint resolved
    to nothing). Only a whole encoded prefix starts a second one."""
    pat = PREFIX + secrets.token_hex(4) + "pat_" + secrets.token_hex(4)
    glued = PREFIX + secrets.token_hex(6)
    for lower in (False, True):
        encoded = _encode(pat, True, False, lower)
        assert [h.secret.token for h in scan_bytes(encoded.encode(), finder=finder)] == [pat]
        assert [s.token for s in find_secrets(encoded)] == [pat]
        two = _encode(pat + glued, True, False, lower)
        assert [h.secret.token for h in scan_bytes(two.encode(), finder=finder)] == [pat, glued]


def test_form_body_with_escaped_underscores_inside_the_secret(finder: NeedleFinder) -> None:
    body = secrets.token_hex(8) + "_" + secrets.token_hex(8) + "-" + secrets.token_hex(4)
    pat = PREFIX + body
    form = f"grant_type=pat&token={_encode(pat, True, True, False)}&scope=read\n"
    assert [h.secret.token for h in scan_bytes(form.encode(), finder=finder)] == [pat]
    assert [s.token for s in find_secrets(form)] == [pat]  # masking sees the same token


def _jwt(length: int) -> str:
    head = "eyJhbGciOiJSUzI1NiJ9."
    sig = secrets.token_urlsafe(length)[: length - len(head) - 1]
    return head + sig[: len(sig) // 2] + "." + sig[len(sig) // 2 :]


def test_bearer_credentials_up_to_16_kib_are_found_whole(finder: NeedleFinder) -> None:
    for length in (5_000, 16 << 10):
        jwt = _jwt(length)
        assert len(jwt) == length <= MAX_TOKEN_LENGTH
        data = f"GET / HTTP/1.1\r\nAuthorization: Bearer {jwt}\r\n\r\n".encode()
        for chunk in (4096, 1 << 20):
            hits = scan_bytes(b"\x00" * 20_000 + data, chunk, finder=finder)
            assert [h.secret.token for h in hits] == [jwt]


def test_a_run_longer_than_the_limit_is_no_credential(finder: NeedleFinder) -> None:
    # A blob longer than any credential (a base64 payload in a binary): not cut into a
    # made-up token whose fingerprint nobody holds.
    data = f"Authorization: Bearer {_jwt(MAX_TOKEN_LENGTH + 100)}\n".encode()
    assert scan_bytes(data, finder=finder) == []


@given(value=st.text(max_size=MIN_SECRET_LENGTH - 1))
def test_no_rule_accepts_a_secret_shorter_than_the_minimum(value: str) -> None:
    # The scanner skips needles without room for MIN_SECRET_LENGTH characters: keyword rules
    # judge the length, PAT patterns require that many characters.
    for rule in RULES:
        if rule.anchored_by_keyword:
            assert not rule.accepts(value)
        else:
            prefix = rule.needles[0].decode() if rule.needles[0] == b"pat_AIC_" else "pat%5FAIC%5F"
            m = rule.text.match(prefix + value)
            assert m is None or len(m.group("cred")) >= MIN_SECRET_LENGTH


def _sqlite_bytes(tmp_path: Path, rows: list[tuple[str, str, str]]) -> bytes:
    path = tmp_path / "tokens.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, token TEXT, note TEXT)")
        db.executemany("INSERT INTO t (name, token, note) VALUES (?, ?, ?)", rows)
    db.close()
    return path.read_bytes()


def test_pat_in_a_sqlite_row_ends_at_its_field(finder: NeedleFinder, tmp_path: Path) -> None:
    # The next column's text follows the token with no delimiter; the row header says where
    # the token's field ends.
    rows = [
        ("ci", new_pat(), "alice"),
        ("deploy", new_pat(), "runs-nightly_2026"),
        ("last", new_pat(), ""),
    ]
    data = _sqlite_bytes(tmp_path, rows)
    tokens = [h.secret.token for h in scan_bytes(data, finder=finder)]
    assert sorted(tokens) == sorted(row[1] for row in rows)
    assert {h.secret.fingerprint for h in scan_bytes(data, 4096, finder=finder)} == {
        fingerprint(row[1]) for row in rows
    }


def test_outside_sqlite_a_header_shaped_prefix_cuts_nothing(finder: NeedleFinder) -> None:
    pat = new_pat()
    # A byte run that would parse as a row header placing a 20-character field at the token.
    data = b"\x03\x00\x35" + pat.encode() + b" "
    assert [h.secret.token for h in scan_bytes(data, finder=finder)] == [pat]
