"""Attacks through the scanned repository's own git configuration, and git failing.

The repository is the attacker's, and so is its ``.git/config``: every key that could make
git run a program (a marker script records any run) or bend what git prints (and so hide a
token from the scan) is set in a real repository, and ``hygiene scan --history``, ``--staged``
and ``--all-files`` must run no program and still find the token. Then: a clear error outside
a repository, and no git left running when ``--history`` fails.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import SecretGuard, git, run_hygiene

MODES = ("--history", "--staged", "--all-files")


@dataclass
class Hostile:
    """A repository with a token committed (``leak.txt``) and another staged (``staged.txt``),
    and a script that records each time anything runs it."""

    repo: Path
    script: Path
    marker: Path

    def config(self, *pairs: tuple[str, str]) -> None:
        for key, value in pairs:
            git(self.repo, "config", key, value)

    def attributes(self, text: str) -> None:
        info = self.repo / ".git" / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(text)

    def ran(self) -> str:
        return self.marker.read_text() if self.marker.exists() else ""


def _script(path: Path, marker: Path, body: str = "echo clean") -> Path:
    # Records its arguments, then acts harmless (prints text that holds no token).
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\n{body}\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def hostile(git_repo: Path, guard: SecretGuard, tmp_path: Path) -> Hostile:
    marker = tmp_path / "ran.txt"
    script = _script(tmp_path / "evil.sh", marker)
    (git_repo / "leak.txt").write_text(f"key = {guard.pat()}\n")
    git(git_repo, "add", "leak.txt")
    git(git_repo, "commit", "-qm", "leak")
    (git_repo / "staged.txt").write_text(f"key = {guard.pat()}\n")
    git(git_repo, "add", "staged.txt")
    return Hostile(git_repo, script, marker)


# What each mode must still report: a path and the token's place in it.
EXPECTED = {
    "--history": ["leak.txt:1:7:"],
    "--staged": ["staged.txt:1:7:"],
    "--all-files": ["leak.txt:1:7:", "staged.txt:1:7:"],
}


def _scan_finds_all(
    hostile: Hostile, guard: SecretGuard, mode: str, cwd: Path | None = None
) -> str:
    proc = run_hygiene(guard, "scan", mode, cwd=cwd or hostile.repo)
    out = proc.stdout.decode()
    assert hostile.ran() == "", f"git ran a program the repository named: {hostile.ran()}"
    assert proc.returncode == 1, proc.stderr
    for place in EXPECTED[mode]:
        assert any(place in line and "aic-pat pat_AIC_…" in line for line in out.splitlines()), out
    return out


def _fsmonitor(h: Hostile) -> None:
    h.config(("core.fsmonitor", str(h.script)))


def _fsmonitor_v1(h: Hostile) -> None:
    h.config(("core.fsmonitor", str(h.script)), ("core.fsmonitorHookVersion", "1"))


def _textconv(h: Hostile) -> None:
    # The driver would also hide the token: it prints "clean" for every blob.
    h.attributes("* diff=hide\n")
    h.config(("diff.hide.textconv", str(h.script)), ("diff.hide.cachetextconv", "false"))


def _textconv_committed_attributes(h: Hostile) -> None:
    (h.repo / ".gitattributes").write_text("*.txt diff=hide\n")
    git(h.repo, "add", ".gitattributes")
    h.config(("diff.hide.textconv", str(h.script)))


def _diff_driver_command(h: Hostile) -> None:
    h.attributes("* diff=hide\n")
    h.config(("diff.hide.command", str(h.script)))


def _binary(h: Hostile) -> None:
    # A diff shown as "Binary files differ" would show no added line at all.
    h.attributes("* -diff\n*.txt diff=hide\n")
    h.config(("diff.hide.binary", "true"), ("core.bigFileThreshold", "1"))


def _diff_external(h: Hostile) -> None:
    h.config(("diff.external", str(h.script)))


def _filters(h: Hostile) -> None:
    h.attributes("* filter=x\n")
    for key in ("clean", "smudge", "process"):
        h.config((f"filter.x.{key}", str(h.script)))
    h.config(("filter.x.required", "true"))


def _pagers(h: Hostile) -> None:
    h.config(("core.pager", str(h.script)), ("pager.log", str(h.script)))
    h.config(("pager.diff", str(h.script)), ("pager.ls-files", str(h.script)))
    h.config(("pager.cat-file", str(h.script)))


def _hooks(h: Hostile) -> None:
    hooks = h.repo / "evil-hooks"
    hooks.mkdir()
    for name in ("post-index-change", "post-checkout", "reference-transaction", "pre-commit"):
        os.symlink(h.script, hooks / name)
    h.config(("core.hooksPath", str(hooks)))


def _signed_commit(h: Hostile) -> None:
    """HEAD rewritten with a (fabricated) signature: showing it runs gpg.program."""
    raw = git(h.repo, "cat-file", "commit", "HEAD")
    head, _, message = raw.partition("\n\n")
    signature = (
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEabcdefgh\n =AbCd\n"
        " -----END PGP SIGNATURE-----"
    )
    signed = f"{head}\n{signature}\n\n{message}"
    oid = git(h.repo, "hash-object", "-t", "commit", "-w", "--stdin", input=signed.encode())
    git(h.repo, "update-ref", "refs/heads/main", oid.strip())
    h.config(("log.showSignature", "true"), ("gpg.program", str(h.script)))
    h.config(("gpg.ssh.program", str(h.script)), ("gpg.x509.program", str(h.script)))


def _signed_commit_by_git(h: Hostile) -> None:
    """A commit signed by ``git commit -S`` through a gpg.program that fabricates signatures."""
    fake = _script(
        h.repo.parent / "fake-gpg.sh",
        h.repo.parent / "signing.txt",
        "cat >/dev/null\n"  # the payload
        'printf "\\n[GNUPG:] SIG_CREATED D 1 8 00 1 ABCD\\n" >&2\n'
        'printf -- "-----BEGIN PGP SIGNATURE-----\\n\\nabcd\\n-----END PGP SIGNATURE-----\\n"',
    )
    (h.repo / "signed.txt").write_text("signed\n")
    git(h.repo, "add", "signed.txt")
    # Only signed.txt: staged.txt stays staged for --staged.
    git(h.repo, "-c", f"gpg.program={fake}", "commit", "-S", "-qm", "signed", "--", "signed.txt")
    h.config(("log.showSignature", "true"), ("gpg.program", str(h.script)))


HOSTILE_CONFIGS: dict[str, Callable[[Hostile], None]] = {
    "core.fsmonitor": _fsmonitor,
    "core.fsmonitor-v1": _fsmonitor_v1,
    "diff.textconv": _textconv,
    "diff.textconv-committed-gitattributes": _textconv_committed_attributes,
    "diff.driver.command": _diff_driver_command,
    "diff.external": _diff_external,
    "diff.binary-attributes": _binary,
    "filter.clean-smudge-process": _filters,
    "core.pager": _pagers,
    "core.hooksPath": _hooks,
    "gpg.program-fabricated-signature": _signed_commit,
    "gpg.program-git-commit-S": _signed_commit_by_git,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", sorted(HOSTILE_CONFIGS))
def test_the_repository_config_runs_no_program_and_hides_nothing(
    attack: str, mode: str, hostile: Hostile, guard: SecretGuard
) -> None:
    HOSTILE_CONFIGS[attack](hostile)
    hostile.marker.unlink(missing_ok=True)  # the set-up's own git calls do not count
    _scan_finds_all(hostile, guard, mode)


def test_all_hostile_keys_at_once(hostile: Hostile, guard: SecretGuard) -> None:
    for name in sorted(HOSTILE_CONFIGS):
        if name not in ("core.hooksPath", "gpg.program-git-commit-S"):
            HOSTILE_CONFIGS[name](hostile)
    hostile.marker.unlink(missing_ok=True)
    for mode in MODES:
        _scan_finds_all(hostile, guard, mode)


def test_a_lazy_fetch_runs_no_ssh_command(hostile: Hostile, guard: SecretGuard) -> None:
    """A partial clone's missing blob would be fetched from the promisor remote, through the
    repository's core.sshCommand: no transport is allowed."""
    missing = "1" * 40
    git(hostile.repo, "update-index", "--add", "--info-only", "--cacheinfo", f"100644,{missing},m")
    hostile.config(
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", "ssh://attacker.invalid/repo.git"),
        ("remote.origin.promisor", "true"),
        ("core.sshCommand", str(hostile.script)),
        ("core.gitProxy", str(hostile.script)),
        ("core.askPass", str(hostile.script)),
        ("credential.helper", f"!{hostile.script}"),
    )
    proc = run_hygiene(guard, "scan", "--staged", cwd=hostile.repo)
    assert hostile.ran() == "", hostile.ran()
    assert proc.returncode == 1, proc.stderr  # the readable blob's finding still counts
    assert "staged.txt:1:7: aic-pat pat_AIC_…" in proc.stdout.decode()
    assert "m: staged blob cannot be read" in proc.stderr.decode()


