"""The context rules keep their precision: ordinary text, code, docs and placeholders in the
same shapes are left alone; every gate knows the context hints; `hygiene mask` on a pipe
carries the lines that name a value to the line that holds it."""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import fastpath, mask
from hygiene.masking.context import CONTEXT_HINTS, has_context_hint
from hygiene.masking.gate import _HINTS as LONG_TEXT_HINTS
from hygiene.masking.gate import has_hint as long_text_gate
from hygiene.masking.hinted import HINTS as STREAM_HINTS
from hygiene.masking.hints import NONE, hints_in
from tests.helpers import REPO_ROOT, SecretGuard, env_with_scripts
from tests.strategies import placeholder_credentials

ORDINARY = [
    # Kubernetes and ECS: names that are no secrets, references, templates, empty values.
    "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: PORT\n    value: '8080'\n",
    "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api\n        key: token\n",
    'env:\n  - name: API_TOKEN\n    value: "$(TOKEN_FROM_SECRET)"\n',
    'env:\n  - name: DB_PASSWORD\n    value: "${DB_PASSWORD}"\n',
    'env:\n  - name: DB_PASSWORD\n    value: ""\n',
    '[{"name": "GITHUB_TOKEN", "value": "{{ secrets.GITHUB_TOKEN }}"}]',
    '{"name": "token_type", "value": "bearer"}',
    # Flags: prose, metavars, paths, variables, the next flag.
    "use --token to authenticate, or --password reset to start over",
    "usage: deploy [--token TOKEN] [--api-key API_KEY] [--password PASSWORD]",
    "deploy --token-file /run/secrets/token --password-stdin",
    "deploy --api-key $API_KEY --token ${AIC_TOKEN}",
    "deploy --token --verbose",
    "sudo -u postgres psql; docker run -u 1000:1000 img; curl -u alice https://x",
    'parser.add_argument("--token", help="the API token")',
    # netrc and pgpass look-alikes.
    "the default password is shown once; machine learning models login daily",
    "at 10:15:30:123:started the job",
    "2026-11-28T10:00:00Z INFO:root:worker ready",
    # HTML without a secret.
    '<input type="text" name="username" value="alice">',
    '<input type="password" name="password" placeholder="Password" value="">',
    '<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    # Headers that are not folded; a YAML dump with the same indentation.
    "Authorization: Bearer\r\nContent-Type: application/json\r\n",
    "  authorization: none\n  accept: text/html\n",
    # Signatures that are placeholders, or words.
    "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=EXAMPLE",
    "https://x.example.com/?signature=${SIG}&design=flat",
    "assign the signature later; design=flat; SIGTERM received",
    # URL-encoded text without a secret.
    "next=%2Fhome%3Ftab%3Dtokens%26page%3D2",
    "q=how%20to%20rotate%20a%20token%3F",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_in_the_same_shapes_is_left_alone(text: str) -> None:
    assert mask(text) == text


PLACED = [
    "env:\n  - name: API_TOKEN\n    value: {}\n",
    '[{{"name": "DB_PASSWORD", "value": "{}"}}]',
    "deploy --token {} --env prod",
    "curl -u alice:{} https://x",
    "machine h login u password {}",
    "db.example.com:5432:app:alice:{}",
    '<input name="password" value="{}">',
    "GET /x HTTP/1.1\r\nAuthorization: Bearer\r\n {}\r\n",
    "https://acct.blob.core.windows.net/c/b?sig={}",
]


@given(placeholder=placeholder_credentials, shape=st.sampled_from(PLACED))
def test_placeholders_in_every_shape_are_left_alone(placeholder: str, shape: str) -> None:
    text = shape.format(placeholder)
    assert mask(text) == text


@pytest.mark.parametrize("hint", CONTEXT_HINTS)
@pytest.mark.parametrize("spelling", [str.lower, str.upper, str.title])
def test_every_gate_lets_each_context_hint_through(hint: str, spelling: object) -> None:
    text = f"x {spelling(hint)} y"  # type: ignore[operator]
    assert has_context_hint(text.lower())
    assert hints_in(text, text.lower()) != NONE  # text.py's gate (generated from the table)
    assert long_text_gate(text + " " * 300) is not False  # gate.py's (Hyperscan), long texts
    assert hint in fastpath.HINTS  # the compiled pass's list (test_fastpath checks C's)
    assert hint in LONG_TEXT_HINTS
    assert hint.encode() in STREAM_HINTS


def test_the_filters_python_twin_sends_each_context_hint_to_python(
    logger: logging.Logger,
) -> None:
    seen: list[object] = []
    redact = fastpath.redact_with(lambda record, verdict: seen.append(verdict) or True)
    for hint in CONTEXT_HINTS:
        record = logger.makeRecord("x", logging.INFO, "f", 1, f"a {hint} b", (), None)
        redact(record)
    assert seen == [f"a {hint} b" for hint in CONTEXT_HINTS]


def _pipe() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "hygiene", "mask"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO_ROOT,
        env=env_with_scripts(),
    )


