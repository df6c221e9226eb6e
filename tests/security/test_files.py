"""Nothing outside the target is read or acted on: symlinks out of a scanned tree, links to
devices, FIFOs and /proc, inputs (reports, baselines, id lists) replaced by endless, blocking
or huge files, and archives of a million members.

Every command runs as a real process with a memory limit and a generous timeout (safety nets
only: the verdicts are exit codes, messages, the server's state and the child's peak memory).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hygiene.detection import fingerprint, masked_form
from hygiene.testing import ControlPlane
from tests.helpers import (
    SecretGuard,
    git,
    inventoried_pats,
    peak_kib,
    scan_report,
    seen_as,
    with_peak_memory,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc, FIFOs, O_NOFOLLOW")

# Address space a child may map: far above what a bounded run needs, far below what reading
# /dev/zero to its end would take (the old code then dies of MemoryError, not the machine).
MEMORY_LIMIT = 3 << 30
SAFETY_TIMEOUT = 180.0
REVOKE = ["-c", "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())"]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    maxrss_kb: int


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(
    guard: SecretGuard,
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    prog: list[str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
) -> Run:
    """Run a command of ours and return its outcome and its own peak memory
    (:func:`tests.helpers.with_peak_memory`)."""
    full_env = {**os.environ, **(env or {})}
    report = Path(tempfile.mkdtemp()) / "peak.kib"
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            with_peak_memory([sys.executable, *(prog or ["-m", "hygiene"]), *args], report),
            stdin=stdin,
            stdout=out,
            stderr=err,
            cwd=cwd,
            env=full_env,
            preexec_fn=_limit_memory,
            start_new_session=True,
        )
        # The launcher and the command it started are one process group: the net kills both.
        timer = threading.Timer(SAFETY_TIMEOUT, os.killpg, (proc.pid, signal.SIGKILL))
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
        out.seek(0)
        err.seek(0)
        result = Run(
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            peak_kib(report),
        )
    guard.capture(result.stdout, result.stderr)
    return result


def one_error_line(run_: Run) -> str:
    """The run's stderr, asserted to hold no traceback and exactly one error line."""
    assert "Traceback" not in run_.stderr
    errors = [line for line in run_.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, run_.stderr
    return errors[0]


def findings(run_: Run) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(run_.stdout)["findings"]
    return found


@pytest.fixture
def outside(tmp_path: Path, guard: SecretGuard) -> tuple[Path, str]:
    """A folder beside the scanned tree holding a PAT in secret.txt."""
    pat = guard.pat()
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(f"token={pat}\n")
    return folder, pat


def make_fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# --- folder walks --------------------------------------------------------------------------


def test_walk_follows_no_symlink_out_of_the_tree(
    tmp_path: Path, guard: SecretGuard, outside: tuple[Path, str]
) -> None:
    folder, _ = outside
    inside = guard.pat()
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "app.cfg").write_text(f"key={inside}\n")
    (tree / "file-link.txt").symlink_to(folder / "secret.txt")
    (tree / "dir-link").symlink_to(folder)
    (tree / "sub" / "relative-link").symlink_to("../../outside/secret.txt")
    (tree / "sub" / "loop").symlink_to(tree)
    (tree / "a").symlink_to(tree / "b")
    (tree / "b").symlink_to(tree / "a")
    (tree / "zero").symlink_to("/dev/zero")
    (tree / "fifo-link").symlink_to(make_fifo(tmp_path / "fifo"))
    environ = guard.pat()
    (tree / "env.txt").symlink_to("/proc/self/environ")
    proc = run(guard, "scan", "tree", "--format", "json", cwd=tmp_path, env={"X": environ})
    assert proc.returncode == 1, proc.stderr
    assert [(f["path"], f["fingerprint"]) for f in findings(proc)] == [
        ("tree/sub/app.cfg", fingerprint(inside))
    ]


