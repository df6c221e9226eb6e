"""What ``--help`` and error lines tell a newcomer: whole summaries at every level, the
environment a command reads, what each option does, and one error form for every path.

Every error line is ``PROG: error: MESSAGE`` (as :func:`hygiene.cli.report_errors` writes
them), ``PROG`` being the program the user ran, whichever subcommand or layer (click's own
checks, the domain's errors, a command's own failures) speaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from hygiene.cli import COMMANDS, load_command
from hygiene.commands.lines import error_text, program
from tests.helpers import SecretGuard, run_hygiene

GROUPS = ("tokens", "rules", "inventory")


def _walk(name: str, command: click.Command) -> Iterator[tuple[str, click.Command]]:
    yield name, command
    if isinstance(command, click.Group):
        for sub, child in sorted(command.commands.items()):
            yield from _walk(f"{name} {sub}", child)


def _every_command() -> list[tuple[str, click.Command]]:
    return [pair for name in sorted(COMMANDS) for pair in _walk(name, load_command(COMMANDS[name]))]


def _listing(*args: str, columns: int) -> str:
    proc = run_hygiene(None, *args, "--help", env={"COLUMNS": str(columns)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode().split("Commands:", 1)[1]


@pytest.mark.parametrize("columns", [80, 100, 200])
@pytest.mark.parametrize("group", GROUPS)
def test_every_subcommand_has_a_whole_summary(group: str, columns: int) -> None:
    """Click cuts a docstring's first sentence with "..." where it does not fit: each
    subcommand says a whole phrase, and the whole of it is shown."""
    command = load_command(COMMANDS[group])
    assert isinstance(command, click.Group)
    listing = _listing(group, columns=columns)
    assert "..." not in listing
    flat = " ".join(listing.split())
    for name, child in command.commands.items():
        assert child.short_help, f"{group} {name}"
        assert len(child.short_help) <= 50, f"{group} {name}"  # fits beside the names at 80
        assert f"{name} {child.short_help}" in flat, (name, flat)


def test_every_option_says_what_it_does() -> None:
    bare = [
        f"{name} {'/'.join(param.opts)}"
        for name, command in _every_command()
        for param in command.params
        if isinstance(param, click.Option) and not param.help
    ]
    assert bare == []


# What --revoke and the commands that reach the service read from the environment (SPEC.md).
SERVICE = ("AIC_BASE_URL", "AIC_EMAIL", "AIC_PASSWORD", "AIC_TOKEN")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("watch",), (*SERVICE, "AIC_ORG_ID", "HYGIENE_INVENTORY")),
        (("revoke-leaked",), (*SERVICE, "HYGIENE_INVENTORY")),
        (("tokens",), (*SERVICE, "AIC_ORG_ID", "HYGIENE_INVENTORY")),
        (("inventory",), ("HYGIENE_INVENTORY",)),
        (("scan",), ("AIC_BASE_URL",)),
    ],
)
def test_help_names_the_environment_the_command_reads(
    args: tuple[str, ...], names: tuple[str, ...]
) -> None:
    proc = run_hygiene(None, *args, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())
    missing = [name for name in names if name not in text]
    assert missing == []


def test_watch_revoke_points_at_what_it_needs() -> None:
    proc = run_hygiene(None, "watch", "--help", env={"COLUMNS": "80"})
    text = " ".join(proc.stdout.decode().split())
    [revoke] = re.findall(r"--revoke (Revoke [^.]*\.)", text)
    assert "AIC_BASE_URL" in revoke


# --- one error form -----------------------------------------------------------------------


ERRORS = [
    # click's own checks, in subcommands at each depth
    ("hygiene", ("scan", "--nope")),
    ("hygiene", ("scan", "--format", "xml")),
    ("hygiene", ("watch",)),
    ("hygiene", ("rules", "export")),
    ("hygiene", ("rules", "export", "--format", "nope")),
    ("hygiene", ("tokens", "list", "--bogus")),
    ("hygiene", ("tokens", "create", "--days", "many")),
    ("hygiene", ("inventory", "migrate", "--x")),
    ("hygiene", ("fake-server", "--port", "x")),
    ("hygiene", ("install-hooks", "--hook", "post-merge")),
    ("hygiene", ("revoke-leaked", "--nope")),
    ("hygiene", ("no-such-command",)),
    # the domain's errors
    ("hygiene", ("scan", "missing-file")),
    ("hygiene", ("scan", "--staged", "--history")),
    ("hygiene", ("watch", "app.log", "--state", "folder")),
    ("revoke-leaked", ("--nope",)),
    ("revoke-leaked", ("missing-report.json",)),
]


@pytest.mark.parametrize(("prog", "args"), ERRORS)
def test_every_error_line_has_the_one_form(
    prog: str, args: tuple[str, ...], tmp_path: Path, guard: SecretGuard
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "app.log").write_text("")
    env = {"HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3"), "COLUMNS": "80"}
    proc = run_hygiene(guard, *args, cwd=tmp_path, env=env, prog=prog)
    assert proc.returncode == 2, proc.stderr
    [line] = [ln for ln in proc.stderr.decode().splitlines() if "error:" in ln]
    assert line.startswith(f"{prog}: error: "), line
    # One line as click laid it out on several (a choice list): no escaped newline or tab.
    assert "\\n" not in line
    assert "\\t" not in line


def test_a_choice_list_is_one_readable_line(guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "rules", "export")
    [line] = proc.stderr.decode().splitlines()
    assert "Choose from: gitleaks, betterleaks," in line
    assert line.endswith("(see 'hygiene rules export --help')")


def test_a_command_s_own_error_line_names_the_program_that_ran() -> None:
    """The lines a command writes itself (a failed closing logout, a record not written)."""
    seen: list[tuple[str, str]] = []

    @click.command()
    def speak() -> None:
        seen.append((program(), error_text("logout failed: 503")))

    for prog in ("hygiene", "revoke-leaked"):
        speak.main(args=[], prog_name=prog, standalone_mode=False)
    assert seen == [
        ("hygiene", "hygiene: error: logout failed: 503"),
        ("revoke-leaked", "revoke-leaked: error: logout failed: 503"),
    ]
    assert program() == "hygiene"  # outside any command


@pytest.mark.parametrize("args", [("--version",), ("revoke-leaked", "--version")])
def test_revoke_leaked_tells_its_version(args: tuple[str, ...]) -> None:
    prog = "revoke-leaked" if args == ("--version",) else "hygiene"
    proc = run_hygiene(None, *args, prog=prog)
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(r"revoke-leaked, version \d+\.\d+\.\d+\S*\n", proc.stdout.decode())


@pytest.mark.parametrize(
    ("prog", "args", "where"),
    [
        # click raises these without the context they arose in
        ("hygiene", ("tokens", "create", "--scope"), "hygiene tokens create"),
        ("hygiene", ("tokens", "create", "--name", "x", "--days"), "hygiene tokens create"),
        ("hygiene", ("scan", "--format"), "hygiene scan"),
        ("hygiene", ("rules", "export", "--format"), "hygiene rules export"),
        ("hygiene", ("watch", "--state"), "hygiene watch"),
        ("revoke-leaked", ("--ids-from",), "revoke-leaked"),
        ("hygiene", ("revoke-leaked", "--ids-from"), "hygiene revoke-leaked"),
        # and these with it
        ("hygiene", ("tokens", "no-such-command"), "hygiene tokens"),
        ("hygiene", ("--bogus",), "hygiene"),
        ("hygiene", ("no-such-command", "--x"), "hygiene"),
    ],
)
def test_the_help_an_error_points_at_is_the_command_typed(
    prog: str, args: tuple[str, ...], where: str, guard: SecretGuard
) -> None:
    proc = run_hygiene(guard, *args, prog=prog)
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith(f"{prog}: error: ")
    assert line.endswith(f"(see '{where} --help')")