def _line_back(proc: subprocess.Popen[bytes], line: bytes) -> bytes:
    """Write one line and read the masked line back before the next is written: the value
    line reaches `hygiene mask` as a block of its own, after its name was written out."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(line)
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "no line came back"
    return os.read(proc.stdout.fileno(), 65536)


@pytest.mark.parametrize(
    "lines",
    [
        ["env:\n", "  - name: API_TOKEN\n", "    value: {}\n", "  - name: X\n"],
        ['    {{"name": "SMTP_PASS",\n', '     "value": "{}"}},\n'],
        ["machine api.example.com\n", "  login svc\n", "  password {}\n"],
        ["GET / HTTP/1.1\r\n", "Authorization: Bearer\r\n", "  {}\r\n", "Host: x\r\n"],
    ],
    ids=["k8s", "ecs", "netrc", "folded"],
)
def test_a_pipe_masks_a_value_named_on_an_earlier_line(
    lines: list[str], guard: SecretGuard
) -> None:
    secret = guard.session_token()
    proc = _pipe()
    try:
        for line in lines:
            out = _line_back(proc, line.format(secret).encode())
            guard.capture(out)
            assert out.count(b"\n") == 1  # written as it came, one line at a time
    finally:
        assert proc.stdin is not None
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdin.close()
        rest, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=60)
    guard.capture(rest, err)
    assert proc.returncode == 0


MANY = {
    "env-yaml": "  - name: SVC{i}_API_TOKEN\n    value: {s}\n",
    "env-json": '{{"name": "DB{i}_PASSWORD", "value": "{s}"}}, ',
    "flags": "--token {s} --svc{i}-api-key {s} ",
    "curl": "curl -u user{i}:{s} https://x/{i}\n",
    "netrc": "machine h{i} login u password {s}\n",
    "pgpass": "db{i}.example.com:5432:app:alice:{s}\n",
    "html": '<input type="hidden" name="csrf_token" value="{s}">\n',
    "folded": "Authorization: Bearer\r\n  {s}\r\n",
    "signed": "https://a.blob.core.windows.net/c/{i}?sv=2022-11-02&sig={s}\n",
    "urlencoded": "next=%2Fcb%3Faccess_token%3D{s}%26i%3D{i}\n",
}


@pytest.mark.parametrize("shape", list(MANY))
def test_past_the_judged_candidates_every_value_is_still_hidden(
    shape: str, guard: SecretGuard
) -> None:
    # 100 of one shape in one text: past the 32 judged, one dense pass hides the rest.
    text = "".join(MANY[shape].format(i=i, s=guard.session_token()) for i in range(100))
    masked = mask(text)
    guard.capture(masked)
    assert mask(masked) == masked
    assert masked.count("\n") == text.count("\n")
