"""Plain git hooks (``pre-commit``, ``pre-push``) shipped as package data, and their installer."""

from __future__ import annotations

from hygiene.integrations.githooks.installer import (
    NAMES,
    Installed,
    hook_text,
    install_hooks,
    pinned_text,
)

__all__ = ["NAMES", "Installed", "hook_text", "install_hooks", "pinned_text"]
