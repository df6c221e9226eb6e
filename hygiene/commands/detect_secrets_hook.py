"""``aic-detect-secrets``: detect-secrets' hook (or ``audit``) with the AIC plugin.

    python -m hygiene.commands.detect_secrets_hook [detect-secrets-hook options] -- FILE...
    python -m hygiene.commands.detect_secrets_hook audit [audit options] BASELINE

``audit`` shows the lines around each secret. Here everything it prints goes through the
toolkit's masking, so a token appears only as its masked form (``pat_AIC_…k3Xz``), and the
interactive session (which reads answers from standard input) is refused unless standard
input is a terminal: piped or closed, it would end in a traceback. ``--report`` and
``--stats`` need no terminal.

``--`` ends the options (the pre-commit hook's entry ends with it, and pre-commit appends the
file names): every argument after it is a file, even one named ``--baseline=x`` or ``-``. Such
names reach detect-secrets as ``./NAME``, so that no parser (detect-secrets' argparse, or the
wrapper's own look for ``--baseline``) can take them for options; a name after ``--`` that is
no file is an error, since pre-commit passes only existing files and an option put there
(a hook's ``args:``) would otherwise be silently scanned as a missing file.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from hygiene.cli import report_errors
from hygiene.display import escape_lines
from hygiene.errors import InputError, MissingExtra, UsageError
from hygiene.integrations.detect_secrets.hook import plugin_file, run_audit, run_hook

PROG = "aic-detect-secrets"
NON_INTERACTIVE = frozenset({"--report", "--stats", "--diff", "-h", "--help"})


# detect-secrets' own colours (reset, bold, red, red background, green, purple): kept. Any
# other escape sequence is the text of a file (a name, a line audit shows): written visibly.
_COLOURS = re.compile(r"\x1b\[(?:0|1|41|91|92|95)m")


def _shown(text: str) -> str:
    from hygiene.masking import mask

    return escape_lines(mask(text), keep=_COLOURS)


class MaskingStream(io.TextIOBase):
    """A text stream that masks secrets in whole lines, and writes what a terminal would act
    on visibly (but detect-secrets' colours), before they reach ``target``."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            done, _, self._pending = self._pending.rpartition("\n")
            self.target.write(_shown(done + "\n"))
        return len(text)

    def flush(self) -> None:
        if self._pending:  # a prompt without a newline: shown now, masked on its own
            self.target.write(_shown(self._pending))
            self._pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")


@contextlib.contextmanager
def masked_output() -> Iterator[None]:
    """Mask everything written to sys.stdout and sys.stderr inside the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = MaskingStream(out), MaskingStream(err)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        sys.stdout, sys.stderr = out, err


def _audit(args: list[str]) -> int:
    interactive = not NON_INTERACTIVE.intersection(args)
    if interactive and not sys.stdin.isatty():
        raise UsageError(
            "audit is interactive and needs a terminal on standard input; for a summary "
            "without one use `audit --report BASELINE` or `audit --stats BASELINE`"
        )
    with masked_output():
        return run_audit(args)


def hook_arguments(args: list[str]) -> list[str]:
    """``args`` with every file name after the first ``--`` made unambiguous: one starting
    with ``-`` written ``./NAME``; a name that is no file is a :class:`UsageError`."""
    if "--" not in args:
        return args
    at = args.index("--")
    files = args[at + 1 :]
    for name in files:
        if not os.path.isfile(name):
            raise UsageError(
                f"{name}: no such file (after --, every argument is a file name; options go "
                "before it: in .pre-commit-config.yaml, in the hook's entry, not args)"
            )
    return [*args[:at], "--", *(os.path.join(os.curdir, n) if n[:1] == "-" else n for n in files)]


def _run(args: list[str]) -> int:
    try:
        plugin_file()
    except MissingExtra:
        raise  # its own line says how to install detect-secrets
    except ImportError as exc:
        raise InputError(f"cannot load detect-secrets or the AIC plugin: {exc}") from None
    if args[:1] == ["audit"]:
        return _audit(args[1:])
    hook_args = hook_arguments(args)
    with masked_output():  # the hook prints locations only; masked all the same
        return run_hook(hook_args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; exit 2 with one line when the plugin cannot be loaded."""
    args = list(sys.argv[1:] if argv is None else argv)
    return report_errors(lambda: _run(args), prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
