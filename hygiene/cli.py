"""The ``hygiene`` command group: parse, dispatch, return an int; and the one place where
exceptions become exit codes and one-line messages (:func:`report_errors`).

Subcommands live one per module in :mod:`hygiene.commands` and are imported only when run, so
``hygiene scan`` in a pre-commit hook never pays for the HTTP client.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import click

from hygiene import DISTRIBUTION
from hygiene.commands.process import forbid_core_dumps
from hygiene.errors import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    HygieneError,
    error_line,
    one_line,
)

# name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "scan": "hygiene.commands.scan:command",
    "mask": "hygiene.commands.mask:command",
    "tokens": "hygiene.commands.tokens:group",
    "revoke-leaked": "hygiene.commands.revoke:command",
    "fake-server": "hygiene.commands.fake_server:command",
    "install-hooks": "hygiene.commands.install_hooks:command",
    "plugin-path": "hygiene.commands.plugin_path:command",
    "watch": "hygiene.commands.watch:command",
    "rules": "hygiene.commands.rules:group",
    "inventory": "hygiene.commands.inventory:group",
}

# What `hygiene --help` says of each command: whole phrases (click would cut the docstrings'
# first sentences at the terminal's width, mid-phrase).
SHORT_HELP: dict[str, str] = {
    "scan": "Find leaked tokens in files, the index, history or a pipe.",
    "mask": "Copy files or a pipe with every secret masked.",
    "tokens": "Create, register, list, export and import PATs.",
    "revoke-leaked": "Revoke what a report, ids or a scan name as leaked.",
    "fake-server": "Run the stand-in control plane on 127.0.0.1.",
    "install-hooks": "Install the plain git hooks into this repository.",
    "watch": "Follow logs; report (and revoke) each new leak.",
    "rules": "Export the detection rules for other tools.",
    "inventory": "Upgrade the token inventory's schema.",
    "plugin-path": "Print the installed detect-secrets plugin's path.",
}

# How the fields that domain errors name (``{since}``) are spelled on the command line.
OPTION_NAMES: dict[str, str] = {
    "paths": "PATH",
    "staged": "--staged",
    "all_files": "--all-files",
    "history": "--history",
    "since": "--since",
    "ref": "--ref",
    "reflog": "--reflog",
    "reports": "REPORT",
    "token_ids": "--token-id",
    "ids_from": "--ids-from",
    "scan": "--scan",
    "days": "--days",
}


def report_errors(
    func: Callable[[], int], *, prog: str = "hygiene", stderr: TextIO | None = None
) -> int:
    """Run an entry point; turn every exception into a one-line message and an exit code."""
    err = stderr if stderr is not None else sys.stderr
    try:
        return func()
    except HygieneError as exc:
        print(error_line(prog, exc.render(OPTION_NAMES)), file=err)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `hygiene scan | head`): not our error to report.
        return EXIT_OK
    except Exception as exc:  # the promise is "never a traceback"
        print(f"{prog}: internal error: {type(exc).__name__}: {one_line(str(exc))}", file=err)
        return EXIT_ERROR


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        command = load_command(target)
        command.short_help = SHORT_HELP.get(cmd_name, command.short_help)
        return _with_version(command) if cmd_name == "revoke-leaked" else command


def _with_version(command: click.Command) -> click.Command:
    """``revoke-leaked`` is a console script of its own: ``--version`` as every one has (the
    same command under ``hygiene`` shows the same help)."""
    if any("--version" in p.opts for p in command.params):
        return command
    return click.version_option(package_name=DISTRIBUTION, prog_name="revoke-leaked")(command)


def load_command(target: str) -> click.Command:
    """Import ``module:attribute`` and return the click command it names."""
    module_name, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION, prog_name="hygiene")
def cli() -> None:
    """Find, mask and revoke leaked pat_AIC_ tokens and bearer credentials."""


def click_error_line(exc: click.ClickException, prog: str, typed: str | None = None) -> str:
    """Click's error as one masked line naming the command and where help is (``typed``: the
    command the arguments name, for an error click raised without its context).

    Click echoes what was typed ("Got unexpected extra argument (pat_AIC_...)", a bad
    ``--format`` or ``--days`` value): a token pasted in the wrong place must not be printed
    back, so extra arguments are counted, not shown, and the rest is masked.
    """
    message = exc.format_message()
    if message.startswith("Got unexpected extra argument"):
        plural = "s" if message.startswith("Got unexpected extra arguments") else ""
        message = f"unexpected extra argument{plural} (not shown: it could be a secret)"
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if isinstance(ctx, click.Context) else typed or prog
    hint = f" (see '{where} --help')" if isinstance(exc, click.UsageError) else ""
    # Click lays a choice list out on lines of their own: one line here, as every error is.
    return error_line(prog, " ".join(message.split()) + hint)


def _typed_path(command: click.Command, prog: str, args: Sequence[str]) -> str:
    """The command the arguments name (``hygiene tokens create``): click reports an option
    missing its value without the context it arose in."""
    path = [prog]
    for arg in args:
        if not isinstance(command, click.Group):
            break
        if arg.startswith("-"):
            continue  # the groups' own options are flags
        found = command.get_command(click.Context(command, info_name=path[-1]), arg)
        if found is None:
            break
        command = found
        path.append(arg)
    return " ".join(path)


def _invoke(command: click.Command, args: Sequence[str] | None, prog: str) -> int:
    forbid_core_dumps()

    def run() -> int:
        try:
            result = command.main(args=args, prog_name=prog, standalone_mode=False)
        except click.exceptions.Exit as exc:
            return int(exc.exit_code)
        except click.Abort:
            raise KeyboardInterrupt from None
        except click.ClickException as exc:
            typed = _typed_path(command, prog, sys.argv[1:] if args is None else args)
            print(click_error_line(exc, prog, typed), file=sys.stderr)
            return EXIT_ERROR
        return int(result) if isinstance(result, int) else 0

    return report_errors(run, prog=prog)


def main(args: Sequence[str] | None = None) -> int:
    """Entry point of ``hygiene`` and ``python -m hygiene``."""
    return _invoke(cli, args, "hygiene")


def revoke_leaked_main(args: Sequence[str] | None = None) -> int:
    """Entry point of ``revoke-leaked``: the same command as ``hygiene revoke-leaked``, with
    ``--version`` as every top-level command has."""
    return _invoke(_with_version(load_command(COMMANDS["revoke-leaked"])), args, "revoke-leaked")


__all__ = [
    "COMMANDS",
    "OPTION_NAMES",
    "SHORT_HELP",
    "cli",
    "click_error_line",
    "main",
    "report_errors",
    "revoke_leaked_main",
]


if __name__ == "__main__":
    sys.exit(main())
