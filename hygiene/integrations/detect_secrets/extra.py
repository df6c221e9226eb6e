"""detect-secrets is the ``detect-secrets`` extra: a missing one is a one-line error.

Installing the toolkit does not pull detect-secrets; only the plugin and the
``aic-detect-secrets`` hook need it, and they say how to get it rather than fail with a
traceback from deep inside an import.
"""

from __future__ import annotations

import importlib

from hygiene.errors import MissingExtra

EXTRA = "detect-secrets"
# The range pyproject.toml's extra and .pre-commit-hooks.yaml's additional_dependencies name.
REQUIREMENT = "detect-secrets>=1.5,<2"
# What pip can install from an index: the extra's own requirement (no index has the toolkit,
# so `pip install 'aic-token-hygiene[detect-secrets]'` would fail).
INSTALL_HINT = (
    f"detect-secrets is not installed: pip install '{REQUIREMENT}' (the {EXTRA} extra; "
    f"in a pre-commit hook: additional_dependencies: ['{REQUIREMENT}'])"
)


def require_detect_secrets() -> None:
    """Raise :class:`MissingExtra` (exit 2, an ImportError too) unless detect-secrets and
    what it needs can be imported (its plugin base imports its own dependencies)."""
    try:
        importlib.import_module("detect_secrets.plugins.base")
    except ImportError as exc:
        raise MissingExtra(INSTALL_HINT) from exc


__all__ = ["EXTRA", "INSTALL_HINT", "REQUIREMENT", "require_detect_secrets"]
