"""``mask()`` reads inside encodings as the scanner does: PATs in base64 (whole runs
re-encoded masked, the text's structure kept) and UTF-16 fragments."""

from __future__ import annotations

import base64
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene.detection import ELLIPSIS, PAT_PREFIX, find_secrets
from hygiene.masking import mask
from hygiene.masking.decoded import (
    GATE_CHARS,
    cased_needles,
    encoded_spans,
    may_hold_encoded,
    may_hold_needles,
)
from hygiene.masking.pats import pat_spans, urlencoded_pat_spans
from hygiene.masking.spans import Span
from hygiene.masking.text import _add_uncovered
from hygiene.scan.decoders import b64
from hygiene.scan.decoders.embedded import embedded_secrets
from tests.helpers import SecretGuard, examples
from tests.strategies import pats


def _b64(data: str | bytes, urlsafe: bool = False) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()


def _unb64(run: str) -> bytes:
    urlsafe = "-" in run or "_" in run
    padded = run + "=" * (-len(run) % 4)
    return (base64.urlsafe_b64decode if urlsafe else base64.b64decode)(padded)


def _clean(guard: SecretGuard, text: str, *secrets: str) -> str:
    out = mask(text)
    guard.capture(out)
    assert mask(out) == out  # idempotent
    assert find_secrets(out) == []
    assert embedded_secrets(out.encode("ascii", "replace")) == []
    for secret in secrets:
        assert secret not in out
        assert _b64(secret) not in out
    return out


def test_every_needle_of_the_scanner_holds_a_gate_character() -> None:
    for needle in (*b64.NEEDLES, *b64.NESTED_NEEDLES):
        assert any(c in needle.text.decode() for c in GATE_CHARS), needle.text


def test_every_needle_a_stream_looks_for_passes_the_bytes_gate() -> None:
    for needle in cased_needles():
        assert may_hold_needles(b"INFO " + needle + b" end"), needle
    assert not may_hold_needles(b"INFO request served in 3 ms")


def test_text_without_encoded_pats_passes_the_gate_or_stays(guard: SecretGuard) -> None:
    plain = "INFO GET /api/v1/users 200 UUID=Q1 YYYY-MM-DD " + _b64("hello world, nothing here")
    assert mask(plain) == plain
    assert not may_hold_encoded("INFO request served in 3 ms")


@pytest.mark.parametrize("urlsafe", [False, True])
@pytest.mark.parametrize("pad", range(3))  # every alignment of the PAT in the 3-byte groups
def test_a_kubernetes_secret_stays_valid_yaml_and_base64(
    guard: SecretGuard, urlsafe: bool, pad: int
) -> None:
    pat = guard.pat()
    value = _b64("x" * pad + pat, urlsafe)
    doc = f"apiVersion: v1\nkind: Secret\ndata:\n  aic: {value}\n  port: {_b64('8080')}\n"
    out = _clean(guard, doc, pat)
    (run,) = re.findall(r"aic: (\S+)", out)
    decoded = _unb64(run).decode()
    assert decoded.startswith("x" * pad + PAT_PREFIX + "…")  # readable: the masked form
    assert decoded.endswith(pat[-4:])
    assert f"port: {_b64('8080')}" in out  # the rest untouched


def test_a_docker_config_auth_keeps_its_user(guard: SecretGuard) -> None:
    pat = guard.pat()
    auth = _b64(f"ci-bot:{pat}")
    doc = json.dumps({"auths": {"registry.example": {"auth": auth}}})
    out = _clean(guard, doc, pat)
    masked = json.loads(out)["auths"]["registry.example"]["auth"]
    assert _unb64(masked).decode().startswith("ci-bot:" + PAT_PREFIX + "…")


def test_a_dockerconfigjson_base64_of_base64_is_masked_inside(guard: SecretGuard) -> None:
    pat = guard.pat()
    inner = json.dumps({"auths": {"r": {"auth": _b64(f"u:{pat}")}}})
    doc = f"data:\n  .dockerconfigjson: {_b64(inner)}\n"
    out = _clean(guard, doc, pat)
    (run,) = re.findall(r"dockerconfigjson: (\S+)", out)
    config = json.loads(_unb64(run))
    assert _unb64(config["auths"]["r"]["auth"]).startswith(b"u:" + PAT_PREFIX.encode())


def test_a_whole_base64_config_and_mime_lines(guard: SecretGuard) -> None:
    pat = guard.pat()
    body = _b64("[aic]\nurl = https://aic\nlog = info\ntoken = " + pat + "\n" + "# pad\n" * 12)
    lines = [body[i : i + 76] for i in range(0, len(body), 76)]
    mail = "Content-Transfer-Encoding: base64\r\n\r\n" + "\r\n".join(lines) + "\r\n\r\nbye\r\n"
    out = _clean(guard, mail, pat)
    part = out.split("\r\n\r\n")[1]
    assert all(len(line) <= 76 for line in part.split("\r\n"))  # still MIME lines
    assert b"token = " + PAT_PREFIX.encode() in _unb64(part.replace("\r\n", ""))
    assert out.endswith("\r\n\r\nbye\r\n")


