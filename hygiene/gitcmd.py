"""Running git: one place, so that every call is made the same safe way and fails the same way.

The repository being scanned is the attacker's, and so is its configuration: ``.git/config``
(and ``config.worktree``, ``info/attributes``, the files it includes) can name programs git
runs on its own: an fsmonitor hook on every index read, textconv and external diff drivers,
``gpg.program`` on signed commits, a pager, hooks, ssh or a remote helper for a lazy fetch.
Values given with ``-c`` win over every configuration file, so each call here pins those keys
(:data:`NEUTRAL_CONFIG`), turns off what global options can (pager, replace refs, optional
locks) and leaves to each command the flags that read content literally (``--no-textconv``,
``--no-ext-diff``, ``--text``; see :data:`DIFF_FLAGS`). ``-c`` values reach the git processes
git itself starts (through ``GIT_CONFIG_PARAMETERS``). Nothing here widens what git trusts:
its ``safe.directory`` ownership check still refuses a repository another user owns.

The environment is inherited unchanged: it is the user's (and inside a git hook it names the
index being committed, ``GIT_INDEX_FILE``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import IO, TYPE_CHECKING

from hygiene.errors import InputError

if TYPE_CHECKING:
    import subprocess

# Each key a repository's config could use to run a program, or to make git's output hide or
# bend what is read, pinned to a harmless value.
NEUTRAL_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),  # a hook program run whenever the index is read
    ("core.hooksPath", os.devnull),  # no hook, should a command ever run one
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.gitProxy", "false"),
    ("protocol.allow", "never"),  # no transport at all: a partial clone's lazy fetch fails
    ("credential.helper", ""),
    ("diff.external", ""),
    ("diff.submodule", "short"),  # "log" and "diff" open the submodule's repository
    ("log.showSignature", "false"),  # gpg.program runs for every signed commit shown
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("core.attributesFile", os.devnull),
    ("core.useReplaceRefs", "false"),  # refs/replace/* would swap the objects read
    ("core.quotePath", "false"),
    ("color.ui", "false"),
    ("diff.noprefix", "false"),
    ("diff.mnemonicPrefix", "false"),
    ("diff.relative", "false"),  # would show only the current folder's changes
    ("log.showRoot", "true"),  # "false" hides the first commit's diff
    ("i18n.logOutputEncoding", "UTF-8"),  # another encoding would re-encode messages
    # Files git would open on its own: a FIFO there would hang the scan.
    ("diff.orderFile", os.devnull),
    ("log.mailmap", "false"),  # a .mailmap in the work tree is read by every `git log`
    ("mailmap.file", os.devnull),
    ("mailmap.blob", ""),
)

# Options before the subcommand: no pager, no replace objects, no index refresh written back.
GLOBAL_OPTIONS = ("--no-pager", "--no-replace-objects", "--no-optional-locks")

# Flags for commands that show diffs: content as stored, never through a driver, in the
# layout the parsers expect whatever the config says.
DIFF_FLAGS = (
    "--no-textconv",
    "--no-ext-diff",
    "--text",
    "--no-color",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)

_NOT_A_REPOSITORY = "not a git repository"


def git_argv(args: Sequence[str], *, honour_hooks_path: bool = False) -> list[str]:
    """The full argv for ``git ARGS`` with the repository's configuration neutralised.

    ``honour_hooks_path`` keeps ``core.hooksPath`` as configured: only for asking git where
    the user's hooks live (``hygiene install-hooks``), never for reading content.
    """
    config = []
    for key, value in NEUTRAL_CONFIG:
        if honour_hooks_path and key == "core.hooksPath":
            continue
        config += ["-c", f"{key}={value}"]
    return ["git", *GLOBAL_OPTIONS, *config, *args]


def _reason(stderr: bytes, fallback: str) -> str:
    """git's reason for failing: its first ``fatal:``/``error:`` line (later lines are advice
    or usage text), else its last line."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line.removeprefix(prefix)
    return lines[-1] if lines else fallback


