"""``piped.py COMMAND...``: run COMMAND with stdout and stderr piped through ``hygiene mask``,
as ``COMMAND 2>&1 | hygiene mask`` does; SIGINT/SIGTERM go to COMMAND only, so the pipe
drains and ``hygiene mask`` writes every last line before it ends."""

from __future__ import annotations

import signal
import subprocess
import sys
from types import FrameType


def main() -> int:
    app = subprocess.Popen(
        sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    masker = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "mask"], stdin=app.stdout, start_new_session=True
    )
    assert app.stdout is not None
    app.stdout.close()  # the masker holds the read end

    def forward(signum: int, frame: FrameType | None) -> None:
        app.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    app.wait()
    return masker.wait()


if __name__ == "__main__":
    sys.exit(main())
