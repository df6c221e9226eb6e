"""A folder's listing on real files: a link swapped in after the listing is never read."""

from __future__ import annotations

import os
from pathlib import Path

from hygiene.watch.folder import Folder, _listing
from hygiene.watch.paths import LINK
from tests.helpers import SecretGuard


def test_a_file_swapped_for_a_link_after_the_listing_is_refused(
    tmp_path: Path, guard: SecretGuard
) -> None:
    logs, secret = tmp_path / "logs", tmp_path / "env"
    logs.mkdir()
    secret.write_text(f"AIC_TOKEN={guard.pat()}\n")
    (logs / "app.log").write_text("")
    refused: list[tuple[str, str]] = []
    folder = Folder(str(logs), from_start=True, on_refused=lambda p, r: refused.append((p, r)))
    [(path, follower)] = folder.discover()
    os.unlink(path)
    os.symlink(secret, path)  # swapped before the follower first opens it
    data = b"".join(p.data for _ in range(3) for p in follower.poll())
    assert data == b""
    assert refused == [(path, LINK)]
    guard.capture(data)
    guard.check()


def test_a_subfolder_swapped_for_a_link_is_not_entered(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "other.log").write_text("")
    (tmp_path / "sub").symlink_to(outside, target_is_directory=True)
    assert _listing(str(tmp_path / "sub"), nofollow=True) == []
    paths = [p for p, _ in Folder(str(tmp_path)).discover()]
    assert paths == [str(outside / "other.log")]  # never through the link


def test_deleted_files_stop_counting_against_the_bound(tmp_path: Path) -> None:
    notices: list[str] = []
    folder = Folder(str(tmp_path), max_files=2, notice=notices.append)
    for name in ("a.log", "b.log"):
        (tmp_path / name).write_text("")
    first = dict(folder.discover())
    (tmp_path / "a.log").unlink()
    (tmp_path / "c.log").write_text("")  # dated rotation: a new name, an old one deleted
    assert [Path(p).name for p, _ in folder.discover()] == ["c.log"]
    assert folder.gone == [first[str(tmp_path / "a.log")]]
    assert notices == []
