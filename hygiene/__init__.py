"""aic-token-hygiene: find, mask and revoke leaked control-plane tokens.

The package reads as its four parts: :mod:`hygiene.scan` finds, :mod:`hygiene.masking` masks,
:mod:`hygiene.revoke` (with :mod:`hygiene.api` and :mod:`hygiene.inventory`) revokes, and
:mod:`hygiene.testing` proves, on top of one detection core, :mod:`hygiene.detection`.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
