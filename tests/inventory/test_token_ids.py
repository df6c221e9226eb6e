"""One rule for token ids (at the inventory, exported for the command line); broken rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import PAT_PREFIX, find_secrets
from hygiene.errors import InputError
from hygiene.inventory import TOKEN_ID, check_token_id, open_inventory
from tests.helpers import SecretGuard, run_hygiene


@pytest.mark.parametrize("token_id", ["tok_1a2b", "a", "org:tok.1-2_3", "x" * 200])
def test_valid_ids(token_id: str) -> None:
    assert check_token_id(token_id, "--token-id") == token_id


@pytest.mark.parametrize(
    "token_id",
    ["", ".", "..", "../../org/memberships?x=", "a/b", "a b", "tok\n1", "x" * 201, "é", "a%2F"],
)
def test_invalid_ids_are_one_line_input_errors_naming_the_origin(token_id: str) -> None:
    with pytest.raises(InputError) as info:
        check_token_id(token_id, "--token-id")
    message = str(info.value)
    assert message.startswith("--token-id: ")
    assert "\n" not in message


def test_a_token_value_given_as_an_id_is_refused_unseen(guard: SecretGuard) -> None:
    pat = guard.pat()
    for given_id in (pat, pat[:20], "x" + pat):
        with pytest.raises(InputError, match="token value, not a token id") as info:
            check_token_id(given_id, "--token-id")
        guard.capture(str(info.value))


@given(st.text(max_size=40))
def test_accepted_ids_are_exactly_the_rule(token_id: str) -> None:
    ok = bool(TOKEN_ID.fullmatch(token_id)) and token_id not in (".", "..")
    try:
        check_token_id(token_id, "x")
    except InputError:
        accepted = False
    else:
        accepted = True
    looks_secret = token_id.startswith(PAT_PREFIX) or bool(find_secrets(token_id))
    assert accepted == (ok and not looks_secret)


def test_inventory_add_enforces_the_rule(tmp_path: Path, guard: SecretGuard) -> None:
    with open_inventory(tmp_path / "inv.sqlite3") as inventory:
        with pytest.raises(InputError, match="token id"):
            inventory.add("../x", guard.pat(), name="n", scopes=[], expires_at=None)
        assert inventory.entries() == []


@pytest.mark.parametrize(
    ("column", "value", "what"),
    [
        ("scopes", "not json", "scopes"),
        ("scopes", '{"a": 1}', "scopes"),
        ("expires_at", "soon", "expiry"),
    ],
)
def test_broken_rows_are_input_errors_naming_the_row(
    tmp_path: Path, guard: SecretGuard, column: str, value: str, what: str
) -> None:
    path = tmp_path / "inv.sqlite3"
    with open_inventory(path) as inventory:
        inventory.add("tok_a", guard.pat(), name="a", scopes=["s"], expires_at=None)
        inventory.add("tok_b", guard.pat(), name="b", scopes=["s"], expires_at=None)
    db = sqlite3.connect(path)
    db.execute(f"UPDATE tokens SET {column} = ? WHERE token_id = 'tok_b'", (value,))
    db.commit()
    db.close()
    with (
        open_inventory(path) as inventory,
        pytest.raises(InputError, match=f"inventory row 2: .*{what}"),
    ):
        inventory.entries()


@pytest.mark.parametrize("token_id", ["", "..", "../../org/memberships?x="])
def test_register_refuses_a_bad_id_in_one_line(
    token_id: str, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inv.sqlite3"
    proc = run_hygiene(
        guard,
        "tokens",
        "register",
        "--token-id",
        token_id,
        input=(guard.pat() + "\n").encode(),
        env={"HYGIENE_INVENTORY": str(inventory)},
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("hygiene: error: token id: ")
    with open_inventory(inventory, create=False) as opened:
        assert opened.entries() == []
