"""``aic-detect-secrets``: detect-secrets' hook (or ``audit``) with the AIC plugin.

    python -m hygiene.commands.detect_secrets_hook [detect-secrets-hook options] FILE...
    python -m hygiene.commands.detect_secrets_hook audit [audit options] BASELINE

(``python -m hygiene.scan.ds_hook``, the path of earlier releases, runs the same.)

``audit`` shows the lines around each secret. Here everything it prints goes through the
toolkit's masking, so a token appears only as its masked form (``pat_AIC_…k3Xz``), and the
interactive session (which reads answers from standard input) is refused unless standard
input is a terminal: piped or closed, it would end in a traceback. ``--report`` and
``--stats`` need no terminal.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

from hygiene.cli import report_errors
from hygiene.display import escape_lines
from hygiene.errors import InputError, UsageError
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


def _run(args: list[str]) -> int:
    try:
        plugin_file()
    except ImportError as exc:
        raise InputError(f"cannot load detect-secrets or the AIC plugin: {exc}") from None
    if args[:1] == ["audit"]:
        return _audit(args[1:])
    with masked_output():  # the hook prints locations only; masked all the same
        return run_hook(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; exit 2 with one line when the plugin cannot be loaded."""
    args = list(sys.argv[1:] if argv is None else argv)
    return report_errors(lambda: _run(args), prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
