"""The ``aic-detect-secrets`` hook at its path of earlier releases.

``.pre-commit-hooks.yaml`` of revisions users have pinned runs ``python -m hygiene.scan.ds_hook``;
the hook itself is :mod:`hygiene.commands.detect_secrets_hook`.
"""

from __future__ import annotations

import sys

from hygiene.commands.detect_secrets_hook import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