def test_a_powershell_encoded_command_utf16_inside_base64(guard: SecretGuard) -> None:
    pat = guard.pat()
    script = f"$env:AIC_TOKEN='{pat}'; Invoke-RestMethod https://aic".encode("utf-16-le")
    out = _clean(guard, f"powershell -EncodedCommand {base64.b64encode(script).decode()}", pat)
    run = out.split()[-1]
    assert _unb64(run).decode("utf-16-le").startswith("$env:AIC_TOKEN=")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_fragments_inside_text_become_utf16_masked_forms(
    guard: SecretGuard, codec: str
) -> None:
    pat = guard.pat()
    blob = "ELF\x00\x01" + f"token={pat}".encode(codec).decode("latin-1") + "\x00\x00tail"
    out = _clean(guard, blob, pat)
    assert (PAT_PREFIX + "...").encode(codec).decode("latin-1") in out
    assert out.endswith("\x00\x00tail")


def test_several_encoded_pats_in_one_text_each_masked(guard: SecretGuard) -> None:
    pats = [guard.pat() for _ in range(5)]
    text = " ".join(f"k{i}={_b64('u:' + p)}" for i, p in enumerate(pats))
    _clean(guard, text, *pats)


def test_an_encoded_pat_in_a_record_without_any_hint(guard: SecretGuard) -> None:
    # No keyword, no `AIC`, no scheme word: only the decoders' needles point at it.
    pat = guard.pat()
    _clean(guard, f"payload {_b64(pat)} done", pat)
    _clean(guard, f"{_b64(pat)}", pat)
    _clean(guard, "x" * 300 + " " + _b64(pat) + " " + "y" * 300, pat)  # the long-text gate


def test_a_base64_run_glued_to_other_text_is_hidden_whole(guard: SecretGuard) -> None:
    # The run starts inside a word (no group boundary): the fallback marker, never the PAT.
    pat = guard.pat()
    for glue in ("a", "ab", "abc"):
        _clean(guard, f"id={glue}{_b64(pat)}", pat)


def test_name_value_pairs_of_har_and_postman(guard: SecretGuard) -> None:
    cred = guard.session_token()
    postman = json.dumps({"auth": {"bearer": [{"key": "token", "value": cred}]}}, indent=4)
    env = json.dumps({"values": [{"key": "access_token", "value": cred, "enabled": True}]})
    har = json.dumps({"headers": [{"name": "Authorization", "value": f"Bearer {cred}"}]})
    for text in (postman, env, har):
        _clean(guard, text, cred)


def test_thousands_of_encoded_pats_in_one_text(guard: SecretGuard) -> None:
    # Each run is judged against what the other rules hide by a binary search, not a scan of
    # every span (2,000 runs: a pairwise check made this cost seconds per 100 KB).
    pats = [guard.pat() for _ in range(2000)]
    text = "\n".join(f"k{i}: {_b64(p)} {p}" for i, p in enumerate(pats))
    out = mask(text)
    guard.capture(out)
    assert embedded_secrets(out.encode("ascii", "replace")) == []
    assert find_secrets(out) == []
    assert out.count("k1999: ") == 1


def test_a_run_read_on_over_a_line_break_under_a_key(guard: SecretGuard) -> None:
    # An unpadded run ends a line and the next line starts with base64 letters (`data`): the
    # decoders read on across the break, so the token they report runs into that word. The
    # key rule hides the value too: both go as one `…`, and a second pass changes nothing.
    pats = [PAT_PREFIX + "0000000000012", PAT_PREFIX + "00000012"]
    pats += [guard.pat()[: len(PAT_PREFIX) + 13]]  # 21 bytes: a run with no padding
    text = "".join(f"data:\n  token: {_b64(p)}\n" for p in pats)
    out = _clean(guard, text, *pats)
    assert out.count("token: ") == 3


_PIECES = st.sampled_from([" ", "=", '"', "\n", "\r\n", "x", "+", "/", "p", "pa", "Q", "%5F"])


@settings(max_examples=examples(300))
@given(st.lists(st.one_of(_PIECES, pats, pats.map(_b64), pats.map(lambda p: _b64(p, True)))))
def test_the_gate_outside_the_pats_finds_what_the_whole_text_gives(parts: list[str]) -> None:
    """The gate skips the PATs found that stand apart: that changes nothing masked, glued to
    them or not (a run it does not see lies inside a PAT, hidden with it)."""
    text = "".join(parts)
    found: list[Span] = []
    pat_spans(text, found)
    urlencoded_pat_spans(text, found)
    gated, whole = list(found), list(found)
    _add_uncovered(encoded_spans(text, mask, found), gated, overlapping=ELLIPSIS)
    _add_uncovered(encoded_spans(text, mask), whole, overlapping=ELLIPSIS)
    assert gated == whole


def test_a_record_with_a_pat_and_an_encoded_one_masks_both(guard: SecretGuard) -> None:
    plain, encoded = guard.pat(), guard.pat()
    for text in (
        f"created token {plain} with {_b64(encoded)}",
        f"{_b64(encoded)}{plain}",
        f"{plain}={_b64(encoded)}",
    ):
        _clean(guard, text, plain, encoded)
