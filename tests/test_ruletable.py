"""The rule table is the one definition: every part finds each rule through what it derives.

For every row of :data:`hygiene.ruletable.TABLE` a sample (made at run time) must pass every
gate (the short texts' check, the long texts' Hyperscan pass, the stream's hints, the compiled
filter and its Python twin), be masked by ``mask()``, the filter and the stream, and, for the
scanner's rows, be reported by the scanner under the row's type. A row added without a sample
fails here, and so does a gate that stops deriving from the table.
"""

from __future__ import annotations

import base64
import importlib.machinery
import json
import logging
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene import detection, ruletable
from hygiene.masking import RedactingFilter, fastpath, gate, mask
from hygiene.masking.hinted import HINTS as STREAM_HINTS
from hygiene.masking.hints import CASED_HINTS, HINTS, KEY, NONE, hints_in
from hygiene.masking.keys import hides_whole, is_sensitive_key
from hygiene.masking.stream import mask_block
from hygiene.masking.text import LONG
from hygiene.scan.matcher.engine import scan_bytes
from tests.helpers import REPO_ROOT, SecretGuard
from tests.masking.conftest import stream_handler


def _password() -> str:
    return "Pw" + secrets.token_hex(8)


def _urlencoded(pat: str) -> str:
    return pat.replace("_", "%5F")


def _basic() -> tuple[str, str]:
    password = _password()
    return base64.b64encode(f"alice:{password}".encode()).decode(), password


# One sample per row: (the text, the secret that must never come out of any masking).
Sample = Callable[[SecretGuard], tuple[str, str]]
SAMPLES: dict[str, Sample] = {
    "pat": lambda g: ((p := g.pat()) and f"created {p} ok", p),
    "pat-urlencoded": lambda g: (
        (p := g.pat()) and f"GET /v1/login?token={_urlencoded(p)} 200",
        _urlencoded(p),
    ),
    "authorization": lambda g: ((t := g.session_token()) and f"Authorization: Bearer {t}", t),
    "access-token": lambda g: ((t := g.session_token()) and f"access_token={t}&x=1", t),
    "pair": lambda g: (
        (t := g.session_token()) and f'{{"name": "Authorization", "value": "Bearer {t}"}}',
        t,
    ),
    "pair-token": lambda g: ((t := g.session_token()) and f'{{"key": "token", "value": "{t}"}}', t),
    "sensitive-key": lambda g: ((p := g.remember(_password())) and f"db_password={p} x", p),
    "bearer": lambda g: ((t := g.session_token()) and f"sent bearer {t} upstream", t),
    "basic": lambda g: ((b := _basic()) and g.remember(b[0]) and f"auth Basic {b[0]} ok", b[0]),
    "userinfo": lambda g: (
        (p := g.remember(_password())) and f"connecting to https://alice:{p}@db.example/x",
        p,
    ),
    "signed-url": lambda g: (
        (p := g.remember(_password())) and f"GET https://b.example/c?sv=2022&sig={p}&se=x",
        p,
    ),
    "curl-user": lambda g: ((p := g.remember(_password())) and f"curl -u alice:{p} https://x/", p),
    "pgpass": lambda g: ((p := g.remember(_password())) and f"db.example:5432:app:alice:{p}", p),
}


def test_every_row_has_a_sample() -> None:
    assert [row.name for row in ruletable.TABLE] == list(SAMPLES)


def test_every_key_word_holds_its_hint_and_has_a_masked_form() -> None:
    for word in ruletable.KEY_WORDS:
        assert word.hint in word.word
        assert word.masked in (ruletable.HIDDEN, ruletable.TAIL)
    assert tuple(dict.fromkeys(k.hint for k in ruletable.KEY_WORDS)) == ruletable.KEY_HINTS


