"""structlog's writers made before ``install()``: a logger cached on first use, a factory
configured with a stream, a logger made by hand. Each holds the real stream (or its buffer, or
its ``write``); ``install()`` points them at its guard. Real processes, real structlog."""

from __future__ import annotations

from pathlib import Path

import pytest

from hygiene.detection import PAT_PREFIX
from tests.helpers import SecretGuard, run_python_app

pytest.importorskip("structlog")

# argv: factory, cache ("1": cache_logger_on_first_use), listed ("1": the writers' __dict__
# made before install(), as Python 3.10 always has it), the token.
CONFIGURED = """
import json, sys
import structlog
kind, cache, listed, token = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1", sys.argv[4]
factories = {
    "print": lambda: structlog.PrintLoggerFactory(),
    "print-stderr": lambda: structlog.PrintLoggerFactory(sys.stderr),
    "write": lambda: structlog.WriteLoggerFactory(),
    "write-stderr": lambda: structlog.WriteLoggerFactory(sys.stderr),
    "bytes": lambda: structlog.BytesLoggerFactory(),
    "bytes-stderr": lambda: structlog.BytesLoggerFactory(sys.stderr.buffer),
}
factory = factories[kind]()
if kind.startswith("bytes"):
    renderer = structlog.processors.JSONRenderer(serializer=lambda o, **kw: json.dumps(o).encode())
else:
    renderer = structlog.processors.JSONRenderer()
structlog.configure(
    processors=[renderer], logger_factory=factory, cache_logger_on_first_use=cache
)
log = structlog.get_logger()
log.info("started")  # first use: from here on the logger is cached, when cache is on
if listed:
    for writer in (factory, log.bind()._logger):
        getattr(writer, "__dict__", None)
import hygiene.masking
hygiene.masking.install()
log.info("calling", authorization=f"Bearer {token}")
structlog.get_logger().info("again", token_value=token)
"""

KINDS = ["print", "print-stderr", "write", "write-stderr", "bytes", "bytes-stderr"]


@pytest.mark.parametrize("listed", [False, True], ids=["inline", "dict-made"])
@pytest.mark.parametrize("cache", [False, True], ids=["uncached", "cached"])
@pytest.mark.parametrize("kind", KINDS)
def test_structlog_writers_made_before_install_are_masked(
    tmp_path: Path, guard: SecretGuard, kind: str, cache: bool, listed: bool
) -> None:
    token = guard.pat()
    done = run_python_app(tmp_path, CONFIGURED, kind, str(int(cache)), str(int(listed)), token)
    guard.capture(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr[-2000:]
    written = done.stderr if kind.endswith("stderr") else done.stdout
    lines = [line for line in written.splitlines() if '"event"' in line]
    assert len(lines) == 3, written  # nothing lost, nothing twice
    assert f'"authorization": "Bearer {PAT_PREFIX}\u2026' in lines[1]
    assert f'"token_value": "{PAT_PREFIX}\u2026' in lines[2]
    assert token not in done.stdout + done.stderr
    assert "UncoveredWarning" not in done.stderr


BY_HAND = """
import sys
import structlog
token = sys.argv[1]
writers = [
    structlog.PrintLogger(sys.stderr),
    structlog.PrintLogger(sys.stdout),
    structlog.WriteLogger(),
    structlog.WriteLogger(sys.stderr),
]
raw = structlog.BytesLogger(sys.stdout.buffer)
import hygiene.masking
hygiene.masking.install()
hygiene.masking.install()  # a second call changes nothing, and warns of nothing
for n, writer in enumerate(writers):
    writer.msg(f"writer {n} Authorization: Bearer {token}")
raw.msg(f"raw access_token={token}".encode())
"""


def test_structlog_loggers_made_by_hand_before_install_are_masked(
    tmp_path: Path, guard: SecretGuard
) -> None:
    token = guard.session_token()
    done = run_python_app(tmp_path, BY_HAND, token)
    guard.capture(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr[-2000:]
    out, err = done.stdout.splitlines(), done.stderr.splitlines()
    for n, lines in ((0, err), (1, out), (2, out), (3, err)):
        assert lines.count(f"writer {n} Authorization: Bearer \u2026{token[-4:]}") == 1, n
    assert out.count(f"raw access_token=\u2026{token[-4:]}") == 1
    assert token not in done.stdout + done.stderr
    assert "UncoveredWarning" not in done.stderr


UNINSTALLED = """
import sys
import structlog
logger = structlog.WriteLogger(sys.stderr)
raw = structlog.BytesLogger()
factory = structlog.PrintLoggerFactory(sys.stderr)
import hygiene.masking
installation = hygiene.masking.install()
assert logger._file is sys.stderr and sys.stderr is not sys.__stderr__
assert raw._file is sys.stdout.buffer and factory._file is sys.stderr
installation.uninstall()
assert logger._file is sys.__stderr__ and logger._write == sys.__stderr__.write
assert raw._file is sys.__stdout__.buffer and factory._file is sys.__stderr__
print("given back")
"""


def test_uninstall_gives_structlog_its_streams_back(tmp_path: Path) -> None:
    done = run_python_app(tmp_path, UNINSTALLED)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "given back\n"


FROZEN = """
import sys
import structlog

class Frozen(structlog.PrintLogger):
    def __setattr__(self, name, value):
        if "_lock" in self.__dict__:
            raise AttributeError("frozen")
        super().__setattr__(name, value)

frozen = Frozen(sys.stderr)
import hygiene.masking
hygiene.masking.install()
"""


def test_a_structlog_writer_install_cannot_change_is_named_in_a_warning(tmp_path: Path) -> None:
    done = run_python_app(tmp_path, FROZEN)
    assert done.returncode == 0, done.stderr[-2000:]
    warning = [line for line in done.stderr.splitlines() if "UncoveredWarning" in line]
    assert len(warning) == 1, done.stderr
    assert "structlog writer <PrintLogger(file=<_io.TextIOWrapper name='<stderr>'" in warning[0]
    assert "not masked" in warning[0]


REPLACED_STDOUT = """
import io, sys
import structlog
raw = structlog.BytesLogger(sys.__stdout__.buffer)
text = structlog.WriteLogger(sys.__stderr__)
sys.stdout = io.StringIO()  # a test runner's capture: no buffer behind it
import hygiene.masking
installation = hygiene.masking.install()
assert text._file is sys.stderr  # the text stream is reached
installation.uninstall()
sys.__stdout__.write("installed and given back\\n")
"""


def test_install_with_a_standard_stream_replaced_by_one_without_a_buffer(tmp_path: Path) -> None:
    # sys.__stdout__ is guarded by sys.stdout's guard, here a StringIO's, which has no buffer.
    done = run_python_app(tmp_path, REPLACED_STDOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "installed and given back\n"
