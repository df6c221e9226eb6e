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

Messages are one line and never hold a secret: whoever builds a message from a server's words
hides the credentials it holds (:func:`hide_values`), and :func:`one_line` masks every message
with the detection core and writes what a terminal would act on visibly
(:mod:`hygiene.display`) before it is printed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

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


class MissingExtra(UsageError, ImportError):
    """An optional dependency (a pip extra) is not installed; the message says how to add it.

    An ImportError too, so that ``import`` of a module needing the extra fails the usual way.
    """


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


# Shorter values would blank ordinary words of a message; no credential is that short.
_MIN_HIDDEN = 4


def hide_values(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with each of ``secrets`` (a password, the session tokens a client holds, a
    leaked token being logged out) replaced by its masked form: a server may echo one back in
    words no masking rule recognises. Whoever holds the secrets calls this on the server's
    words; nothing is remembered here."""
    from hygiene.detection import ELLIPSIS, masked_form

    known = sorted({s for s in secrets if s and len(s) >= _MIN_HIDDEN}, key=len, reverse=True)
    for secret in known:  # longest first: a longer one may hold a shorter
        if secret in text:
            # A short secret (a password) keeps no tail: too much of it would show.
            text = text.replace(secret, masked_form(secret) if len(secret) >= 32 else ELLIPSIS)
    return text


def masked_text(text: str) -> str:
    """``text`` with every secret the detection core recognises masked (PATs,
    ``Authorization`` and ``access_token`` values).

    Not the masking engine's key rules: they would read a message's own words ("create
    token: HTTP 403") as a key and its value; the client masks the service's words with the
    engine, and the values it holds (:func:`hide_values`), where it reads them
    (:mod:`hygiene.api.auth`).
    """
    from hygiene.detection import mask_secrets

    return mask_secrets(text)


def one_line(message: str) -> str:
    """A message as one masked line, safe to print on a terminal or in a CI log: secrets
    masked (:func:`masked_text`), then every control character, bidi override or other
    character that does not print written visibly (:func:`hygiene.display.escape`)."""
    from hygiene.display import escape

    return escape(masked_text(str(message).strip()))


def error_line(prog: str, message: str) -> str:
    """The one form of every error line: ``PROG: error: MESSAGE``, ``PROG`` being the program
    the user ran (``hygiene``, ``revoke-leaked``), the message one masked line."""
    return f"{prog}: error: {one_line(message)}"


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
    "MissingExtra",
    "UsageError",
    "error_line",
    "hide_values",
    "masked_text",
    "one_line",
]
