"""A published report must not be a dictionary attack away from a password: a Basic
credential's fingerprint is memory-hard and its masked form shows nothing of it."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from tests.helpers import SecretGuard, run_hygiene

# Passwords people choose (the scanner reports them: a password reading as words is a
# stand-in to it); each is a few guesses away in a cracking dictionary.
PASSWORDS = ("Tr0ub4dor&3", "P@ssw0rd", "qwertyuiop12", "x7Gq!pz2", "N9vB2kLq")


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
@pytest.mark.parametrize("password", PASSWORDS)
def test_a_report_of_a_basic_credential_cannot_be_checked_against_a_dictionary(
    tmp_path: Path, guard: SecretGuard, fmt: str, password: str
) -> None:
    cred = guard.remember(_basic("deploy", password))
    guard.remember(password)
    (tmp_path / "deploy.sh").write_text(
        f'curl -H "Authorization: Basic {cred}" https://registry.internal/v2/\n'
    )
    proc = run_hygiene(guard, "scan", "--format", fmt, str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout.decode()
    plain = hashlib.sha256(cred.encode()).hexdigest()
    # The plain hash (whole, or the 12 digits the text line shows) is what a dictionary attack
    # checks guesses against: neither may be published.
    assert plain[:12] not in out
    assert "scrypt:" in out or fmt == "text"
    # Nothing of the password's encoding shows: no tail after the ellipsis.
    assert "…" + cred[-1] not in out
    assert cred[-4:] not in out
    if fmt == "json":
        (finding,) = json.loads(out)["findings"]
        assert finding["masked"] == "…"
        assert finding["fingerprint"].startswith("scrypt:")


def test_a_baseline_of_a_basic_credential_still_suppresses_it(
    tmp_path: Path, guard: SecretGuard
) -> None:
    cred = guard.remember(_basic("ci", "Tr0ub4dor&3"))
    (tmp_path / "a.env").write_text(f"Authorization: Basic {cred}\n")
    baseline = tmp_path / "baseline.json"
    first = run_hygiene(guard, "scan", "--write-baseline", str(baseline), str(tmp_path / "a.env"))
    assert first.returncode in (0, 1), first.stderr
    assert all(f.startswith("scrypt:") for f in json.loads(baseline.read_text())["fingerprints"])
    again = run_hygiene(guard, "scan", "--baseline", str(baseline), str(tmp_path / "a.env"))
    assert again.returncode == 0, again.stderr
