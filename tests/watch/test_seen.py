"""The state's file positions: kept by path hash and (device, inode), validated on load, and
compacted while the watcher runs (positions change every second)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene.errors import InputError
from hygiene.watch import seen as seen_module
from hygiene.watch.seen import Seen, path_key


def test_positions_survive_a_reload_and_only_changes_are_appended(tmp_path: Path) -> None:
    state = tmp_path / "watch.state"
    seen = Seen.load(state)
    key = path_key("app.log")
    seen.place(key, (1, 2, 30))
    seen.place(key, (1, 2, 30))  # unchanged: not appended again
    seen.place(key, (1, 2, 40))
    seen.close()
    lines = state.read_text().splitlines()
    assert len(lines) == 3  # the header and two positions
    assert "app.log" not in state.read_text()
    assert Seen.load(state).position(key) == (1, 2, 40)


@pytest.mark.parametrize(
    "doc",
    [
        {"path": "app.log", "dev": 1, "ino": 2, "offset": 3},  # a path, not a key
        {"path": "a" * 64, "dev": 1, "ino": 2, "offset": -3},
        {"path": "a" * 64, "dev": 1, "ino": "2", "offset": 3},
        {"path": "a" * 64, "dev": 1, "ino": 2, "offset": True},
        {"path": "a" * 64, "dev": 1, "ino": 2},
    ],
)
def test_a_broken_position_is_refused_in_one_line(tmp_path: Path, doc: dict[str, object]) -> None:
    state = tmp_path / "watch.state"
    state.write_text(
        json.dumps({"version": 2, "watch_state": True}) + "\n" + json.dumps(doc) + "\n"
    )
    with pytest.raises(InputError, match="position") as caught:
        Seen.load(state)
    assert "\n" not in str(caught.value)


def test_the_log_is_compacted_while_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seen_module, "COMPACT_AFTER", 10)
    state = tmp_path / "watch.state"
    seen = Seen.load(state)
    key = path_key("app.log")
    for offset in range(100):
        seen.place(key, (1, 2, offset))
        seen.sync()
        assert len(state.read_text().splitlines()) <= 12
    seen.close()
    assert Seen.load(state).position(key) == (1, 2, 99)
