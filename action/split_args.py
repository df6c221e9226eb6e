"""The action's `args` input split as a shell splits words, with nothing evaluated.

Usage: split_args.py (the input in $INPUT_ARGS). Prints each word followed by a NUL byte,
for action/scan.sh to read into an array. Quotes and backslashes group and escape as in
sh; `$(...)`, backticks, `$VAR`, globs and `~` stay literal text (shlex expands nothing),
so an input cannot run a command on the runner. Unbalanced quotes or a trailing backslash
exit 2 with a one-line message on stderr: a half-understood option list is refused.
"""

from __future__ import annotations

import os
import shlex
import sys


def main() -> int:
    try:
        words = shlex.split(os.environ.get("INPUT_ARGS", ""), comments=False, posix=True)
    except ValueError as error:
        sys.stderr.write(f"{str(error).lower()}\n")
        return 2
    sys.stdout.write("".join(word + "\0" for word in words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
