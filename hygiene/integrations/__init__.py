"""What plugs the toolkit into other tools: detect-secrets (a plugin and its hook) and plain
git hooks (the scripts and their installer)."""

from __future__ import annotations

__all__: list[str] = []