@pytest.mark.parametrize("word", ruletable.KEY_WORDS, ids=lambda k: k.word)
def test_the_key_rules_read_each_word_as_the_table_says(word: ruletable.KeyWord) -> None:
    # A key that ends with the word: `x_<word>` (or `DB_PASS` for a word not sensitive alone).
    key = f"app_{word.word}" if word.alone else f"DB_{word.word.upper()}"
    assert is_sensitive_key(key)
    assert hides_whole(key) == (word.masked == ruletable.HIDDEN)


def test_the_scanner_rules_are_the_rows_with_a_pattern() -> None:
    rows = [row for row in ruletable.TABLE if row.pattern is not None]
    assert [(r.name, r.type_id, r.pattern, r.needles) for r in detection.RULES] == [
        (r.name, r.type_id, r.pattern, r.needles) for r in rows
    ]
    assert all(row.type_id is not None and row.needles for row in rows)


def _clean_lines(count: int) -> str:
    return "GET https://pam.example/api/v1/safes 200 in 12 ms\n" * count


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_rule_passes_every_gate(name: str, guard: SecretGuard) -> None:
    text, secret = SAMPLES[name](guard)
    assert secret in text
    assert hints_in(text, text.lower()) != NONE
    assert gate.has_hint(f"{'.' * LONG} {text} {'.' * LONG}") is not False
    # (URL passwords: the stream runs the rule's own pattern, `@` being everywhere in logs.)
    assert any(hint in text.lower().encode() for hint in STREAM_HINTS) or name == "userinfo"
    record = logging.LogRecord("t", logging.INFO, "p.py", 1, "%s", (text,), None)
    assert fastpath.plain_message(record, False) == text  # never judged clean: Python masks it


def _clean_lines(count: int) -> str:
    return "GET https://pam.example/api/v1/safes 200 in 12 ms\n" * count


def _logged(text: str) -> str:
    handler, sink = stream_handler()
    handler.addFilter(RedactingFilter())
    logger = logging.Logger("ruletable")
    logger.addHandler(handler)
    logger.warning("%s", text)
    logger.warning(text.replace("%", "%%"))
    return sink.getvalue()


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_rule_is_masked_by_mask_the_filter_and_the_stream(name: str) -> None:
    guard = SecretGuard()  # (checked here: an expected failure must not fail at teardown)
    text, secret = SAMPLES[name](guard)
    masked = mask(text)
    # The stream: a short block (plain finds) and one past 64 KB (its Hyperscan pass).
    short = mask_block(f"{text}\n".encode())
    long = mask_block(f"{_clean_lines(1500)}{text}\n{_clean_lines(10)}".encode())
    assert long.count(b"\n") == 1511
    outputs = [masked, short, long, _logged(text)]
    assert all(secret not in (o if isinstance(o, str) else o.decode()) for o in outputs)
    # The masked form the row names (a key's: its word's; the sample's is a password).
    policy = next(row.masked for row in ruletable.TABLE if row.name == name)
    shown = "…" + secret[-4:]
    if policy == ruletable.TAIL and "%" in secret[-6:]:
        # A URL-encoded tail holding an escape (`…%5FY`) is not cut inside it: a bare `…`.
        assert "…" in masked
    elif policy == ruletable.TAIL:
        assert shown in masked
    else:
        assert "…" in masked
        assert shown not in masked
    guard.capture(*outputs)
    guard.check()


@pytest.mark.parametrize("name", [row.name for row in ruletable.TABLE if row.pattern is not None])
def test_every_scanner_rule_is_reported_under_its_type(name: str, guard: SecretGuard) -> None:
    text, _ = SAMPLES[name](guard)
    row = next(row for row in ruletable.TABLE if row.name == name)
    assert [s.type_id for s in detection.find_secrets(text)] == [row.type_id]
    hits = scan_bytes(f"x\n{text}\n".encode())
    assert [h.secret.type_id for h in hits] == [row.type_id]


_ALL_HINTS = sorted({*ruletable.gate_hints(cased=False)[0], *HINTS} | set(CASED_HINTS))


def _spellings(hint: str) -> list[str]:
    if hint in CASED_HINTS:
        return [hint]
    return [hint, hint.upper(), "".join(c.upper() if i % 2 else c for i, c in enumerate(hint))]


