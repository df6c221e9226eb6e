"""Running git: one function, so every part reports git's failures the same way."""

from __future__ import annotations

from collections.abc import Sequence

from hygiene.errors import InputError


def git_output(args: Sequence[str], what: str, *, options: Sequence[str] = ()) -> bytes:
    """Run git, return stdout; any failure is a one-line :class:`InputError` (exit 2).

    ``what`` starts the message (it may name ``options`` as ``{field}``, see
    :class:`~hygiene.errors.HygieneError`); git's last line of stderr follows.
    """
    import subprocess  # here: 2 ms of start-up that scans of paths never need

    try:
        proc = subprocess.run(["git", *args], capture_output=True, check=False)
    except OSError as exc:
        raise InputError(f"cannot run git: {exc.strerror}") from None
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        message = f"{what}: {reason[-1] if reason else 'git failed'}"
        raise InputError(message, options=options)
    return proc.stdout


__all__ = ["git_output"]
