"""detect-secrets plugin file for ``pat_AIC_`` tokens (secret type ``AIC Personal Access Token``).

This file exists in this repository's checkout only; wherever the package is installed,
``detect-secrets scan --plugin "$(hygiene plugin-path)"`` names the package's own module.

    detect-secrets scan --plugin plugins/aic_tokens.py \\
        --disable-filter detect_secrets.filters.heuristic.is_indirect_reference

detect-secrets registers every concrete ``BasePlugin`` subclass in this file's namespace; the
class is imported from the installed ``aic-token-hygiene`` package, so the matching logic is
the package's detection core and a missing package fails loudly (ImportError), never silently.
"""

from __future__ import annotations

from hygiene.integrations.detect_secrets.plugin import AicTokenDetector

__all__ = ["AicTokenDetector"]
