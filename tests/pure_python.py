"""A pytest plugin (``-p tests.pure_python``) that runs the suite without the compiled parts.

Loaded before any test module imports ``hygiene``, it makes ``import
hygiene.masking._fastpath`` and ``import hygiene.masking._dense`` fail as they do where no C
compiler built the extensions, so the Python twins of :mod:`hygiene.masking.fastpath` and the
dense patterns run (``tests/masking/test_fastpath.py`` runs the filter's tests this way in a
subprocess).
"""

from __future__ import annotations

import sys

# A None entry makes `import` raise ImportError (the import system's documented signal).
sys.modules["hygiene.masking._fastpath"] = None  # type: ignore[assignment]
sys.modules["hygiene.masking._dense"] = None  # type: ignore[assignment]
