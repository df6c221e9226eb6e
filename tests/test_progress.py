"""The progress model with an injected clock: the delay, ten frames a second at most, rates over
a window, and frames that hold counts only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.progress import (
    DELAY,
    EVERY,
    ItemFrames,
    ItemProgress,
    Rate,
    ScanFrames,
    ScanProgress,
    count,
    duration,
    size,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_shown_for_the_first_couple_of_seconds() -> None:
    clock = Clock()
    frames = ItemFrames("revoking", ItemProgress(40), clock=clock)
    for _ in range(19):
        clock.now += DELAY / 20
        assert frames.next() is None
    clock.now += DELAY / 20
    assert frames.next() == "revoking: 0/40, 0.0/s, 2 s"


def test_frames_are_throttled_to_ten_a_second() -> None:
    clock = Clock()
    progress = ItemProgress(1000)
    frames = ItemFrames("revoking", progress, clock=clock)
    clock.now += DELAY
    shown = []
    for _ in range(1000):  # asked every millisecond for a second
        progress.item()
        text = frames.next()
        if text is not None:
            shown.append(text)
        clock.now += 0.001
    assert EVERY == 0.1
    assert 10 <= len(shown) <= 11  # at DELAY, then each 0.1 s (float steps may land one late)
    assert len(set(shown)) == len(shown)  # each with news


def test_item_counts_failures_and_rate() -> None:
    clock = Clock()
    progress = ItemProgress(40)
    frames = ItemFrames("revoking", progress, clock=clock)
    for n in range(12):
        clock.now += 0.25  # 4 answers a second
        progress.item(failed=n in (3, 7))
    assert frames.text(clock.now) == "revoking: 12/40, 2 failed, 4.0/s, 3 s"
    verify = ItemFrames("verifying", ItemProgress(), "tokens", clock=clock, failed_as="unknown")
    assert verify.text(clock.now) == "verifying: 0 tokens, 0.0/s, 0 s"


def test_the_rate_follows_the_last_window_not_the_whole_run() -> None:
    clock = Clock()
    rate = Rate(clock.now, window=5.0)
    done = 0.0
    for _ in range(100):  # 10 s at 100/s
        clock.now += 0.1
        done += 10
        assert rate.update(clock.now, done) == pytest.approx(100.0)
    for _ in range(60):  # then 6 s at 10/s: once a window has passed, 10/s
        clock.now += 0.1
        done += 1
        last = rate.update(clock.now, done)
    assert last == pytest.approx(10.0)


def test_a_stall_brings_the_rate_down_to_zero() -> None:
    clock = Clock()
    rate = Rate(clock.now, window=5.0)
    clock.now += 1
    assert rate.update(clock.now, 50) == pytest.approx(50.0)
    for _ in range(60):
        clock.now += 0.1
        last = rate.update(clock.now, 50)
    assert last == 0.0


def test_scan_frame_counts_files_bytes_rate_findings() -> None:
    clock = Clock()
    progress = ScanProgress()
    progress.expect(5000, 1_200_000_000)
    frames = ScanFrames("scanning", progress, clock=clock)
    for _ in range(1234):
        progress.file_done(369_000, findings=0)
    progress.add(findings=2)
    clock.now += 4.0
    text = frames.text(clock.now)
    assert text == "scanning: 1,234/5,000 files, 455 MB/1.2 GB, 114 MB/s, 2 findings, 4 s"


def test_scan_frame_of_history_counts_commits_and_blobs() -> None:
    clock = Clock()
    progress = ScanProgress()
    frames = ScanFrames("scanning", progress, clock=clock)
    progress.add(commits=1, nbytes=500, findings=1)
    progress.add(blobs=3, nbytes=1500)
    clock.now += 75
    assert frames.text(clock.now) == "scanning: 1 commit, 3 blobs, 2.0 kB, 27 B/s, 1 finding, 1:15"


def test_bytes_of_the_file_being_read_count_until_it_is_done() -> None:
    progress = ScanProgress()
    chunks = iter([b"a" * 10, b"b" * 5, b""])
    read = progress.counting(lambda _n: next(chunks))
    while read(64):
        pass
    assert progress.snapshot().bytes == 15
    progress.file_done(15, findings=1)  # the file's total replaces what was read so far
    snap = progress.snapshot()
    assert (snap.files, snap.bytes, snap.findings) == (1, 15, 1)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 kB"),
        (45_600_000, "45.6 MB"),
        (99_960_000, "100 MB"),
        (456_000_000, "456 MB"),
        (1_200_000_000, "1.2 GB"),
        (10**16, "10000 TB"),
    ],
)
def test_sizes(n: int, text: str) -> None:
    assert size(n) == text


def test_durations_and_counts() -> None:
    assert [duration(s) for s in (0, 59.9, 65, 3723)] == ["0 s", "59 s", "1:05", "1:02:03"]
    assert count(1234567) == "1,234,567"


@given(st.integers(min_value=0, max_value=10**15))
def test_a_size_is_short_and_grows_with_the_bytes(n: int) -> None:
    number, unit = size(n).split(" ")
    assert unit in ("B", "kB", "MB", "GB", "TB")
    assert len(number) <= 5  # "999.9" at most: the line keeps its width
    assert _bytes(size(n)) <= _bytes(size(n * 2 + 1))


def _bytes(text: str) -> float:
    number, unit = text.split(" ")
    return float(number) * 1000 ** ("B", "kB", "MB", "GB", "TB").index(unit)
