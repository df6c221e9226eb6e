"""The installer of the plain git hooks (for repositories without the pre-commit framework).

The scripts are package data beside this module, so an installed package can write them;
``hooks/`` at the repository root holds the same files (a test keeps them identical). Each
installed copy names the interpreter that installed it on its ``HYGIENE_PYTHON=`` line, so
the hook runs that installation's hygiene from a shell where no venv is active (and, should
that interpreter go, the ``hygiene`` on PATH, or a message saying how to install it).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from hygiene.atomic import write_atomically
from hygiene.errors import InputError, UsageError
from hygiene.gitcmd import git_output

NAMES = ("pre-commit", "pre-push")


# The one line of a shipped hook that install-hooks rewrites.
_PIN = re.compile(r"^HYGIENE_PYTHON=.*$", re.MULTILINE)
_UNPINNED = "HYGIENE_PYTHON=''"


def hook_text(name: str) -> str:
    """The script of hook ``name``, as shipped in this package (package data): unpinned."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def pinned_text(name: str, python: str | None) -> str:
    """Hook ``name`` as install-hooks writes it: run with the interpreter ``python``
    (shell-quoted on its line); unpinned when there is none, or it is not an absolute path
    one line can hold (the hook then looks ``hygiene`` up on PATH)."""
    text = hook_text(name)
    if not python or not os.path.isabs(python) or "\n" in python or "\r" in python:
        return text
    line = f"HYGIENE_PYTHON={shlex.quote(python)}"
    return _PIN.sub(lambda _: line, text, count=1)


def _ours(existing: str, name: str) -> bool:
    """Whether ``existing`` is hook ``name`` as shipped, whatever interpreter it names."""
    return _PIN.sub(_UNPINNED, existing, count=1) == hook_text(name)


@dataclass(frozen=True)
class Installed:
    """What happened to one hook: ``installed``, ``unchanged`` or ``replaced`` (with backup)."""

    name: str
    path: str
    action: str


def hooks_dir() -> str:
    """The current repository's hooks folder (honours ``core.hooksPath``)."""
    # The user's own core.hooksPath decides where hooks go: the one key kept as configured.
    out = git_output(
        ["rev-parse", "--git-path", "hooks"],
        "install-hooks needs a git repository",
        honour_hooks_path=True,
    )
    return os.path.abspath(out.decode().strip())


def install_hooks(
    names: Sequence[str],
    *,
    force: bool,
    folder: str | None = None,
    python: str | None = sys.executable,
) -> list[Installed]:
    """Write the named hooks, each pinned to the interpreter ``python`` (this one by default).

    A hook of ours naming another interpreter is rewritten (``updated``); a different existing
    hook is kept unless ``force`` (then it is saved as ``<hook>.bak``). Nothing is written when
    any hook would be refused."""
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise UsageError(f"unknown hook {unknown[0]!r} (choose from {', '.join(NAMES)})")
    target_dir = folder or hooks_dir()
    plans = [(name, os.path.join(target_dir, name), pinned_text(name, python)) for name in names]
    clashes = [path for name, path, _ in plans if _foreign(path, name)]
    if clashes and not force:
        raise InputError(
            f"{clashes[0]} exists and is not ours; use --force to replace it "
            "(the old hook is kept as .bak)"
        )
    try:
        os.makedirs(target_dir, exist_ok=True)
        return [_install(name, path, text, path in clashes) for name, path, text in plans]
    except OSError as exc:
        raise _unusable(target_dir, exc) from None


def _unusable(folder: str, exc: OSError) -> InputError:
    return InputError(
        f"hooks path {folder}: {exc.strerror or exc} (git's core.hooksPath sets it, if set)"
    )


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unusable(os.path.dirname(path), exc) from None


def _foreign(path: str, name: str) -> bool:
    existing = _read(path)
    return existing is not None and not _ours(existing, name)


def _install(name: str, path: str, text: str, clash: bool) -> Installed:
    existing = _read(path)
    if clash:
        os.replace(path, path + ".bak")
    elif existing == text:
        return Installed(name, path, "unchanged")
    # 0o755: git runs hooks as programs, as its samples are.
    write_atomically(path, text, mode=0o755)
    action = "replaced" if clash else "installed" if existing is None else "updated"
    return Installed(name, path, action)
