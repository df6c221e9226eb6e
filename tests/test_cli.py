"""Entry points: `hygiene`, `python -m hygiene`, `revoke-leaked`, and the lazy subcommands."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hygiene import __version__
from hygiene.cli import COMMANDS, load_command, main
from tests.helpers import console_script, run_hygiene


def test_python_dash_m_reports_version() -> None:
    proc = run_hygiene(None, "--version")
    assert proc.returncode == 0
    assert __version__ in proc.stdout.decode()


def test_help_lists_every_subcommand() -> None:
    proc = run_hygiene(None, "--help")
    assert proc.returncode == 0, proc.stderr
    for name in COMMANDS:
        assert name in proc.stdout.decode()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_subcommand_loads_and_has_help(name: str) -> None:
    command = load_command(COMMANDS[name])
    assert command.help or command.short_help


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_console_scripts_are_installed() -> None:
    for script in ("hygiene", "revoke-leaked"):
        path = console_script(script)
        proc = subprocess.run([path, "--help"], capture_output=True, check=False, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_revoke_leaked_is_the_same_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "hygiene", "revoke-leaked", "--help"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    direct = subprocess.run(
        [console_script("revoke-leaked"), "--help"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert out.returncode == direct.returncode == 0
    body = out.stdout.decode().split("\n", 1)[1]
    assert body == direct.stdout.decode().split("\n", 1)[1]


def test_every_command_has_a_whole_summary_in_the_help() -> None:
    from hygiene.cli import COMMANDS, SHORT_HELP

    assert set(SHORT_HELP) == set(COMMANDS)
    proc = run_hygiene(None, "--help")
    assert proc.returncode == 0
    listing = proc.stdout.decode()
    for name, summary in SHORT_HELP.items():
        assert f"{name}" in listing
        assert summary in listing  # whole: click cuts what does not fit with "..."
    assert "..." not in listing.split("Commands:", 1)[1]


@pytest.mark.parametrize("prog", ["hygiene", "revoke-leaked"])
def test_both_console_scripts_tell_their_version(prog: str) -> None:
    proc = run_hygiene(None, "--version", prog=prog)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith(f"{prog}, version ")
