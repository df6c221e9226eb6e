"""Write a file so that readers see the old content or the new, never half of it."""

from __future__ import annotations

import os
import tempfile

from hygiene.errors import InputError


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".hygiene-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        os.unlink(tmp)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
