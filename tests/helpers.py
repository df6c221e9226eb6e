"""Helpers shared by every test package: secret makers and the "no secret, ever" guard."""

from __future__ import annotations

import json
import os
import queue
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hygiene.detection import (
    PAT_PREFIX,
    fingerprint,
    is_placeholder,
    is_reportable_credential,
    masked_form,
)

if TYPE_CHECKING:
    from hygiene.testing.state import State

REPO_ROOT = Path(__file__).resolve().parent.parent
# The SARIF 2.1.0 schema, kept in the repository so the SARIF tests run in any clone.
SARIF_SCHEMA = REPO_ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
# The running interpreter's scripts folder (`bin/`, or `Scripts/` on Windows): console scripts
# are looked up here, not on PATH, so an unactivated `venv/bin/python -m pytest` finds them.
# Not resolved: a venv's python is a symlink to the base interpreter, whose folder is not it.
SCRIPTS_DIR = Path(sys.executable).parent


# HYPOTHESIS_PROFILE=deep: a long hunt for rare counterexamples before a property lands.
DEEP_EXAMPLES = 20_000


def examples(pinned: int) -> int:
    """A property's own example count, raised to the deep hunt's under HYPOTHESIS_PROFILE=deep
    (a count a test pins in ``@settings`` overrides the profile's)."""
    return DEEP_EXAMPLES if os.environ.get("HYPOTHESIS_PROFILE") == "deep" else pinned


def console_script(name: str) -> str:
    """Path of the console script ``name`` installed beside the running interpreter."""
    for candidate in (SCRIPTS_DIR / name, SCRIPTS_DIR / f"{name}.exe"):
        if candidate.is_file():
            return str(candidate)
    raise AssertionError(f"{name} is not installed in {SCRIPTS_DIR} (pip install -e '.[test]')")


