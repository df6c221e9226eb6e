"""Leaked PATs on a running stand-in, recorded in a temp inventory, remembered by the guard."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from hygiene.commands.revoke import Console
from hygiene.detection import fingerprint, masked_form
from hygiene.inventory import open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard


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
        findings = [
            {
                "path": "app.log",
                "line": n,
                "column": 1,
                "type": "aic-pat",
                "masked": leak.masked,
                "fingerprint": leak.fingerprint,
                "commit": None,
            }
            for n, leak in enumerate(leaks, 1)
        ]
        doc = {
            "tool": "aic-token-hygiene",
            "version": "0.1.0",
            "findings": findings,
            "stats": {"files": 1, "bytes": 1, "seconds": 0.0},
        }
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path


def leak_pats(plane: ControlPlane, inventory: Path, guard: SecretGuard, count: int) -> list[Leak]:
    """Create ``count`` PATs on the stand-in and record them in the inventory."""
    guard.remember(plane.password)
    leaks = []
    with open_inventory(inventory) as inv:
        for n in range(count):
            pat, value = plane.state.create_pat(
                plane.email, "org_main", f"t{n}", ["safes:read"], 30
            )
            guard.remember(value)
            inv.add(
                pat.token_id,
                value,
                name=pat.name,
                scopes=pat.scopes,
                expires_at=None,
                org_id="org_main",
            )
            leaks.append(Leak(pat.token_id, fingerprint(value), masked_form(value)))
    return leaks


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
