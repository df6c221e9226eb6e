"""revoke-leaked at a real terminal: the question before the password, the password asked on
the controlling terminal when standard input carries the ids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import SecretGuard
from tests.revoke.conftest import World
from tests.terminal import Screen

REVOKE = [
    sys.executable,
    "-c",
    "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())",
]


def _env(world: World) -> dict[str, str]:
    env = world.env()
    del env["AIC_PASSWORD"]
    return env


def _answer(screen: Screen, question: str, answer: str) -> None:
    screen.wait_for(lambda shown: question in shown)
    screen.type(answer.encode() + b"\n")


def test_declining_the_question_never_asks_for_the_password(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    screen = Screen([*REVOKE, "--token-id", world.leaks[0].token_id], _env(world), tmp_path)
    _answer(screen, "Revoke 1 token(s)", "n")
    assert screen.finish() == 1
    guard.capture(screen.text)
    assert "Password" not in screen.text
    assert world.plane.requests == []


def test_the_password_is_asked_after_yes_and_the_token_revoked(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    leak = world.leaks[0]
    screen = Screen([*REVOKE, "--token-id", leak.token_id], _env(world), tmp_path)
    _answer(screen, "Revoke 1 token(s)", "y")
    _answer(screen, f"Password for {world.plane.email}: ", world.plane.password)
    assert screen.text.index("Revoke 1 token(s)") < screen.text.index("Password for")
    assert screen.finish() == 0, screen.text
    guard.capture(screen.text)
    assert world.plane.state.pat(leak.token_id).revoked


def test_ids_from_stdin_ask_the_password_on_the_controlling_terminal(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    ids = "".join(leak.token_id + "\n" for leak in world.leaks[:2]).encode()
    screen = Screen([*REVOKE, "--ids-from", "-"], _env(world), tmp_path, stdin=ids)
    _answer(screen, f"Password for {world.plane.email}: ", world.plane.password)
    assert screen.finish() == 0, screen.text
    guard.capture(screen.text)
    assert all(world.plane.state.pat(leak.token_id).revoked for leak in world.leaks[:2])


def test_without_any_terminal_the_message_says_so(world: World, guard: SecretGuard) -> None:
    proc = subprocess.run(
        [*REVOKE, "--ids-from", "-"],
        input=world.leaks[0].token_id.encode(),
        capture_output=True,
        env=_env(world),
        start_new_session=True,  # no controlling terminal, as under cron or CI
        timeout=60,
        check=False,
    )
    guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    assert (
        proc.stderr.decode()
        .strip()
        .endswith("AIC_PASSWORD is not set and no terminal is attached to ask for it")
    )
    assert world.plane.requests == []
