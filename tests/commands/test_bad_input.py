"""Bad input to every command, as a table: real processes, the exit status, exactly one clear
error line on stderr, no secret in any output, nothing half-written.

Each case may paste a token where it does not belong (``{pat}`` in the arguments): click would
echo it back in its usage error; the toolkit must not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers import SecretGuard, git, new_pat

HOOK = "hygiene.commands.detect_secrets_hook"


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]  # after `python -m`; "{pat}" is replaced by a fresh token
    status: int
    says: str  # a word the error line holds
    stdin: bytes | None = b""  # None: file descriptor 0 closed
    setup: Callable[[Path], None] = lambda _root: None
    only_line: bool = True  # the error is the only line on stderr
    env: dict[str, str] = field(default_factory=dict)


def _broken_baseline(root: Path) -> None:
    doc = {"version": "1.5.0", "results": {"a.py": {"hashed_secret": "0" * 40}}}
    (root / "ds.baseline").write_text(json.dumps(doc), encoding="utf-8")


def _not_an_inventory(root: Path) -> None:
    (root / "inventory.sqlite3").write_bytes(b"this is not sqlite\n" * 10)


def _hooks_path_under_a_file(root: Path) -> None:
    git(root, "init", "-q")
    (root / "plain-file").write_text("x\n", encoding="utf-8")
    git(root, "config", "core.hooksPath", str(root / "plain-file" / "hooks"))


def _a_leak(root: Path) -> None:
    (root / "app.py").write_text(f'token = "{new_pat()}"\n', encoding="utf-8")


CASES = [
    Case(
        "extra arg", ("hygiene", "tokens", "register", "--token-id", "tok_x", "{pat}"), 2, "extra"
    ),
    Case("--format", ("hygiene", "scan", "--format", "{pat}"), 2, "--format"),
    Case(
        "--days",
        ("hygiene", "tokens", "create", "--name", "n", "--scope", "s", "--days", "{pat}"),
        2,
        "--days",
    ),
    Case("list --format", ("hygiene", "tokens", "list", "--format", "{pat}"), 2, "--format"),
    Case("fake-server option", ("hygiene", "fake-server", "--rate-limit", "{pat}"), 2, "rate"),
    Case("revoke report is a token", ("hygiene", "revoke-leaked", "{pat}"), 2, "report"),
    Case(
        "revoke --token-id value",
        ("hygiene", "revoke-leaked", "--token-id", "{pat}"),
        2,
        "token value",
    ),
    Case("revoke nothing", ("hygiene", "revoke-leaked"), 2, "nothing to revoke"),
    Case(
        "revoke --ids-from missing",
        ("hygiene", "revoke-leaked", "--ids-from", "nope.txt"),
        2,
        "nope.txt",
    ),
    Case(
        "revoke broken ds baseline",
        ("hygiene", "revoke-leaked", "ds.baseline", "--dry-run"),
        2,
        "ds.baseline",
        setup=_broken_baseline,
    ),
    Case(
        "register without a value",
        ("hygiene", "tokens", "register", "--token-id", "tok_x"),
        2,
        "standard input",
        stdin=b"not a token\n",
    ),
    Case(
        "list broken inventory",
        ("hygiene", "tokens", "list"),
        2,
        "inventory",
        setup=_not_an_inventory,
    ),
    Case("scan - stdin closed", ("hygiene", "scan", "-"), 2, "standard input", stdin=None),
    Case("mask stdin closed", ("hygiene", "mask"), 2, "standard input", stdin=None),
    Case("mask a folder", ("hygiene", "mask", "."), 2, "directory"),
    Case("scan missing path", ("hygiene", "scan", "nope"), 2, "nope", only_line=False),
    Case(
        "scan unwritable --output",
        ("hygiene", "scan", ".", "--output", "no/such/dir/r.json"),
        2,  # an I/O error, findings or not
        "cannot write",
        setup=_a_leak,
        only_line=False,
    ),
    Case(
        "install-hooks hooks path",
        ("hygiene", "install-hooks"),
        2,
        "hooks path",
        setup=_hooks_path_under_a_file,
    ),
    Case("install-hooks --hook", ("hygiene", "install-hooks", "--hook", "{pat}"), 2, "--hook"),
    Case(
        "audit without a terminal",
        (HOOK, "audit", "ds.baseline"),
        2,
        "terminal",
        setup=_broken_baseline,
    ),
    Case(
        "ds hook broken baseline",
        (HOOK, "--baseline", "ds.baseline", "a.py"),
        2,
        "baseline",
        setup=lambda root: (root / "ds.baseline").write_text("{", encoding="utf-8"),
    ),
]


def _run(case: Case, root: Path, pat: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIC_")}
    env.update(HYGIENE_INVENTORY=str(root / "inventory.sqlite3"), **case.env)
    args = [a.replace("{pat}", pat) for a in case.args]
    closed = case.stdin is None
    return subprocess.run(
        [sys.executable, "-m", *args],
        input=None if closed else case.stdin,
        stdin=None if not closed else subprocess.DEVNULL,
        capture_output=True,
        cwd=root,
        env=env,
        timeout=60,
        check=False,
        preexec_fn=(lambda: os.close(0)) if closed else None,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, guard: SecretGuard) -> None:
    root = tmp_path / "work"
    root.mkdir()
    case.setup(root)
    before = set(os.listdir(root))
    proc = _run(case, root, guard.pat())
    guard.capture(proc.stdout, proc.stderr)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == case.status, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, err
    assert case.says.lower() in errors[0].lower(), errors[0]
    if case.only_line:
        assert len(err.splitlines()) == 1, err
    left = set(os.listdir(root)) - before
    assert not [n for n in left if n.startswith(".hygiene-")]  # no temporary file left
    assert "inventory.sqlite3" not in left  # a refused command creates no inventory
