"""Options several commands share, spelled once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def text_or_json(help: str) -> Callable[[F], F]:
    """``--format text|json`` (``fmt``, text by default), with the command's own ``help``."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help=help,
    )


__all__ = ["text_or_json"]