def _not_a_repository() -> str | None:
    """Why the current folder is no usable repository, or None when it is one.

    Asked only after a command failed: some (``git diff``) answer outside a repository with
    their usage text, which would be no reason at all.
    """
    import subprocess

    try:
        proc = subprocess.run(
            git_argv(["rev-parse", "--git-dir"]),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return None
    if proc.returncode == 0:
        return None
    reason = _reason(proc.stderr, _NOT_A_REPOSITORY)
    if _NOT_A_REPOSITORY in reason:
        return f"{_NOT_A_REPOSITORY} (nor is any parent folder)"
    return reason


def failure(what: str, stderr: bytes, *, options: Sequence[str] = ()) -> InputError:
    """The one-line error for a git command that failed: ``what``, then the reason (the
    repository's absence first, since git may not say it)."""
    reason = _not_a_repository() or _reason(stderr, "git failed")
    return InputError(f"{what}: {reason}", options=options)


def _cannot_run(exc: OSError) -> InputError:
    return InputError(f"cannot run git: {exc.strerror or exc}")


def git_output(
    args: Sequence[str],
    what: str,
    *,
    options: Sequence[str] = (),
    honour_hooks_path: bool = False,
    unset: Sequence[str] = (),
) -> bytes:
    """Run git (configuration neutralised, see :func:`git_argv`), return stdout; any failure
    is a one-line :class:`InputError` (exit 2).

    ``what`` starts the message (it may name ``options`` as ``{field}``, see
    :class:`~hygiene.errors.HygieneError`); git's reason follows. ``unset``: environment
    variables git must not see (e.g. a hook's ``GIT_INDEX_FILE`` when listing another
    repository), dropped by ``env -u`` so that the environment is not read here.
    """
    import subprocess  # here: 2 ms of start-up that scans of paths never need

    argv = git_argv(args, honour_hooks_path=honour_hooks_path)
    if unset:
        argv = ["env", *(arg for name in unset for arg in ("-u", name)), *argv]
    try:
        proc = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise _cannot_run(exc) from None
    if proc.returncode != 0:
        raise failure(what, proc.stderr, options=options)
    return proc.stdout


def git_succeeds(args: Sequence[str]) -> bool:
    """Whether ``git ARGS`` (configuration neutralised) exits 0: for the commands whose
    answer is their status (``merge-base --is-ancestor``). Its output is dropped; a git that
    cannot start answers no."""
    import subprocess

    try:
        proc = subprocess.run(
            git_argv(args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return False
    return proc.returncode == 0


# Every git a GitStream started and has not reaped yet.
_LIVE: set[subprocess.Popen[bytes]] = set()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back in this thread for the block (delivered after it). git
    started within inherits the mask: it is stopped with SIGKILL, which no mask holds."""
    import signal

    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, OSError, ValueError):  # no thread signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def stop_all() -> None:
    """Kill and reap every git a :class:`GitStream` started that is still running: for the
    way out of a scan interrupted before a ``with`` block could own its git."""
    for proc in list(_LIVE):
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        _LIVE.discard(proc)


class GitStream:
    """A git process whose output is read as it comes (``with GitStream(...) as git:``).

    Its standard error goes to a temporary file, so a chatty git never blocks on a full pipe;
    leaving the block by an exception (or without :meth:`finish`) kills the process, and it
    is always reaped: no git outlives the scan that started it. ``stdin_from``: another
    git's output, read by this one directly (a pipeline of two gits, no Python in between).
    """

    def __init__(
        self,
        args: Sequence[str],
        what: str,
        *,
        options: Sequence[str] = (),
        stdin: bool = False,
        stdin_from: IO[bytes] | None = None,
    ) -> None:
        import subprocess
        import tempfile

        self.what, self.options = what, tuple(options)
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        try:
            # A signal's exception inside Popen, once git has started, would leave it running
            # and known to nobody: signals wait until it is registered (see stop_all()).
            with _signals_held():
                self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                    git_argv(args),
                    stdin=stdin_from or (subprocess.PIPE if stdin else subprocess.DEVNULL),
                    stdout=subprocess.PIPE,
                    stderr=self._errors,
                )
                _LIVE.add(self.proc)
        except OSError as exc:
            self._errors.close()
            raise _cannot_run(exc) from None

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None  # noqa: S101 - a PIPE
        return self.proc.stdout

    @property
    def stdin(self) -> IO[bytes]:
        if self.proc.stdin is None:
            raise ValueError("this git process was started without standard input")
        return self.proc.stdin

    def finish(self) -> None:
        """Wait for git to end; a failure raises the one-line :class:`InputError`."""
        if self.proc.wait() != 0:
            self._errors.seek(0)
            raise failure(self.what, self._errors.read(1 << 16), options=self.options)

    def kill(self) -> None:
        """Kill git if it still runs (its reader then meets the end of its output)."""
        if self.proc.poll() is None:
            self.proc.kill()

    def stop(self) -> None:
        """Kill git if it still runs, close its pipes and reap it (safe to call twice)."""
        self.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                # A stdin whose buffered rest met a dead reader fails to close: closed all the same.
                with contextlib.suppress(OSError):
                    pipe.close()
        self.proc.wait()
        _LIVE.discard(self.proc)
        self._errors.close()

    def __enter__(self) -> GitStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


__all__ = [
    "DIFF_FLAGS",
    "NEUTRAL_CONFIG",
    "GitStream",
    "failure",
    "git_argv",
    "git_output",
    "git_succeeds",
    "stop_all",
]
