"""The installer of the plain git hooks (for repositories without the pre-commit framework).

The scripts are package data beside this module, so an installed package can write them;
``hooks/`` at the repository root holds the same files (a test keeps them identical).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from hygiene.atomic import write_atomically
from hygiene.errors import InputError, UsageError
from hygiene.gitcmd import git_output

NAMES = ("pre-commit", "pre-push")


def hook_text(name: str) -> str:
    """The script of hook ``name``, as shipped in this package (package data)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


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
    names: Sequence[str], *, force: bool, folder: str | None = None
) -> list[Installed]:
    """Write the named hooks; a different existing hook is kept unless ``force`` (then it is
    saved as ``<hook>.bak``). Nothing is written when any hook would be refused."""
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise UsageError(f"unknown hook {unknown[0]!r} (choose from {', '.join(NAMES)})")
    target_dir = folder or hooks_dir()
    plans = [(name, os.path.join(target_dir, name)) for name in names]
    clashes = [path for name, path in plans if _differs(path, hook_text(name))]
    if clashes and not force:
        raise InputError(
            f"{clashes[0]} exists and is not ours; use --force to replace it "
            "(the old hook is kept as .bak)"
        )
    try:
        os.makedirs(target_dir, exist_ok=True)
        return [_install(name, path, path in clashes) for name, path in plans]
    except OSError as exc:
        raise _unusable(target_dir, exc) from None


def _unusable(folder: str, exc: OSError) -> InputError:
    return InputError(
        f"hooks path {folder}: {exc.strerror or exc} (git's core.hooksPath sets it, if set)"
    )


def _differs(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read() != text
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _unusable(os.path.dirname(path), exc) from None


def _install(name: str, path: str, clash: bool) -> Installed:
    existed = os.path.exists(path)
    if clash:
        os.replace(path, path + ".bak")
    # 0o755: git runs hooks as programs, as its samples are.
    write_atomically(path, hook_text(name), mode=0o755)
    action = "replaced" if clash else "unchanged" if existed else "installed"
    return Installed(name, path, action)
