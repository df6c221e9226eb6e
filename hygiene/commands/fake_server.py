"""``hygiene fake-server``: run the stand-in control plane on loopback to try the tools by hand.

The demo account's password is never printed (terminal logs get shared): it is written to a
file readable only by you, and the command prints how to load it into ``AIC_PASSWORD``.
A file it made up itself is deleted when it stops (Ctrl-C or SIGTERM): the password dies with
the server, and runs should not pile up files in the temp folder.
With ``--fault STEP=KIND`` it runs the hostile server instead: the same service, misbehaving
at that step (see :mod:`hygiene.testing.faultspec`).
"""

from __future__ import annotations

import os
import shlex
import signal
import tempfile
import threading
from pathlib import Path

import click

from hygiene.errors import EXIT_OK, InputError, UsageError
from hygiene.testing.faults import Switches
from hygiene.testing.faultspec import KINDS, parse_fault
from hygiene.testing.hostile import STEPS, HostileServer
from hygiene.testing.server import ControlPlane
from hygiene.testing.state import State


def write_password_file(password: str, path: Path | None) -> Path:
    """Write ``password`` to ``path`` (or a new temp file) with mode 0600."""
    if path is None:
        fd, name = tempfile.mkstemp(prefix="aic-fake-server-", suffix=".password")
        path = Path(name)
    else:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError as exc:
            raise InputError(f"cannot write --password-file {path}: {exc}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(password + "\n")
    os.chmod(path, 0o600)
    return path


def _start(
    state: State, switches: Switches, port: int, faults: tuple[str, ...]
) -> ControlPlane | HostileServer:
    try:
        if not faults:
            return ControlPlane(state, switches, port=port)
        server = HostileServer(state=state, port=port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    server.switches = switches
    for spec in faults:
        try:
            step, fault = parse_fault(spec, server.trap_url)
        except ValueError as exc:
            server.stop()
            raise UsageError(f"--fault: {exc}") from None
        server.set_fault(step, fault)
    return server


@click.command(name="fake-server")
@click.option(
    "--password-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the demo password here (default: a new private temp file).",
)
@click.option(
    "--token-lifetime",
    type=click.FloatRange(min=1.0),
    default=900.0,
    show_default=True,
    help="Session lifetime in seconds (expires_in), at least 1.",
)
@click.option("--no-refresh", is_flag=True, help="Answer 404 on /auth/refresh.")
@click.option(
    "--rate-limit", type=click.IntRange(min=1), metavar="N", help="Allow N requests per second."
)
@click.option(
    "--fail-probability",
    type=click.FloatRange(0.0, 1.0),
    default=0.0,
    help="Answer 500 this often (0 to 1).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="STEP=KIND[:ARG]",
    help=f"Misbehave at STEP ({', '.join(STEPS)}): {', '.join(KINDS)}. Repeatable.",
)
def command(
    password_file: Path | None,
    token_lifetime: float,
    no_refresh: bool,
    rate_limit: int | None,
    fail_probability: float,
    port: int,
    faults: tuple[str, ...],
) -> int:
    """Run a stand-in control plane on 127.0.0.1 until interrupted (Ctrl-C)."""
    switches = Switches(refresh_enabled=not no_refresh)
    switches.set_rate_limit(rate_limit)
    switches.set_fail_probability(fail_probability)
    plane = _start(State(token_lifetime=token_lifetime), switches, port, faults)
    path = write_password_file(plane.password, password_file)
    try:
        with plane:
            _serve(plane, path, hostile=bool(faults))
    finally:
        if password_file is None:
            path.unlink(missing_ok=True)
    return EXIT_OK


def _serve(plane: ControlPlane | HostileServer, path: Path, *, hostile: bool) -> None:
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (systemd, docker stop, a test's terminate()) stops as Ctrl-C does, so the
        # password file is cleaned up; only the main thread may own a handler.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    # A stop that comes while the banner is still being written (a reader that acts on its
    # first lines) is the same clean stop as one during the wait.
    try:
        kind = "hostile control plane" if hostile else "stand-in control plane"
        click.echo(f"{kind} at {plane.base_url} (Ctrl-C to stop)")
        click.echo("in another shell:")
        click.echo(f"  export AIC_BASE_URL={plane.base_url} AIC_EMAIL={plane.email}")
        click.echo(f'  export AIC_PASSWORD="$(cat {shlex.quote(str(path))})"')
        orgs = plane.state.account(plane.email).memberships
        click.echo("organizations: " + ", ".join(org for org, _ in orgs))
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
