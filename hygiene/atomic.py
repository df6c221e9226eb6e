"""Write files so that readers see the old content or the new, never half of it; several files
together, so that either all are written or none is."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from hygiene.errors import InputError


def _fail(path: str, exc: BaseException) -> InputError:
    reason = getattr(exc, "strerror", None) or str(exc)
    return InputError(f"cannot write {_shown(path)}: {reason}")


def _shown(path: str) -> str:
    # A name with undecodable bytes (surrogate escapes) is shown with \\xNN escapes.
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _temp_beside(path: str, data: bytes, mode: int | None) -> str:
    """A temporary file in ``path``'s folder holding ``data``; removed again on any failure."""
    import tempfile  # here, not at the top: a scan without --output never pays for it

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".hygiene-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _fail(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _fail(path, exc) from None
        raise
    return tmp


def write_together(files: Sequence[tuple[str, str]], *, mode: int | None = None) -> None:
    """Write every ``(path, text)``: first all temporary files, then all renames.

    Nothing is renamed unless every temporary file could be written (a full disk, an unwritable
    folder, a text that cannot be encoded): then none of the files changes and no temporary
    file is left. Lines end in ``\\n``; ``mode`` sets the permissions (default ``0o600``).
    """
    try:
        blobs = [(path, text.encode("utf-8")) for path, text in files]
    except UnicodeEncodeError as exc:
        raise InputError(f"cannot encode the output as UTF-8: {exc.reason}") from None
    for path, _ in blobs:
        # A folder in the way fails only at its rename, after the renames before it: refused
        # first, so that no file changes.
        if os.path.isdir(path):
            raise InputError(f"cannot write {_shown(path)}: Is a directory")
    temps: list[tuple[str, str]] = []
    try:
        for path, data in blobs:
            temps.append((_temp_beside(path, data, mode), path))
        for n, (tmp, path) in enumerate(temps):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                temps = temps[n:]  # the ones before are in place; remove the rest
                raise _fail(path, exc) from None
        temps = []
    finally:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_atomically(path: str, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    write_together([(path, text)], mode=mode)


__all__ = ["write_atomically", "write_together"]
