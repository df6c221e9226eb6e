"""aic-token-hygiene: find, mask and revoke leaked control-plane tokens.

The package reads as its four parts: :mod:`hygiene.scan` finds, :mod:`hygiene.masking` masks,
:mod:`hygiene.revoke` (with :mod:`hygiene.api` and :mod:`hygiene.inventory`) revokes, and
:mod:`hygiene.testing` proves, on top of one detection core, :mod:`hygiene.detection`.
"""

from __future__ import annotations

DISTRIBUTION = "aic-token-hygiene"


def __getattr__(name: str) -> str:
    # ``__version__`` comes from the installed distribution's metadata, read on first use:
    # importing importlib.metadata costs about 25 ms, which a pre-commit run never needs.
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__all__ = ["DISTRIBUTION", "__version__"]