def test_walk_skips_a_symlink_to_proc_self_environ(tmp_path: Path, guard: SecretGuard) -> None:
    environ = guard.pat()
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "env.txt").symlink_to("/proc/self/environ")
    (tmp_path / "tree" / "self").symlink_to("/proc/self")
    proc = run(guard, "scan", ".", cwd=tmp_path / "tree", env={"LEAK_VIA_ENVIRON": environ})
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_a_symlink_swapped_in_after_the_walk_is_not_read(
    tmp_path: Path, guard: SecretGuard, outside: tuple[Path, str]
) -> None:
    """The walk lists a regular file; before it is opened, it becomes a symlink out of the tree,
    a FIFO, or its folder a symlink: the open is refused, never followed, never blocked."""
    from hygiene.scan.decoders import finder_for
    from hygiene.scan.findings import ScanResult
    from hygiene.scan.scancontext import ScanContext
    from hygiene.scan.sources.files import Excluder, FileTarget, walk
    from hygiene.scan.sources.one_file import scan_target

    folder, pat = outside
    tree = tmp_path / "tree"
    (tree / "d").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "d/c.txt"):
        (tree / name).write_text("nothing here\n")
    targets = list(walk(str(tree), Excluder(())))
    assert len(targets) == 3
    assert all(isinstance(t, FileTarget) for t in targets)
    (tree / "a.txt").unlink()
    (tree / "a.txt").symlink_to(folder / "secret.txt")
    (tree / "b.txt").unlink()
    make_fifo(tree / "b.txt")
    (tree / "d").rename(tmp_path / "d-old")
    (tree / "d").symlink_to(folder)
    (folder / "c.txt").write_text(f"key={pat}\n")
    result = ScanResult()
    ctx = ScanContext(finder=finder_for(None))
    for target in targets:
        assert isinstance(target, FileTarget)
        result.add(scan_target(target, ctx))
    assert result.detections == []
    assert result.files == 0
    assert len(result.errors) == 3
    assert all("changed since it was listed" in e for e in result.errors), result.errors


# --- --all-files ---------------------------------------------------------------------------


