"""Reports, baselines and id lists as users hand them in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.commands.revoke import revoke_leaked
from hygiene.detection import find_secrets
from hygiene.errors import InputError
from hygiene.revoke import RevokeOptions
from hygiene.revoke.inputs import check_token_id, load_report, parse_ids
from tests.helpers import SecretGuard
from tests.revoke.conftest import World, declining_console

FP = "sha256:" + "a" * 64


def write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


def test_scan_report_hygiene_baseline_and_detect_secrets_baseline(tmp_path: Path) -> None:
    scan = load_report(
        write(
            tmp_path,
            {
                "findings": [
                    {"fingerprint": FP, "path": "a", "line": 2, "type": "aic-pat", "masked": "m"}
                ]
            },
        )
    )
    assert [(f.key, f.where, f.required) for f in scan] == [(FP, "a:2", True)]
    assert load_report(write(tmp_path, {"version": 1, "fingerprints": [FP]}))[0].key == FP
    baseline = {"results": {"x.py": [{"type": "Secret Keyword", "hashed_secret": "b" * 40}]}}
    (entry,) = load_report(write(tmp_path, baseline))
    assert (entry.key, entry.required) == ("b" * 40, False)


@pytest.mark.parametrize(
    "doc",
    [
        "{",
        "[]",
        {"findings": [{"fingerprint": "sha256:zz"}]},
        {"results": {"a": [{"hashed_secret": 3}]}},
        {"other": 1},
    ],
)
def test_bad_reports_are_input_errors(tmp_path: Path, doc: object) -> None:
    with pytest.raises(InputError):
        load_report(write(tmp_path, doc))


TOKEN_IDS = st.from_regex(r"[A-Za-z0-9._:-]{1,30}", fullmatch=True).filter(
    lambda i: i not in (".", "..") and not find_secrets(i)
)


@given(st.lists(TOKEN_IDS, max_size=20))
def test_id_lists_round_trip_with_comments_and_blanks(ids: list[str]) -> None:
    lines = ["# header", ""] + [f"  {i}  # note" for i in ids]
    assert parse_ids(lines, "f") == ids


@pytest.mark.parametrize("bad", ["a/b", "a b", "", "pat_AIC_" + "q1w2e3r4t5"])
def test_bad_ids_are_refused_naming_where_and_never_echoing_a_token(bad: str) -> None:
    with pytest.raises(InputError) as info:
        check_token_id(bad, "--token-id")
    assert str(info.value).startswith("--token-id: ")
    if bad.startswith("pat_AIC_"):
        assert bad not in str(info.value)
        assert bad[8:] not in str(info.value)


def test_declined_confirmation_sends_nothing(world: World, guard: SecretGuard) -> None:
    asked: list[str] = []
    console = declining_console(asked)
    opts = RevokeOptions(token_ids=(world.leaks[0].token_id,))
    assert revoke_leaked(opts, world.env(), console) == 1
    [shown] = asked  # what will be revoked, then the question
    assert shown.splitlines()[-1] == f"Revoke 1 token(s) at {world.plane.base_url}?"
    assert world.leaks[0].token_id in shown
    assert world.plane.requests == []
    assert not world.plane.state.pat(world.leaks[0].token_id).revoked
