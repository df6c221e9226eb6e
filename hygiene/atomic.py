"""Write a file so that readers see the old content or the new, never half of it."""

from __future__ import annotations

import os

from hygiene.errors import InputError


def write_atomically(path: str, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    Lines end in ``\n`` on every platform; ``mode`` sets the permissions before the rename
    (the temporary file starts as ``0o600``).
    """
    import tempfile  # here, not at the top: a scan without --output never pays for it

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".hygiene-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        os.unlink(tmp)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
