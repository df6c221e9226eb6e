"""Plain git hooks (for repositories without the pre-commit framework) and their installer.

The scripts are kept here so that an installed package can write them; ``hooks/`` in the
repository holds the same text (a test keeps the two identical).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from hygiene.errors import InputError, UsageError
from hygiene.scan.atomic import write_atomically
from hygiene.scan.sources import git_output

PRE_COMMIT = """\
#!/bin/sh
# aic-token-hygiene: refuse a commit whose staged content holds a pat_AIC_ token or a
# bearer credential. Installed by `hygiene install-hooks`; bypass once with --no-verify.
if command -v hygiene >/dev/null 2>&1; then
    exec hygiene scan --staged
fi
echo "pre-commit: hygiene is not installed (pip install aic-token-hygiene); commit refused" >&2
exit 1
"""

PRE_PUSH = """\
#!/bin/sh
# aic-token-hygiene: refuse a push whose new commits add a pat_AIC_ token or a bearer
# credential. git passes "<local ref> <local sha> <remote ref> <remote sha>" lines on stdin.
if ! command -v hygiene >/dev/null 2>&1; then
    echo "pre-push: hygiene is not installed (pip install aic-token-hygiene); push refused" >&2
    exit 1
fi
status=0
while read -r local_ref local_sha remote_ref remote_sha; do
    case "$local_sha" in *[!0]*) ;; *) continue ;; esac  # a deleted ref: nothing to scan
    if git cat-file -e "$remote_sha^{commit}" 2>/dev/null; then
        hygiene scan --history --since "$remote_sha..$local_sha" || status=1
        continue
    fi
    # A new branch (or a remote tip we do not have): the commits no remote-tracking ref has.
    first=$(git rev-list --reverse "$local_sha" --not --remotes | head -n 1)
    if [ -z "$first" ]; then
        continue
    elif git rev-parse -q --verify "$first^" >/dev/null; then
        hygiene scan --history --since "$first^..$local_sha" || status=1
    else
        hygiene scan --history || status=1
    fi
done
exit $status
"""

HOOKS = {"pre-commit": PRE_COMMIT, "pre-push": PRE_PUSH}


@dataclass(frozen=True)
class Installed:
    """What happened to one hook: ``installed``, ``unchanged`` or ``replaced`` (with backup)."""

    name: str
    path: str
    action: str


def hooks_dir() -> str:
    """The current repository's hooks folder (honours ``core.hooksPath``)."""
    out = git_output(["rev-parse", "--git-path", "hooks"], "install-hooks needs a git repository")
    return os.path.abspath(out.decode().strip())


def install_hooks(
    names: Sequence[str], *, force: bool, folder: str | None = None
) -> list[Installed]:
    """Write the named hooks; a different existing hook is kept unless ``force`` (then it is
    saved as ``<hook>.bak``). Nothing is written when any hook would be refused."""
    unknown = [n for n in names if n not in HOOKS]
    if unknown:
        raise UsageError(f"unknown hook {unknown[0]!r} (choose from {', '.join(HOOKS)})")
    target_dir = folder or hooks_dir()
    plans = [(name, os.path.join(target_dir, name)) for name in names]
    clashes = [path for name, path in plans if _differs(path, HOOKS[name])]
    if clashes and not force:
        raise InputError(
            f"{clashes[0]} exists and is not ours; use --force to replace it "
            "(the old hook is kept as .bak)"
        )
    os.makedirs(target_dir, exist_ok=True)
    return [_install(name, path, path in clashes) for name, path in plans]


def _differs(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read() != text
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None


def _install(name: str, path: str, clash: bool) -> Installed:
    existed = os.path.exists(path)
    if clash:
        os.replace(path, path + ".bak")
    # 0o755: git runs hooks as programs, as its samples are.
    write_atomically(path, HOOKS[name], mode=0o755)
    action = "replaced" if clash else "unchanged" if existed else "installed"
    return Installed(name, path, action)
