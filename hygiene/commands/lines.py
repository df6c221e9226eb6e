"""How a command's own error lines begin: as :func:`hygiene.cli.report_errors` writes every
other one, with the program the user ran (``hygiene: error: ...``, ``revoke-leaked: error:
...``), whichever subcommand speaks."""

from __future__ import annotations

import click

from hygiene.errors import error_line


def program() -> str:
    """The program the user ran: the root of the click context (``hygiene`` outside one)."""
    ctx = click.get_current_context(silent=True)
    name = ctx.find_root().info_name if ctx is not None else None
    return name or "hygiene"


def error_text(message: str) -> str:
    """``PROG: error: MESSAGE`` for the program the user ran."""
    return error_line(program(), message)


__all__ = ["error_text", "program"]