def env_with_scripts(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment with :data:`SCRIPTS_DIR` first on PATH, plus ``extra``.

    For processes that run our tools by name (git hooks call ``hygiene``).
    """
    env = dict(os.environ)
    env.update(extra or {})
    env["PATH"] = os.pathsep.join([str(SCRIPTS_DIR), env.get("PATH", os.defpath)])
    return env


def new_pat() -> str:
    """A fresh PAT-shaped value, built at run time so the repo never holds one."""
    while True:
        body = secrets.token_urlsafe(24)
        if not is_placeholder(body):
            return PAT_PREFIX + body


def new_session_token() -> str:
    """A fresh bearer session token shaped like a JWT-ish credential."""
    while True:
        value = "eyJ" + secrets.token_urlsafe(18) + "." + secrets.token_urlsafe(12)
        if is_reportable_credential(value):
            return value


def secret_parts(secret: str) -> list[str]:
    """The strings that must never appear in output for ``secret``.

    The whole value, and the secret part minus the four characters a masked form may show.
    """
    body = secret.removeprefix(PAT_PREFIX)
    parts = [secret]
    if len(body) > 8:
        parts.append(body[:-4])
    return parts


def assert_no_secret(outputs: Iterable[str | bytes], secrets_: Iterable[str]) -> None:
    """Fail when any output holds any secret (or the hidden part of one)."""
    texts = [o.decode("utf-8", "replace") if isinstance(o, bytes) else o for o in outputs]
    for secret in secrets_:
        for part in secret_parts(secret):
            for text in texts:
                assert part not in text, "a secret reached the output"


@dataclass
class SecretGuard:
    """Collects every secret a test makes and every output it captures; checks at teardown."""

    # Out of repr: pytest prints fixtures of a failing test, and these are real test secrets.
    secrets: list[str] = field(default_factory=list, repr=False)
    outputs: list[str | bytes] = field(default_factory=list, repr=False)

    def pat(self) -> str:
        return self.remember(new_pat())

    def session_token(self) -> str:
        return self.remember(new_session_token())

    def remember(self, secret: str) -> str:
        self.secrets.append(secret)
        return secret

    def capture(self, *outputs: str | bytes) -> None:
        self.outputs.extend(outputs)

    def check(self) -> None:
        assert_no_secret(self.outputs, self.secrets)


def run_hygiene(
    guard: SecretGuard | None,
    *args: str,
    input: bytes | None = None,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    prog: str = "hygiene",
) -> subprocess.CompletedProcess[bytes]:
    """Run the installed CLI as a user would (a real process), capturing its output.

    With a guard, stdout and stderr join the outputs checked for secrets at teardown.
    """
    entry = ["-m", "hygiene"]
    if prog == "revoke-leaked":
        entry = ["-c", "import sys; from hygiene.cli import revoke_leaked_main as m; sys.exit(m())"]
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, *entry, *args],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=full_env,
        timeout=120,
        check=False,
    )
    if guard is not None:
        guard.capture(proc.stdout, proc.stderr)
    return proc


# How long a test waits for a child before calling it hung: a guard, never a verdict (a loaded
# machine may be slow; only a hang takes this long).
SAFETY_TIMEOUT = 120.0


def run_python_app(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as a program of its own (``app.py`` in ``tmp_path``, warnings shown),
    ``args`` its arguments; its output captured."""
    script = tmp_path / "app.py"
    script.write_text(source)
    return subprocess.run(
        [sys.executable, "-W", "always", str(script), *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )


def read_until(proc: subprocess.Popen[bytes], text: bytes, stream: str = "stderr") -> bytes:
    """Read ``proc``'s stderr (or stdout) until ``text`` is in it: wait for a line the child
    writes, never for a time. Returns what was read, for the caller to join with what
    ``communicate`` reads after. Fails when the child ends first, or at the safety timeout."""
    pipe = proc.stderr if stream == "stderr" else proc.stdout
    assert pipe is not None
    seen, deadline = b"", time.monotonic() + SAFETY_TIMEOUT
    while text not in seen:
        assert time.monotonic() < deadline, seen  # a guard against a hang, not a verdict
        ready, _, _ = select.select([pipe], [], [], 1.0)
        if ready:
            chunk = os.read(pipe.fileno(), 4096)
            assert chunk, seen  # the child ended without writing it
            seen += chunk
    return seen


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    """Run git in ``repo`` and return its stdout; fail the test on a git error."""
    proc = subprocess.run(
        ["git", *args], cwd=repo, input=input, capture_output=True, check=True, timeout=60
    )
    return proc.stdout.decode()


# Runs a command and writes its own peak memory (KiB) to a file: ``python -c LAUNCHER REPORT
# ARGV...``. A child forked from the test process starts with that process's peak (ru_maxrss
# survives exec: a 300 MB pytest makes every child "300 MB"), so the measured command is
# started from this small launcher instead, and its wait4 peak is its own.
_PEAK_LAUNCHER = """
import os, sys
report, argv = sys.argv[1], sys.argv[2:]
pid = os.posix_spawn(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def with_peak_memory(argv: list[str], report: Path) -> list[str]:
    """``argv`` run through a launcher that writes its peak memory (KiB) to ``report``;
    a signal that ends it shows as exit status 128 + N."""
    return [sys.executable, "-c", _PEAK_LAUNCHER, str(report), *argv]


def peak_kib(report: Path) -> int:
    """What :func:`with_peak_memory` wrote."""
    return int(report.read_text())


def append(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` (created if missing), as a logging process would."""
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


@dataclass
class Watch:
    """A running ``hygiene watch --format json``, its events read as they come (every line it
    prints goes to the guard)."""

    proc: subprocess.Popen[bytes]
    guard: SecretGuard
    events: queue.Queue[dict[str, object]] = field(default_factory=queue.Queue)
    stderr: list[bytes] = field(default_factory=list)

    def start_reading(self) -> None:
        threading.Thread(target=self._read_events, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read_events(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.guard.capture(line)
            self.events.put(json.loads(line))

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.guard.capture(line)
            self.stderr.append(line)

    def started(self, timeout: float = SAFETY_TIMEOUT) -> None:
        """Until the watcher says it is following (its files' ends are taken by then)."""
        deadline = time.monotonic() + timeout  # a guard against a hang, not a verdict
        while not any(b"following" in line for line in self.stderr):
            assert time.monotonic() < deadline, b"".join(self.stderr)
            assert self.proc.poll() is None, b"".join(self.stderr)
            time.sleep(0.02)

    def next_event(self, timeout: float = SAFETY_TIMEOUT) -> dict[str, object]:
        """The next event; ``queue.Empty`` only past the safety timeout (a hung watcher)."""
        return self.events.get(timeout=timeout)

    def nothing_until(self, path: Path) -> None:
        """Prove that nothing appended so far is reported: append a fresh PAT to ``path``
        (appended, or a new file of a followed folder) and require that the next event is it.
        A handshake, not a wait: a watcher reads each file in order, so whatever came before
        in ``path`` would be reported first, however slow the machine. For other files, call
        it twice: the second marker is read a whole poll (or folder listing) after the first.
        """
        marker = self.guard.pat()
        append(path, f"marker {marker}\n")
        event = self.next_event()
        assert event.get("fingerprint") == fingerprint(marker), event

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the watcher (if it still runs) and return its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=SAFETY_TIMEOUT)


def start_watch_process(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    guard: SecretGuard,
    stdin: int | None = None,
) -> Watch:
    """Start ``hygiene watch --format json ARGS`` and wait until it follows its paths."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "watch", "--format", "json", *args],
        cwd=cwd,
        env=dict(env),
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    watch = Watch(proc, guard)
    watch.start_reading()
    try:
        watch.started()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return watch


class Service(Protocol):
    """What a stand-in gives a test: the stand-in control plane, or the hostile server."""

    state: State
    email: str
    password: str


def inventoried_pats(
    service: Service,
    inventory: Path | str,
    guard: SecretGuard,
    count: int,
    *,
    names: str = "t",
    org: str | None = "org_main",
) -> list[tuple[str, str]]:
    """``count`` PATs live on ``service`` and recorded in ``inventory`` (in ``org``; None: no
    organization recorded): (token id, value) each, named ``{names}0``, ``{names}1``... The
    values and the service's password are remembered by the guard."""
    from hygiene.inventory import open_inventory  # only the tests that need it load it

    guard.remember(service.password)
    made = []
    with open_inventory(inventory) as inv:
        for n in range(count):
            pat, value = service.state.create_pat(
                service.email, org or "org_main", f"{names}{n}", ["safes:read"], 30
            )
            guard.remember(value)
            inv.add(
                pat.token_id, value, name=pat.name, scopes=pat.scopes, expires_at=None, org_id=org
            )
            made.append((pat.token_id, value))
    return made


def seen_as(value: str) -> tuple[str, str]:
    """What a report holds of a leaked value: its fingerprint and masked form."""
    return fingerprint(value), masked_form(value)


def scan_report(path: Path, leaks: Iterable[tuple[str, str]], *, log: str = "app.log") -> Path:
    """A ``hygiene scan --format json`` report at ``path`` naming each leak (fingerprint and
    masked form, see :func:`seen_as`) on lines 1, 2... of ``log``, as the scanner writes it."""
    findings = [
        {
            "path": log,
            "line": n,
            "column": 1,
            "type": "aic-pat",
            "masked": masked,
            "fingerprint": fp,
            "commit": None,
        }
        for n, (fp, masked) in enumerate(leaks, 1)
    ]
    doc = {
        "tool": "aic-token-hygiene",
        "version": "0.1.0",
        "findings": findings,
        "stats": {"files": 1, "bytes": 1, "seconds": 0.0},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
