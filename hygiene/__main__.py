"""``python -m hygiene`` runs the ``hygiene`` command."""

from __future__ import annotations

import sys

from hygiene.cli import main

if __name__ == "__main__":
    sys.exit(main())
