"""One module per subcommand: each parses its options, calls plain functions and prints."""

from __future__ import annotations

__all__: list[str] = []
