"""The toolkit's exception tree and exit codes.

    HygieneError                 exit 2: something stopped the command
      UsageError                 bad arguments or environment
      InputError                 a file, report, baseline or inventory that cannot be read
      AuthFailed                 the service answered AUTH_FAILED (or 401 on login)
      ApiError                   the service answered something the command cannot go on with
      Interrupted                exit 130 / 143: SIGINT or SIGTERM stopped the command

Errors raised by plain functions name the fields they were given (``since needs history``),
never command-line flags: a message template marks each field as ``{field}``, and the command
layer (:func:`hygiene.cli.report_errors`, the one place where exceptions become exit codes and
messages) renders them as the flags users typed (``--since needs --history``).

Messages are one line and never hold a secret: every message passes through the detection
core's masking before it is printed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class HygieneError(Exception):
    """Base of every error the toolkit reports as a one-line message.

    ``options``: the fields the message names as ``{field}`` (see :meth:`render`).
    """

    exit_code: int = EXIT_ERROR

    def __init__(self, message: str, *, options: Sequence[str] = ()) -> None:
        self.template = message
        self.options = tuple(options)
        super().__init__(self.render())

    def render(self, names: Mapping[str, str] | None = None) -> str:
        """The message with each ``{field}`` written as ``names`` says (else the field name)."""
        text = self.template
        for option in self.options:
            text = text.replace("{" + option + "}", (names or {}).get(option, option))
        return text


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


class Interrupted(HygieneError):
    """A signal (SIGINT, SIGTERM) stopped the command; exit ``128 + signal number``."""

    def __init__(self, signum: int, message: str = "interrupted") -> None:
        super().__init__(message)
        self.signum = signum
        self.exit_code = 128 + signum


def one_line(message: str) -> str:
    """Collapse a message to one masked line, safe to print."""
    from hygiene.detection import mask_secrets

    text = " ".join(str(message).split())
    return mask_secrets(text)


__all__ = [
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "ApiError",
    "AuthFailed",
    "HygieneError",
    "InputError",
    "Interrupted",
    "UsageError",
    "one_line",
]
