"""Whether a person can be asked: a terminal on standard input, or a controlling one.

``revoke-leaked --ids-from -`` and ``tokens register < token.txt`` read their data from
standard input; a password can still be asked on the controlling terminal (``/dev/tty``, where
``getpass`` asks), as ssh and sudo do.
"""

from __future__ import annotations

import os
import sys


def can_prompt() -> bool:
    """True when a password can be asked without echo: standard input is a terminal, or the
    process has a controlling terminal."""
    if sys.stdin is not None and sys.stdin.isatty():
        return True
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # no controlling terminal (CI, cron, a detached service), or not a POSIX
        return False
    os.close(fd)
    return True


__all__ = ["can_prompt"]
