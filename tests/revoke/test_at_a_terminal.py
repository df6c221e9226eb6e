"""revoke-leaked at a real terminal: the question before the password, the password asked on
the controlling terminal when standard input carries the ids."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import SecretGuard
from tests.revoke.conftest import World
from tests.terminal import Terminal

REVOKE = [
    sys.executable,
    "-c",
    "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())",
]


def _env(world: World) -> dict[str, str]:
    env = world.env()
    del env["AIC_PASSWORD"]
    return env


def test_declining_the_question_never_asks_for_the_password(
    world: World, guard: SecretGuard
) -> None:
    leak = world.leaks[0]
    term = Terminal([*REVOKE, "--token-id", leak.token_id], _env(world))
    term.expect("Revoke 1 token(s)")
    term.send("n\n")
    code, shown = term.finish()
    guard.capture(shown)
    assert code == 1
    assert "Password" not in shown
    assert world.plane.requests == []


def test_the_password_is_asked_after_yes_and_the_token_revoked(
    world: World, guard: SecretGuard
) -> None:
    leak = world.leaks[0]
    term = Terminal([*REVOKE, "--token-id", leak.token_id], _env(world))
    term.expect("Revoke 1 token(s)")
    term.send("y\n")
    asked = term.expect(f"Password for {world.plane.email}: ")
    assert asked.index("Revoke 1 token(s)") < asked.index("Password for")
    term.send(world.plane.password + "\n")
    code, shown = term.finish()
    guard.capture(shown)
    assert code == 0, shown
    assert world.plane.state.pat(leak.token_id).revoked


def test_ids_from_stdin_ask_the_password_on_the_controlling_terminal(
    world: World, guard: SecretGuard
) -> None:
    ids = "".join(leak.token_id + "\n" for leak in world.leaks[:2]).encode()
    term = Terminal([*REVOKE, "--ids-from", "-"], _env(world), stdin=ids)
    term.expect(f"Password for {world.plane.email}: ")
    term.send(world.plane.password + "\n")
    code, shown = term.finish()
    guard.capture(shown)
    assert code == 0, shown
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
