"""Process hygiene for every command: no core dumps.

A command holds credentials in memory: ``AIC_PASSWORD``, the session it logged in with, the
tokens a scan found. A crash (or a SIGQUIT, SIGABRT, SIGSEGV sent by anyone who may signal it)
would write all of that to a core file, or hand it to a crash collector. Like ssh-agent and
gpg-agent, every command gives up core dumps before it reads anything: RLIMIT_CORE 0 stops a
core file, and on Linux PR_SET_DUMPABLE 0 also stops a core piped to a collector (which
ignores RLIMIT_CORE) and ptrace by other processes of the same user.
"""

from __future__ import annotations

import contextlib
import sys

# prctl(2): PR_SET_DUMPABLE, with 0 for "not dumpable".
_PR_SET_DUMPABLE = 4


def forbid_core_dumps() -> None:
    """Make this process leave no core dump; silently does what the platform allows."""
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if sys.platform.startswith("linux"):
        with contextlib.suppress(ImportError, OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


__all__ = ["forbid_core_dumps"]