@pytest.mark.parametrize("hint", [s for h in _ALL_HINTS for s in _spellings(h)])
def test_each_hint_opens_the_gates_that_look_for_it(hint: str) -> None:
    text = f"user alice {hint} from 10.0.0.1"
    low = text.lower()
    expected = any(h in low for h in HINTS) or any(h in text for h in CASED_HINTS)
    assert (hints_in(text, low) != NONE) == expected
    if any(h in low for h in ruletable.KEY_HINTS):
        assert hints_in(text, low) == KEY
    if hint.lower() in ruletable.gate_hints(cased=False)[0]:
        assert gate.has_hint(f"{'.' * LONG} {text}") is not False
    if fastpath.COMPILED:  # (the Python twin judges with hints_in)
        record = logging.LogRecord("t", logging.INFO, "p.py", 1, "%s", (text,), None)
        assert (fastpath.plain_message(record, False) == text) == expected


# Adding a sensitive key word is one line of the table: every part picks it up.
_CHECK = """
import json, logging, sys
if sys.argv[1] == "pure":
    sys.modules["hygiene.masking._fastpath"] = None
from hygiene.masking import RedactingFilter, fastpath, mask
from hygiene.masking.stream import mask_block

value = sys.stdin.read()
texts = [
    f"login mfa_code={value} ok",
    f'{{"user": "alice", "MfaCode": "{value}"}}',
    f"<auth><mfa-code>{value}</mfa-code></auth>",
    " ".join(f"mfacode={value}" for _ in range(40)),  # past the keys judged one by one
]
handler = logging.StreamHandler(sys.stderr)
handler.addFilter(RedactingFilter())
logger = logging.Logger("check")
logger.addHandler(handler)
logger.warning("login mfacode=%s ok", value)
print(json.dumps({
    "compiled": fastpath.COMPILED,
    "masked": [value not in mask(t) for t in texts],
    "stream": [value.encode() not in mask_block((t + "\\n").encode()) for t in texts],
}))
"""


def _run_table(root: Path, mode: str, value: str) -> tuple[dict[str, object], str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, mode],
        input=value,
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=120,
        check=True,
    )
    cli = subprocess.run(
        [sys.executable, "-m", "hygiene", "mask"],
        input=f"login mfa_code={value} ok\nuser_mfacode: {value}\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout), done.stderr, cli.stdout


def _built() -> bool:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return any(p.name.endswith(suffixes) for p in (REPO_ROOT / "hygiene" / "masking").iterdir())


def _tree(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(
        REPO_ROOT / "hygiene", root / "hygiene", ignore=shutil.ignore_patterns("__pycache__")
    )
    return root


def test_a_key_word_added_to_the_table_alone_is_masked_everywhere(
    tmp_path: Path, guard: SecretGuard
) -> None:
    value = guard.remember("Mf" + secrets.token_hex(8))
    before, after = _tree(tmp_path, "before"), _tree(tmp_path, "after")
    table = after / "hygiene" / "ruletable.py"
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index('    KeyWord("pass", "pass", HIDDEN, alone=False),\n')
    lines.insert(at, '    KeyWord("mfacode", "mfa", HIDDEN),\n')  # the one change
    table.write_text("".join(lines), encoding="utf-8")

    # Without the line, no part masks the word's values (so the line is what masks them).
    unchanged, logged, cli = _run_table(before, "compiled", value)
    assert unchanged["masked"] == unchanged["stream"] == [False, False, False, False]
    assert value in logged
    assert value in cli
    for mode in ("compiled", "pure"):
        result, logged, cli = _run_table(after, mode, value)
        assert result["compiled"] is (mode == "compiled" and _built())
        assert result["masked"] == result["stream"] == [True, True, True, True]
        assert "login mfacode=… ok" in logged
        assert cli == "login mfa_code=… ok\nuser_mfacode: …\n"
        guard.capture(logged, cli)
