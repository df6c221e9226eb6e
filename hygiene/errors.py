"""The toolkit's exception tree and the one place where exceptions become exit codes.

    HygieneError                 exit 2: something stopped the command
      UsageError                 bad arguments or environment
      InputError                 a file, report, baseline or inventory that cannot be read
      AuthFailed                 the service answered AUTH_FAILED (or 401 on login)
      ApiError                   the service answered something the command cannot go on with

Messages are one line and never hold a secret: every message passes through the
detection core's masking before it is printed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class HygieneError(Exception):
    """Base of every error the toolkit reports as a one-line message."""

    exit_code: int = EXIT_ERROR


class UsageError(HygieneError):
    """Arguments or environment that make the command impossible."""


class InputError(HygieneError):
    """A file, report, baseline or inventory that cannot be read or trusted."""


class AuthFailed(HygieneError):
    """The service refused the credentials (AUTH_FAILED)."""


class ApiError(HygieneError):
    """The service answered in a way the command cannot continue from."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


def one_line(message: str) -> str:
    """Collapse a message to one masked line, safe to print."""
    from hygiene.detection import mask_secrets

    text = " ".join(str(message).split())
    return mask_secrets(text)


def run_reporting_errors(
    func: Callable[[], int], *, prog: str = "hygiene", stderr: TextIO | None = None
) -> int:
    """Run an entry point; turn every exception into a one-line message and an exit code."""
    err = stderr if stderr is not None else sys.stderr
    try:
        return func()
    except HygieneError as exc:
        print(f"{prog}: error: {one_line(str(exc))}", file=err)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `hygiene scan | head`): not our error to report.
        return EXIT_OK
    except Exception as exc:  # the promise is "never a traceback"
        print(f"{prog}: internal error: {type(exc).__name__}: {one_line(str(exc))}", file=err)
        return EXIT_ERROR
