"""Leaked PATs on a running stand-in, recorded in a temp inventory, remembered by the guard."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from hygiene.commands.revoke import Console
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, inventoried_pats, scan_report, seen_as


@dataclass
class Leak:
    token_id: str
    fingerprint: str
    masked: str


@dataclass
class World:
    plane: ControlPlane
    inventory: Path
    leaks: list[Leak]

    def env(self) -> dict[str, str]:
        return {**self.plane.env(), "HYGIENE_INVENTORY": str(self.inventory)}

    def report(self, path: Path, leaks: list[Leak]) -> Path:
        """A `hygiene scan --format json` report naming these leaks."""
        return scan_report(path, [(leak.fingerprint, leak.masked) for leak in leaks])


def leak_pats(plane: ControlPlane, inventory: Path, guard: SecretGuard, count: int) -> list[Leak]:
    """Create ``count`` PATs on the stand-in and record them in the inventory."""
    made = inventoried_pats(plane, inventory, guard, count)
    return [Leak(token_id, *seen_as(value)) for token_id, value in made]


@pytest.fixture
def world(control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard) -> World:
    inventory = tmp_path / "inventory.sqlite3"
    return World(control_plane, inventory, leak_pats(control_plane, inventory, guard, 4))


def declining_console(asked: list[str]) -> Console:
    """A terminal whose user answers "no" to every confirmation; questions go to ``asked``."""

    def decline(question: str) -> bool:
        asked.append(question)
        return False

    return Console(
        stdin=io.StringIO(),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        interactive=True,
        confirm=decline,
    )