def test_all_files_reads_no_tracked_symlink(
    git_repo: Path, guard: SecretGuard, outside: tuple[Path, str]
) -> None:
    folder, _ = outside
    inside, environ = guard.pat(), guard.pat()
    (git_repo / "app.cfg").write_text(f"key={inside}\n")
    (git_repo / "link.cfg").symlink_to(folder / "secret.txt")
    (git_repo / "env.cfg").symlink_to("/proc/self/environ")
    (git_repo / "zero.cfg").symlink_to("/dev/zero")
    (git_repo / "conf").mkdir()
    (git_repo / "conf" / "secret.txt").write_text("nothing\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "links")
    # The work tree, unlike the index, now has a symlinked folder where a tracked one was.
    (git_repo / "conf" / "secret.txt").unlink()
    (git_repo / "conf").rmdir()
    (git_repo / "conf").symlink_to(folder)
    proc = run(guard, "scan", "--all-files", "--format", "json", cwd=git_repo, env={"X": environ})
    assert proc.returncode == 1, proc.stderr
    assert [(f["path"], f["fingerprint"]) for f in findings(proc)] == [
        ("app.cfg", fingerprint(inside))
    ]


# --- paths named on the command line -------------------------------------------------------


def test_an_explicit_symlink_to_a_regular_file_is_followed(
    tmp_path: Path, guard: SecretGuard, outside: tuple[Path, str]
) -> None:
    folder, pat = outside
    (tmp_path / "named").symlink_to(folder / "secret.txt")
    proc = run(guard, "scan", "named", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [f["fingerprint"] for f in findings(proc)] == [fingerprint(pat)]


@pytest.mark.parametrize(
    ("target", "what"),
    [
        ("/dev/zero", "a character device"),
        ("/dev/urandom", "a character device"),
        ("/proc/self/environ", "a file of /proc or /sys"),
        ("/proc/self/mem", "a file of /proc or /sys"),
        ("/proc/self", "a file of /proc or /sys"),
        ("fifo", "a FIFO"),
        ("sock", "a socket"),
    ],
)
def test_an_explicit_symlink_to_a_special_file_is_refused(
    tmp_path: Path, guard: SecretGuard, target: str, what: str
) -> None:
    environ = guard.pat()
    make_fifo(tmp_path / "fifo")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        (tmp_path / "link").symlink_to(target)
        (tmp_path / "clean.txt").write_text("clean\n")
        proc = run(guard, "scan", "link", "clean.txt", cwd=tmp_path, env={"X": environ})
    assert proc.returncode == 2, proc.stderr
    assert one_error_line(proc) == f"hygiene: error: link: a symlink to {what}, not followed"
    assert "in 1 file" in proc.stderr  # the other path was scanned


def test_a_path_through_a_symlinked_folder_into_proc_is_refused(
    tmp_path: Path, guard: SecretGuard
) -> None:
    environ = guard.pat()
    (tmp_path / "cfg").symlink_to("/proc/self")
    for named in ("cfg/environ", "cfg/./environ", "cfg/fd/../environ"):
        proc = run(guard, "scan", named, cwd=tmp_path, env={"X": environ})
        assert proc.returncode == 2, proc.stderr
        assert "a symlink to a file of /proc or /sys, not followed" in one_error_line(proc)


def test_named_fifos_descriptors_and_pseudo_files_still_work(
    tmp_path: Path, guard: SecretGuard
) -> None:
    """What the user names as it is keeps working: a FIFO with a writer, /dev/stdin, and
    /proc/self/environ named directly (the user's own environment, asked for)."""
    pats = [guard.pat() for _ in range(3)]
    fifo = make_fifo(tmp_path / "fifo")

    def write() -> None:
        with open(fifo, "w") as f:
            f.write(f"key={pats[0]}\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with tempfile.TemporaryFile() as stdin:
        stdin.write(f"key={pats[1]}\n".encode())
        stdin.seek(0)
        proc = run(
            guard,
            "scan",
            "fifo",
            "/dev/stdin",
            "/proc/self/environ",
            "--format",
            "json",
            cwd=tmp_path,
            env={"X": pats[2]},
            stdin=stdin.fileno(),
        )
    writer.join(timeout=SAFETY_TIMEOUT)
    assert proc.returncode == 1, proc.stderr
    assert sorted(f["fingerprint"] for f in findings(proc)) == sorted(map(fingerprint, pats))


# --- revoke-leaked --scan against the stand-in ---------------------------------------------


def test_revoke_scan_never_revokes_a_token_outside_the_folder(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inventory.sqlite3"
    (inside_id, inside), (file_id, in_file), (env_id, in_env), (dir_id, in_dir) = inventoried_pats(
        control_plane, inventory, guard, 4
    )
    elsewhere = tmp_path / "runner-home"
    (elsewhere / "deep").mkdir(parents=True)
    (elsewhere / "credentials").write_text(f"token={in_file}\n")
    (elsewhere / "deep" / "cfg").write_text(f"token={in_dir}\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app.log").write_text(f"deploy token={inside}\n")
    (logs / "creds.log").symlink_to(elsewhere / "credentials")
    (logs / "environ.log").symlink_to("/proc/self/environ")
    (logs / "more").symlink_to(elsewhere)
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(inventory), "RUNNER_PAT": in_env}
    proc = run(guard, "--scan", "logs", "--format", "json", cwd=tmp_path, env=env, prog=REVOKE)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(r["token_id"], r["status"]) for r in doc["results"]] == [(inside_id, "revoked")]
    state = control_plane.state
    assert state.pat(inside_id).revoked
    assert not any(state.pat(i).revoked for i in (file_id, env_id, dir_id))
    deletes = [r.path for r in control_plane.requests if r.method == "DELETE"]
    assert deletes == [f"/api/v1/auth/api-tokens/{inside_id}"]


def test_revoke_scan_of_a_link_to_proc_is_refused_and_nothing_sent(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inventory.sqlite3"
    [(env_id, in_env)] = inventoried_pats(control_plane, inventory, guard, 1)
    (tmp_path / "job.log").symlink_to("/proc/self/environ")
    control_plane.clear_requests()
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(inventory), "RUNNER_PAT": in_env}
    proc = run(guard, "--scan", "job.log", "--format", "json", cwd=tmp_path, env=env, prog=REVOKE)
    assert "job.log: a symlink to a file of /proc or /sys, not followed" in proc.stderr
    assert proc.returncode != 0
    assert not control_plane.state.pat(env_id).revoked
    assert not [r for r in control_plane.requests if r.method == "DELETE"]


# --- reports, baselines, id lists ----------------------------------------------------------


def _hostile_input(kind: str, tmp_path: Path) -> Path:
    path = tmp_path / "input.json"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        make_fifo(path)  # no writer, ever
    elif kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(300 << 20)  # 300 MB of zeros, no disk used
    elif kind == "folder":
        path.mkdir()
    elif kind == "environ":
        path.symlink_to("/proc/self/environ")
    return path


HOSTILE = ["dev-zero", "fifo", "sparse", "folder", "environ"]
REASONS = {
    "dev-zero": "not a regular file (a character device)",
    "fifo": "not a regular file (a FIFO)",
    "sparse": "larger than 256 MiB, not read",
    "folder": "not a regular file (a directory)",
    "environ": "a pseudo-file of /proc or /sys, not read",
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_report_is_one_bounded_error(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard, kind: str
) -> None:
    guard.remember(control_plane.password)
    report = _hostile_input(kind, tmp_path)
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    proc = run(guard, str(report), cwd=tmp_path, env=env, prog=REVOKE)
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc)
    if kind == "folder":  # click's own check of the argument comes first
        assert line.endswith(f"File '{report}' is a directory. (see 'revoke-leaked --help')")
    else:
        assert line.endswith(f"report {report}: {REASONS[kind]}")
    assert proc.maxrss_kb < 200_000
    assert control_plane.requests == []


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_ids_from_is_one_bounded_error(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard, kind: str
) -> None:
    guard.remember(control_plane.password)
    ids = _hostile_input(kind, tmp_path)
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    proc = run(guard, "--ids-from", str(ids), cwd=tmp_path, env=env, prog=REVOKE)
    assert proc.returncode == 2, proc.stderr
    assert one_error_line(proc).endswith(f"--ids-from {ids}: {REASONS[kind]}")
    assert proc.maxrss_kb < 200_000
    assert control_plane.requests == []


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_baseline_is_one_bounded_error(
    tmp_path: Path, guard: SecretGuard, kind: str
) -> None:
    baseline = _hostile_input(kind, tmp_path)
    (tmp_path / "a.txt").write_text(f"key={guard.pat()}\n")
    proc = run(guard, "scan", "a.txt", "--baseline", str(baseline), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert one_error_line(proc).endswith(f"baseline {baseline}: {REASONS[kind]}")
    assert proc.maxrss_kb < 200_000
    assert proc.stdout == ""  # refused before anything was scanned or reported


def test_a_report_reached_through_a_symlink_still_reads(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    inventory = tmp_path / "inventory.sqlite3"
    [(token_id, value)] = inventoried_pats(control_plane, inventory, guard, 1)
    scan_report(tmp_path / "report.json", [seen_as(value)])
    (tmp_path / "latest.json").symlink_to(tmp_path / "report.json")
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(inventory)}
    proc = run(guard, "latest.json", "--format", "json", cwd=tmp_path, env=env, prog=REVOKE)
    assert proc.returncode == 0, proc.stderr
    assert control_plane.state.pat(token_id).revoked


# --- hygiene mask FILE ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("named", "reason"),
    [
        ("/dev/zero", "a character device, not masked"),
        ("zero-link", "a character device, not masked"),
        ("/proc/self/mem", "cannot read: Input/output error"),
        ("folder", "is a directory"),
        ("sock", "a socket, not masked"),
    ],
)
def test_mask_refuses_what_is_not_a_file_or_a_pipe(
    tmp_path: Path, guard: SecretGuard, named: str, reason: str
) -> None:
    (tmp_path / "zero-link").symlink_to("/dev/zero")
    (tmp_path / "folder").mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        proc = run(guard, "mask", named, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert one_error_line(proc) == f"hygiene: error: {named}: {reason}"
    assert proc.maxrss_kb < 200_000


def test_mask_still_copies_a_fifo_and_stdin(tmp_path: Path, guard: SecretGuard) -> None:
    pats = [guard.pat(), guard.pat()]
    fifo = make_fifo(tmp_path / "fifo")
    writer = threading.Thread(target=lambda: fifo.write_text(f"one {pats[0]}\n"), daemon=True)
    writer.start()
    with tempfile.TemporaryFile() as stdin:
        stdin.write(f"two {pats[1]}\n".encode())
        stdin.seek(0)
        proc = run(guard, "mask", "fifo", "/dev/stdin", cwd=tmp_path, stdin=stdin.fileno())
    writer.join(timeout=SAFETY_TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"one {masked_form(pats[0])}\ntwo {masked_form(pats[1])}\n"


# --- the safe-open helper itself -----------------------------------------------------------


def test_the_cap_holds_while_reading_not_only_by_fstat() -> None:
    """A file that grows after fstat (a log being written) is refused once past the cap."""
    from hygiene.errors import InputError
    from hygiene.safefile import _read_capped

    served: list[int] = []

    def endless(n: int) -> bytes:
        served.append(n)
        return b"x" * n

    with pytest.raises(InputError, match=r"^report r: larger than 1 MiB, not read$"):
        _read_capped(endless, "report r", 1 << 20)
    assert sum(served) == (1 << 20) + 1  # one byte past the cap, never more


def test_an_undecodable_or_missing_input_is_one_line(tmp_path: Path) -> None:
    from hygiene.errors import InputError
    from hygiene.safefile import read_input_text

    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(InputError, match=r"^baseline .*latin1.txt: not UTF-8 text"):
        read_input_text(str(tmp_path / "latin1.txt"), "baseline")
    with pytest.raises(InputError, match=r"^state file .*gone: No such file or directory$"):
        read_input_text(str(tmp_path / "gone"), "state file")
    (tmp_path / "link").symlink_to(tmp_path / "latin1.txt")
    with pytest.raises(InputError, match=r"link: a symbolic link, not followed$"):
        read_input_text(str(tmp_path / "link"), "state file", follow=False)
