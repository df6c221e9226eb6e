"""History's batches in worker processes give what one process gives (findings only: no
secret comes back from a worker), and a bad revision starts no git that streams."""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hygiene.scan.findings import Finding
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources import blobpool, history
from hygiene.scan.sources.blobs import BatchResult
from hygiene.scan.sources.scope import resolve
from tests.helpers import SecretGuard, git, run_hygiene
from tests.scan.test_history_places import _commit


def _busy_repo(repo: Path, guard: SecretGuard) -> None:
    for n in range(12):
        (repo / f"f{n}.txt").write_text(f"line\n{guard.pat()}\n" if n % 3 == 0 else f"{n}\n")
        (repo / f"g{n}.log.bin").write_bytes(gzip.compress(f"x {guard.pat()}\n".encode()))
        _commit(repo, f"commit {n} {guard.pat() if n == 5 else ''}")


def _scan(keep: bool) -> tuple[list[Finding], list[str]]:
    scope = resolve((), ())
    result = history.scan_history(ScanContext(keep_secrets=keep), scope)
    return result.findings, result.errors


def test_workers_find_what_one_process_finds(
    git_repo: Path, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    _busy_repo(git_repo, guard)
    monkeypatch.chdir(git_repo)
    serial, errors = _scan(keep=True)
    assert len(serial) == 4 + 12 + 1
    assert errors == []
    monkeypatch.setattr(blobpool, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(history, "BATCH_OBJECTS", 3)  # many batches, on both workers
    calls: list[int] = []
    real = blobpool._in_workers

    def counted(*args: object, **kwargs: object) -> Iterator[BatchResult]:
        calls.append(1)
        yield from real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(blobpool, "_in_workers", counted)
    pooled, errors = _scan(keep=False)
    assert calls == [1]
    assert errors == []
    assert pooled == serial
    guard.capture(repr(pooled))


def _tattling_git(folder: Path, log: Path, real_git: str) -> None:
    """A ``git`` first on PATH that notes every call, then runs the real one."""
    script = folder / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real_git}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize(
    "args", [("--since", "nope"), ("--ref", "nope"), ("--since", "HEAD..nope")]
)
def test_a_bad_revision_starts_no_streaming_git(
    git_repo: Path, guard: SecretGuard, tmp_path: Path, args: tuple[str, str]
) -> None:
    (git_repo / "a").write_text(f"{guard.pat()}\n")
    _commit(git_repo, "one")
    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.txt"
    bin_dir.mkdir()
    _tattling_git(bin_dir, log, real_git)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
    proc = run_hygiene(guard, "scan", "--history", *args, cwd=git_repo, env={"PATH": path})
    assert proc.returncode == 2
    assert len(proc.stderr.decode().splitlines()) == 1
    calls = log.read_text().splitlines()
    assert calls
    assert all(" rev-parse " in f" {call} " for call in calls), calls


def test_a_repository_without_commits_is_clean(git_repo: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "scan", "--history", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    git(git_repo, "status")  # (the repository is left as it was)


def _stalling_workers_git(folder: Path, pids: Path, real_git: str) -> None:
    """A ``git`` first on PATH: the first ``cat-file --batch`` (this process's own batch) is
    the real one; each later one (a worker's) notes its pid and waits for good."""
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        '  *" --batch "*)\n'
        f'    if [ -e "{pids}/first" ]; then echo $$ > "{pids}/worker-$$.pid"; exec sleep 600; fi\n'
        f'    touch "{pids}/first" ;;\n'
        "esac\n"
        f'exec "{real_git}" "$@"\n'
    )
    script.chmod(0o755)


@pytest.mark.parametrize("signum", [15, 2])
def test_a_signal_while_workers_read_leaves_no_git_running(
    git_repo: Path, guard: SecretGuard, tmp_path: Path, signum: int
) -> None:
    """Past PARALLEL_AFTER bytes the batches go to workers, each with its own cat-file: a
    signal then stops the pool, and each worker's git is killed and reaped on its way out."""
    import random
    import signal
    import subprocess
    import sys
    import time

    from tests.security.test_git import _running

    rng = random.Random(7)
    big = blobpool.PARALLEL_AFTER + (1 << 20)
    (git_repo / "big.bin").write_bytes(rng.randbytes(big))
    for n in range(40):
        (git_repo / f"f{n}.txt").write_text(f"{n}\n")
    (git_repo / "k.txt").write_text(f"{guard.pat()}\n")
    _commit(git_repo, "big")
    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir, pids = tmp_path / "bin", tmp_path / "pids"
    bin_dir.mkdir()
    pids.mkdir()
    _stalling_workers_git(bin_dir, pids, real_git)
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "scan", "--history"],
        cwd=git_repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120  # a guard against a hang, not a verdict
    while not list(pids.glob("worker-*.pid")):
        assert time.monotonic() < deadline, "no worker started its git"
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    guard.capture(out, err)
    assert proc.returncode == 128 + signum, err
    stuck = [int(p.read_text()) for p in pids.glob("worker-*.pid")]
    try:
        assert not [pid for pid in stuck if _running(pid)], "a worker's git outlived the scan"
    finally:
        for pid in stuck:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
