"""SARIF reports (what the Action writes by default) read by revoke-leaked: a real
`hygiene scan --format sarif` report resolves and revokes; hostile SARIF is a one-line exit-2
error or escaped data, never a traceback, a hang or a printed secret."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hygiene.errors import InputError
from hygiene.inventory import open_inventory
from hygiene.revoke.inputs import load_report
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, inventoried_pats, run_hygiene

FP = "sha256:" + "c" * 64


def leak_values(plane: ControlPlane, inventory: Path, guard: SecretGuard, count: int) -> list[str]:
    """``count`` live PATs recorded in ``inventory``; their values (remembered by the guard)."""
    return [value for _, value in inventoried_pats(plane, inventory, guard, count, names="s")]


def sarif(results: list[object]) -> dict[str, object]:
    return {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": results}]}


def result(fp: object = FP, uri: object = "app.log", line: object = 3) -> dict[str, object]:
    return {
        "ruleId": "aic-pat",
        "partialFingerprints": {"secretFingerprint/v1": fp},
        "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}}}
        ],
        "properties": {"masked": "pat_AIC_…cccc"},
    }


def write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "r.sarif"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def revoke(guard: SecretGuard, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = run_hygiene(guard, *args, env=env, prog="revoke-leaked")
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_the_scanners_own_sarif_report_revokes_every_leak(
    control_plane: ControlPlane, guard: SecretGuard, tmp_path: Path
) -> None:
    inventory = tmp_path / "inv.sqlite3"
    values = leak_values(control_plane, inventory, guard, 3)
    log = tmp_path / "app.log"
    log.write_text("".join(f"GET /x?t={v}\n" for v in values), encoding="utf-8")
    report = tmp_path / "hygiene.sarif"
    scan = run_hygiene(guard, "scan", "--format", "sarif", "--output", str(report), str(log))
    assert scan.returncode == 1, scan.stderr
    guard.capture(report.read_bytes())
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(inventory)}
    status, out, err = revoke(guard, env, str(report), "--yes", "--format", "json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["summary"]["revoked"] == 3
    with open_inventory(inventory) as inv:
        assert all(control_plane.state.pat(e.token_id).revoked for e in inv.entries())


def test_sarif_reading_keeps_fingerprint_type_where_and_masked(tmp_path: Path) -> None:
    bearer = {**result("sha256:" + "d" * 64), "ruleId": "bearer-token"}
    leaks = load_report(write(tmp_path, sarif([result(), bearer])))
    assert [(x.key, x.type, x.where, x.masked) for x in leaks] == [
        (FP, "aic-pat", "app.log:3", "pat_AIC_…cccc"),
        ("sha256:" + "d" * 64, "bearer-token", "app.log:3", "pat_AIC_…cccc"),
    ]
    assert load_report(write(tmp_path, sarif([]))) == []


@pytest.mark.parametrize(
    "doc",
    [
        {"runs": [{"results": {"not": "a list"}}]},
        {"runs": [1]},
        sarif([1]),
        sarif([{"ruleId": "aic-pat"}]),  # no partialFingerprints
        sarif([{"partialFingerprints": ["x"]}]),
        sarif([result(fp=None)]),
        sarif([result(fp="sha256:zz")]),
        sarif([result(fp="md5:" + "a" * 32)]),
        sarif([{**result(), "partialFingerprints": {"primaryLocationLineHash": FP}}]),
        # Deeper than the parser's stack (the id keeps it out of PYTEST_CURRENT_TEST).
        pytest.param('{"runs": ' + "[" * 100_000 + "]" * 100_000 + "}", id="deep"),
    ],
)
def test_malformed_sarif_is_one_exit_2_line(
    tmp_path: Path, guard: SecretGuard, doc: object
) -> None:
    report = write(tmp_path, doc)
    with pytest.raises(InputError):
        load_report(report)
    env = {"HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    status, out, err = revoke(guard, env, str(report), "--dry-run")
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not (tmp_path / "inv.sqlite3").exists()


def test_a_token_in_the_fingerprint_field_is_refused_and_never_echoed(
    tmp_path: Path, guard: SecretGuard
) -> None:
    report = write(tmp_path, sarif([result(fp=guard.pat())]))
    env = {"HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    status, _out, err = revoke(guard, env, str(report), "--dry-run")
    assert status == 2
    assert "secretFingerprint/v1" in err  # the rest is checked by the guard at teardown


@pytest.mark.parametrize("where", ["fifo", "zero", "dir"])
def test_a_sarif_path_that_is_no_regular_file_is_refused_at_once(
    tmp_path: Path, guard: SecretGuard, where: str
) -> None:
    report = tmp_path / "r.sarif"
    if where == "fifo":
        os.mkfifo(report)  # no writer: a blocking open would wait for ever
    elif where == "zero":
        report.symlink_to("/dev/zero")  # endless: an unbounded read would exhaust memory
    else:
        report.mkdir()
    status, out, err = revoke(guard, {}, str(report), "--dry-run")
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "r.sarif" in err


def test_hostile_locations_are_escaped_and_masked(tmp_path: Path, guard: SecretGuard) -> None:
    secret = guard.pat()
    uri = f"\x1b]0;owned\x07x.log\u202e{secret}"
    bad_line = {**result(uri=uri, line=True)}  # a bool is no line number
    report = write(tmp_path, sarif([bad_line, result(uri={"not": "text"}, line="7")]))
    env = {"HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    for fmt in ("text", "json"):
        status, out, err = revoke(guard, env, str(report), "--dry-run", "--format", fmt)
        assert status == 1
        assert "\x1b" not in out + err
        assert "\u202e" not in out + err
        assert "unresolved" in out
    leaks = load_report(report)
    assert [x.where.endswith(":") for x in leaks] == [False, False]
    assert leaks[1].where == ""
