"""detect-secrets: the ``AIC Personal Access Token`` plugin and the hook that loads it.

detect-secrets is the ``detect-secrets`` extra. The plugin names are imported on first use,
so that this package (and the hook's entry point) loads without it and can say, in one line,
how to install it (:class:`hygiene.errors.MissingExtra`).
"""

from __future__ import annotations

from hygiene.integrations.detect_secrets.hook import run_audit, run_hook

_FROM_PLUGIN = frozenset({"SECRET_TYPE", "AicTokenDetector"})


def __getattr__(name: str) -> object:
    if name in _FROM_PLUGIN:
        from hygiene.integrations.detect_secrets import plugin

        return getattr(plugin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SECRET_TYPE", "AicTokenDetector", "run_audit", "run_hook"]
