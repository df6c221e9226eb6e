"""A pytest plugin (``-p tests.pure_python``) that runs the suite without the compiled filter.

Loaded before any test module imports ``hygiene``, it makes ``import
hygiene.masking._fastpath`` fail as it does where no C compiler built the extension, so the
Python twins of :mod:`hygiene.masking.fastpath` run (``tests/masking/test_fastpath.py`` runs
the filter's tests this way in a subprocess).
"""

from __future__ import annotations

import sys

# A None entry makes `import` raise ImportError (the import system's documented signal).
sys.modules["hygiene.masking._fastpath"] = None  # type: ignore[assignment]