# Settings that run nothing but would make git's output hide a token or misplace it.


def test_log_show_root_false_hides_no_first_commit(hostile: Hostile, guard: SecretGuard) -> None:
    hostile.config(("log.showRoot", "false"))
    _scan_finds_all(hostile, guard, "--history")


def test_replace_refs_swap_no_commit_away(hostile: Hostile, guard: SecretGuard) -> None:
    """refs/replace/LEAK -> a clean twin: git would read the twin wherever LEAK is."""
    blob = git(hostile.repo, "hash-object", "-w", "--stdin", input=b"nothing here\n").strip()
    tree = git(hostile.repo, "mktree", input=f"100644 blob {blob}\tleak.txt\n".encode()).strip()
    twin = git(hostile.repo, "commit-tree", tree, "-m", "leak").strip()
    git(hostile.repo, "replace", "HEAD", twin)
    assert "nothing here" in git(hostile.repo, "show", "HEAD:leak.txt")  # git reads the twin
    _scan_finds_all(hostile, guard, "--history")


def test_prefix_settings_misplace_no_path(git_repo: Path, guard: SecretGuard) -> None:
    """With no prefixes, ``+++ b/leak.txt`` is the file ``b/leak.txt``, not ``leak.txt``."""
    (git_repo / "b").mkdir()
    (git_repo / "b" / "leak.txt").write_text(f"key = {guard.pat()}\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "leak")
    for key in ("diff.noprefix", "diff.mnemonicPrefix"):
        git(git_repo, "config", key, "true")
        proc = run_hygiene(guard, "scan", "--history", cwd=git_repo)
        assert proc.returncode == 1, proc.stderr
        [line] = proc.stdout.decode().splitlines()
        assert ":b/leak.txt:1:7: aic-pat pat_AIC_…" in line, line


def test_diff_relative_hides_nothing_outside_the_current_folder(
    hostile: Hostile, guard: SecretGuard
) -> None:
    sub = hostile.repo / "sub"
    sub.mkdir()
    hostile.config(("diff.relative", "true"))
    out = _scan_finds_all(hostile, guard, "--history", cwd=sub)
    assert "sub/" not in out


def test_colour_always_bends_no_diff(hostile: Hostile, guard: SecretGuard) -> None:
    hostile.config(("color.ui", "always"), ("color.diff", "always"), ("color.diff.new", "red"))
    _scan_finds_all(hostile, guard, "--history")


@pytest.mark.parametrize("where", ["work-tree .mailmap", "diff.orderFile", "mailmap.file"])
def test_a_fifo_git_would_open_on_its_own_hangs_nothing(
    where: str, hostile: Hostile, guard: SecretGuard, tmp_path: Path
) -> None:
    """git reads .mailmap (every ``git log``) and diff.orderFile (every diff) by itself: a FIFO
    there, with no writer, would block it for good."""
    fifo = hostile.repo / ".mailmap" if where == "work-tree .mailmap" else tmp_path / "fifo"
    os.mkfifo(fifo)
    if where != "work-tree .mailmap":
        hostile.config((where, str(fifo)))
    _scan_finds_all(hostile, guard, "--history")


def test_a_commit_message_is_read_whatever_output_encoding_is_set(
    git_repo: Path, guard: SecretGuard
) -> None:
    token = guard.pat()
    (git_repo / "a.txt").write_text("a\n")
    git(git_repo, "add", "a.txt")
    git(git_repo, "commit", "-qm", f"deploy with {token}")
    git(git_repo, "config", "i18n.logOutputEncoding", "UTF-16")
    proc = run_hygiene(guard, "scan", "--history", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert ":1:13: aic-pat pat_AIC_…" in proc.stdout.decode()


# No repository: one line in the step's words, exit 2.


@pytest.mark.parametrize("mode", MODES)
def test_outside_a_repository_is_one_clear_line(
    mode: str, tmp_path: Path, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No repository above either: git stops looking at tmp_path's parent.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.txt").write_text(f"{guard.pat()}\n")
    proc = run_hygiene(guard, "scan", mode, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"hygiene: error: {mode}")
    assert "not a git repository" in lines[0]
    assert "usage" not in lines[0].lower()
    assert proc.stdout == b""


def test_a_repository_another_user_owns_is_refused_with_git_s_reason(
    hostile: Hostile, guard: SecretGuard, tmp_path: Path
) -> None:
    """safe.directory still applies: the runner widens nothing git trusts."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user")
    hostile.config(("core.fsmonitor", str(hostile.script)))
    os.chown(hostile.repo, 12345, 12345)
    proc = run_hygiene(guard, "scan", "--staged", cwd=hostile.repo)
    os.chown(hostile.repo, 0, 0)
    assert hostile.ran() == ""
    assert proc.returncode == 2, proc.stdout
    [line] = proc.stderr.decode().splitlines()
    assert "dubious ownership" in line
    assert line.startswith("hygiene: error: --staged")


# When --history fails, no git it started is left running.


@pytest.fixture
def stuck_pids(tmp_path: Path) -> Iterator[Path]:
    """A folder where the fake git notes the pids of the gits it keeps waiting; any still
    alive after the test is killed (the test has failed by then)."""
    folder = tmp_path / "pids"
    folder.mkdir()
    yield folder
    for pidfile in folder.glob("*.pid"):
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")  # a zombie is not running (reaped by init when it can)


def _fake_git(folder: Path, pids: Path, real_git: str, failing: str) -> Path:
    """A ``git`` first on PATH: the object walk (``rev-list``) notes its pid and waits for
    good; the git named by ``failing`` fails once it does; every other call is the real git."""
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        f'  *" rev-list "*) echo $$ > "{pids}/walk.pid"; exec sleep 600 ;;\n'
        f'  *"{failing}"*)\n'
        f'    while [ ! -s "{pids}/walk.pid" ]; do sleep 0.05; done\n'
        '    echo "fatal: the listing broke" >&2; exit 128 ;;\n'
        "esac\n"
        f'exec "{real_git}" "$@"\n'
    )
    script.chmod(0o755)
    return script


def test_a_failed_history_scan_leaves_no_git_running(
    hostile: Hostile, guard: SecretGuard, tmp_path: Path, stuck_pids: Path
) -> None:
    """The listing's second git fails while the walk feeding it still runs: one line, exit 2,
    and the walk is killed and reaped."""
    import shutil

    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_git(bin_dir, stuck_pids, real_git, " --batch-check=")
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    proc = run_hygiene(guard, "scan", "--history", cwd=hostile.repo, env={"PATH": path})
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.decode().splitlines()
    assert line == "hygiene: error: --history: the listing broke"
    pid = int((stuck_pids / "walk.pid").read_text())
    assert not _running(pid), "the object walk outlived the scan"


def test_git_chatter_on_stderr_does_not_block_a_stream(
    hostile: Hostile, guard: SecretGuard, tmp_path: Path
) -> None:
    """A git that writes more to stderr than a pipe holds, before its output, must not stall
    the scan (stderr is not a pipe read only at the end)."""
    import shutil

    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" log "*) head -c 400000 /dev/zero | tr "\\0" w >&2 ;; esac\n'
        f'exec "{real_git}" "$@"\n'
    )
    script.chmod(0o755)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    proc = run_hygiene(guard, "scan", "--history", cwd=hostile.repo, env={"PATH": path})
    assert proc.returncode == 1, proc.stderr
    assert "leak.txt:1:7: aic-pat pat_AIC_…" in proc.stdout.decode()


# Which history git stalls, the pid files the scan must have started by then, and a script
# body for it (each notes its pid, then waits for good).
STALLS = {
    "walk": (" rev-list ", ("walk",)),
    "reader": (" --batch ", ("reader",)),
    "attribution": (" --raw ", ("attribution",)),
}


def _waiting_git(folder: Path, pids: Path, real_git: str, stall: str) -> None:
    """A ``git`` first on PATH whose ``stall`` call notes its pid and waits for good."""
    pattern, _ = STALLS[stall]
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        f'  *"{pattern}"*) echo $$ > "{pids}/{stall}.pid"; exec sleep 600 ;;\n'
        "esac\n"
        f'exec "{real_git}" "$@"\n'
    )
    script.chmod(0o755)


@pytest.mark.parametrize("stall", sorted(STALLS))
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_history_leaves_no_git_running(
    signum: int,
    status: int,
    stall: str,
    hostile: Hostile,
    guard: SecretGuard,
    tmp_path: Path,
    stuck_pids: Path,
) -> None:
    import shutil
    import subprocess
    import sys
    import time

    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _waiting_git(bin_dir, stuck_pids, real_git, stall)
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "scan", "--history"],
        cwd=hostile.repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    names = STALLS[stall][1]
    deadline = time.monotonic() + 120  # a guard against a hang, not a verdict
    pidfiles = [stuck_pids / f"{n}.pid" for n in names]
    while not all(f.exists() and f.read_text().strip() for f in pidfiles):
        assert time.monotonic() < deadline, "the scan never started its gits"
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    guard.capture(out, err)
    assert proc.returncode == status, err
    for name in names:
        pid = int((stuck_pids / f"{name}.pid").read_text())
        assert not _running(pid), f"the {name} git outlived the scan"
