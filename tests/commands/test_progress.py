"""Progress on a terminal only, after a couple of seconds, with counts and rates."""

from __future__ import annotations

import io

from hygiene.commands.progress import DELAY, Meter, activity, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_for_short_work_then_counts_and_rate_then_erased() -> None:
    clock, screen = Clock(), Terminal()
    meter = Meter(screen, "Revoking", 10, clock=clock)
    meter.tick()
    assert screen.getvalue() == ""  # within the first seconds: silent
    clock.now += DELAY + 2
    meter.tick()
    drawn = screen.getvalue()
    assert "Revoking 2/10" in drawn
    assert "/s" in drawn
    meter.close()
    assert screen.getvalue().endswith("\r\x1b[K")  # the line is erased at the end


def test_activity_only_on_a_terminal() -> None:
    pipe = io.StringIO()
    assert not wanted(pipe)
    with activity(pipe, "scanning") as meter:
        assert meter is None
    assert pipe.getvalue() == ""
    assert wanted(Terminal())
