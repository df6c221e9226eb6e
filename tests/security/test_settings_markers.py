"""Inline markers (``hygiene: allow``, ``pragma: allowlist secret``) are honoured in tracked
source, not in logs, and a marker hides its own line only, whatever ends the lines.

In a log, whoever gets a line written (a User-Agent, a query string, a login name) writes the
marker: ``watch --revoke`` and ``revoke-leaked --scan`` must act on the token beside it. The
stand-in control plane runs on loopback and the inventory is a real SQLite file.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import open_inventory
from hygiene.scan.matcher.engine import scan_bytes
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, Watch, append, run_hygiene
from tests.watch.test_watch_cli import _leak_pat

MARKERS = ("hygiene: allow", "pragma: allowlist secret")


def _log_lines(tokens: list[str], marker: str) -> list[str]:
    """Access-log lines an attacker shapes: the marker in fields the client controls."""
    shapes: list[Callable[[str], str]] = [
        lambda t: f'10.0.0.7 - - "GET /api?token={t} HTTP/1.1" 200 12 "-" "curl/8.4 ({marker})"',
        lambda t: f"2026-11-27 INFO login user='{marker}' url=https://pam/x?token={t}",
        lambda t: f"2026-11-27 DEBUG retry token={t} # {marker}",
        lambda t: f'{{"ua": "{marker}", "q": "token={t}"}}',
    ]
    return [shapes[n % len(shapes)](t) for n, t in enumerate(tokens)]


def _pats_in_inventory(plane: ControlPlane, db: Path, guard: SecretGuard, n: int) -> list[str]:
    return [_leak_pat(plane, db, guard, f"leak{i}") for i in range(n)]


@pytest.mark.parametrize("marker", MARKERS)
def test_revoke_leaked_scan_ignores_markers_in_a_log(
    control_plane: ControlPlane,
    inventory: Path,
    tmp_path: Path,
    guard: SecretGuard,
    marker: str,
) -> None:
    guard.remember(control_plane.password)
    pats = _pats_in_inventory(control_plane, inventory, guard, 4)
    log = tmp_path / "access.log"
    log.write_text("\n".join(_log_lines(pats, marker)) + "\n")
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(inventory)}
    proc = run_hygiene(
        guard, "--scan", str(log), "--format", "json", "--yes", env=env, prog="revoke-leaked"
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["revoked"] == 4, doc["summary"]
    assert {r["fingerprint"] for r in doc["results"]} == {fingerprint(p) for p in pats}
    assert all(p.revoked for p in control_plane.state.pats())
    with open_inventory(inventory) as inv:
        guard.capture(repr(list(inv.entries())))
    guard.capture(inventory.read_bytes())


def test_revoke_leaked_scan_logs_out_a_session_token_beside_a_marker(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    leaked, _ = control_plane.state.login(control_plane.email, control_plane.password)  # type: ignore[misc]
    guard.remember(leaked)
    log = tmp_path / "app.log"
    log.write_text(f"DEBUG ua='pragma: allowlist secret' Authorization: Bearer {leaked}\n")
    proc = run_hygiene(
        guard, "revoke-leaked", "--scan", str(log), "--format", "json", env=control_plane.env()
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["logged_out"] == 1
    assert control_plane.state.authenticate(leaked) is None


@pytest.mark.parametrize("marker", MARKERS)
def test_watch_revokes_a_token_appended_beside_a_marker(
    control_plane: ControlPlane,
    inventory: Path,
    guard: SecretGuard,
    tmp_path: Path,
    start_watch: Callable[..., Watch],
    marker: str,
) -> None:
    log = tmp_path / "app.log"
    log.write_text("2026-11-27 INFO start\n")
    pats = _pats_in_inventory(control_plane, inventory, guard, 2)
    watch = start_watch("app.log", "--revoke")
    append(log, "\n".join(_log_lines(pats, marker)) + "\n")
    events = [watch.next_event(), watch.next_event()]
    assert {e["status"] for e in events} == {"revoked"}
    assert {e["fingerprint"] for e in events} == {fingerprint(p) for p in pats}
    assert all(p.revoked for p in control_plane.state.pats())
    assert watch.stop() == 0


def test_watch_logs_out_a_session_token_beside_a_marker(
    control_plane: ControlPlane,
    guard: SecretGuard,
    tmp_path: Path,
    start_watch: Callable[..., Watch],
) -> None:
    log = tmp_path / "app.log"
    log.write_text("")
    leaked, _ = control_plane.state.login(control_plane.email, control_plane.password)  # type: ignore[misc]
    guard.remember(leaked)
    watch = start_watch("app.log", "--revoke")
    append(log, f"DEBUG agent='hygiene: allow' headers={{'Authorization': 'Bearer {leaked}'}}\n")
    event = watch.next_event()
    assert (event["action"], event["status"]) == ("logout", "logged_out")
    assert control_plane.state.authenticate(leaked) is None
    assert watch.stop() == 0


@pytest.mark.parametrize("marker", MARKERS)
def test_scan_of_files_still_honours_markers_and_counts_them(
    tmp_path: Path, guard: SecretGuard, marker: str
) -> None:
    pats = [guard.pat() for _ in range(4)]
    (tmp_path / "access.log").write_text("\n".join(_log_lines(pats, marker)) + "\n")
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert (proc.returncode, doc["findings"]) == (0, [])
    assert doc["suppressed"] == {"settings": 0, "baseline": 0, "inline": 4}
    text = run_hygiene(guard, "scan", cwd=tmp_path)
    assert "(4 suppressed: 4 by inline markers)" in text.stderr.decode()


# A marker hides its own line only, under every line-end convention.

ENDINGS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_marker_line_hides_only_itself(guard: SecretGuard, ending: str) -> None:
    nl = ENDINGS[ending]
    first, hidden, last = guard.pat(), guard.pat(), guard.pat()
    data = nl.join([f"a = '{first}'", f"b = '{hidden}'  # hygiene: allow", f"c = '{last}'", ""])
    counted: Counter[str] = Counter()
    hits = scan_bytes(data.encode(), suppressed=counted)
    assert [h.secret.token for h in hits] == [first, last]
    assert counted == {"inline": 1}
    offsets = [data.index(first), data.index(last)]
    if ending == "CR":  # one \n-delimited line: columns count from the file's start
        assert [(h.line, h.column) for h in hits] == [(1, offsets[0] + 1), (1, offsets[1] + 1)]
    else:
        assert [(h.line, h.column) for h in hits] == [(1, 6), (3, 6)]
    without = scan_bytes(data.encode(), markers=False)
    assert [h.secret.token for h in without] == [first, hidden, last]


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_marker_on_a_token_line_hides_it_and_nothing_else_through_the_cli(
    tmp_path: Path, guard: SecretGuard, ending: str
) -> None:
    nl = ENDINGS[ending]
    pats = [guard.pat() for _ in range(6)]
    lines = [
        f"k{n} = '{p}'" + ("  # pragma: allowlist secret" if n == 2 else "")
        for n, p in enumerate(pats)
    ]
    (tmp_path / "old-mac.txt").write_bytes(nl.join(["header", *lines, ""]).encode())
    doc = json.loads(run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path).stdout)
    assert len(doc["findings"]) == 5
    assert doc["suppressed"]["inline"] == 1
    if ending != "CR":
        assert [f["line"] for f in doc["findings"]] == [2, 3, 5, 6, 7]


def test_one_marker_cannot_hide_a_lone_cr_file_across_chunks(
    tmp_path: Path, guard: SecretGuard
) -> None:
    pats = [guard.pat() for _ in range(3)]
    filler = "\r".join(f"log line {n} nothing to see" for n in range(4000))  # > 64 KiB chunk
    body = f"GET /?q=hygiene: allow\r{filler}\rtoken={pats[0]}\r{filler}\rtoken={pats[1]}\r"
    (tmp_path / "big.log").write_bytes((body + f"{filler}\rtoken={pats[2]}\r").encode())
    doc = json.loads(run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path).stdout)
    assert {f["fingerprint"] for f in doc["findings"]} == {fingerprint(p) for p in pats}
    assert doc["suppressed"]["inline"] == 0
