"""``aic-detect-secrets``: detect-secrets' hook (or ``audit``) with the AIC plugin.

    python -m hygiene.commands.detect_secrets_hook [detect-secrets-hook options] FILE...
    python -m hygiene.commands.detect_secrets_hook audit [audit options] BASELINE

(``python -m hygiene.scan.ds_hook``, the path of earlier releases, runs the same.)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hygiene.cli import report_errors
from hygiene.errors import InputError
from hygiene.integrations.detect_secrets.hook import plugin_file, run_audit, run_hook

PROG = "aic-detect-secrets"


def _run(args: list[str]) -> int:
    try:
        plugin_file()
    except ImportError as exc:
        raise InputError(f"cannot load detect-secrets or the AIC plugin: {exc}") from None
    if args[:1] == ["audit"]:
        return run_audit(args[1:])
    return run_hook(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; exit 2 with one line when the plugin cannot be loaded."""
    args = list(sys.argv[1:] if argv is None else argv)
    return report_errors(lambda: _run(args), prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
