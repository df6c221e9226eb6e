"""The ``hygiene`` command group: parse, dispatch, return an int.

Subcommands live one per module in :mod:`hygiene.commands` and are imported only when run, so
``hygiene scan`` in a pre-commit hook never pays for the HTTP client.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import click

from hygiene import __version__
from hygiene.errors import EXIT_ERROR, run_reporting_errors

# name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "scan": "hygiene.commands.scan:command",
    "mask": "hygiene.commands.mask:command",
    "tokens": "hygiene.commands.tokens:group",
    "revoke-leaked": "hygiene.commands.revoke:command",
    "fake-server": "hygiene.commands.fake_server:command",
    "install-hooks": "hygiene.commands.install_hooks:command",
    "rules": "hygiene.commands.rules:group",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        return load_command(target)


def load_command(target: str) -> click.Command:
    """Import ``module:attribute`` and return the click command it names."""
    module_name, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hygiene")
def cli() -> None:
    """Find, mask and revoke leaked pat_AIC_ tokens and bearer credentials."""


def _invoke(command: click.Command, args: Sequence[str] | None, prog: str) -> int:
    def run() -> int:
        try:
            result = command.main(args=args, prog_name=prog, standalone_mode=False)
        except click.exceptions.Exit as exc:
            return int(exc.exit_code)
        except click.Abort:
            raise KeyboardInterrupt from None
        except click.ClickException as exc:
            # Click's own usage errors keep their "Usage:" hint, like every click tool.
            exc.show()
            return EXIT_ERROR
        return int(result) if isinstance(result, int) else 0

    return run_reporting_errors(run, prog=prog)


def main(args: Sequence[str] | None = None) -> int:
    """Entry point of ``hygiene`` and ``python -m hygiene``."""
    return _invoke(cli, args, "hygiene")


def revoke_leaked_main(args: Sequence[str] | None = None) -> int:
    """Entry point of ``revoke-leaked``: the same command as ``hygiene revoke-leaked``."""
    return _invoke(load_command(COMMANDS["revoke-leaked"]), args, "revoke-leaked")


__all__ = ["COMMANDS", "cli", "main", "revoke_leaked_main"]


if __name__ == "__main__":
    sys.exit(main())
