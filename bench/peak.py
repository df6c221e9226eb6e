"""Wall time and peak memory of a command's whole process tree, for the benches.

The command runs under ``/usr/bin/time`` (a small C program: a child forked from the bench
would carry the bench's own peak, since ru_maxrss survives exec). Two figures of memory are
taken and the larger kept: time's ``%M`` (exact, but the largest single process of the tree,
not their sum) and the sum of the RSS of every process under time, sampled from /proc every
``interval`` seconds (a sum, but a peak between samples may be missed). For a tool that pipes
``git log`` into itself, or runs worker processes, the sum is the honest figure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

TIME = "/usr/bin/time"
_PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


@dataclass(frozen=True)
class Measured:
    status: int
    seconds: float
    peak_kib: int
    stderr: str
    timed_out: bool = False


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process now running."""
    parents = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # gone since the listing
        # The command name may hold spaces and parentheses: fields follow the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def tree_rss_kib(root: int) -> int:
    """The summed RSS of all the descendants of ``root`` (not ``root`` itself), now."""
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * _PAGE_KIB
        except (OSError, IndexError, ValueError):
            continue
    return total


def run_measured(
    argv: list[str], cwd: Path | None = None, interval: float = 0.05, timeout: float | None = None
) -> Measured:
    """Run ``argv`` (output discarded, stderr kept) and measure it; past ``timeout`` seconds
    its whole process group is killed (``timed_out``; the peak is then the sampled one)."""
    with (
        open(os.devnull, "wb") as null,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as peak,
    ):
        timed = [TIME, "-f", "%M", "-o", peak.name, *argv]
        started = time.perf_counter()
        proc = subprocess.Popen(
            timed,
            cwd=cwd,
            stdout=null,
            stderr=err,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own group, killed whole on timeout
        )
        stopped = threading.Event()

        def stop() -> None:
            stopped.set()
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, stop) if timeout else None
        if timer is not None:
            timer.start()
        sampled = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(interval):
                sampled[0] = max(sampled[0], tree_rss_kib(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, _ = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        if timer is not None:
            timer.cancel()
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        words = peak.read().split()  # time writes "Command exited ..." before the figure
        largest = int(words[-1]) if words and words[-1].isdigit() else 0
    peak_kib = max(largest, sampled[0])
    return Measured(proc.returncode, seconds, peak_kib, text, stopped.is_set())
