"""What ``git log -p`` does not show of history: commit messages and compressed blobs.

* **Messages.** A token pasted into a commit message is as public as one in a file. Each
  message (``%B``: subject and body) is scanned; a finding carries its commit and an empty
  path, its line and column counted within the message (line 1 is the subject).
* **Gzip blobs.** ``git log -p`` shows a ``.gz`` file's compressed bytes, which hold no
  readable token. Every blob a commit adds or modifies at a ``*.gz`` path is read with one
  ``git cat-file --batch`` and scanned decompressed (each distinct blob once; a finding is
  reported for every commit that introduced it there).
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from hygiene.gitcmd import GitStream
from hygiene.progress import ScanProgress
from hygiene.scan.decoders import finder_for, scan_layers
from hygiene.scan.findings import ScanResult, detection_for
from hygiene.scan.limits import AllowLines
from hygiene.scan.matcher.engine import Reader, scan_bytes
from hygiene.scan.matcher.needles import NEEDLES
from hygiene.scan.sources.files import Excluder
from hygiene.scan.sources.staged import blob_reader, feed_lines

_HASH = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _holds_needle(data: bytes) -> bool:
    low = data.lower()
    return any(needle in (low if rule.caseless else data) for rule, needle in NEEDLES)


def _history_git(args: list[str], stdin: bool = False) -> GitStream:
    return GitStream(args, "{history}", options=("history",), stdin=stdin)


def message_log(revisions: list[str]) -> GitStream:
    """Start the git that prints the messages of ``revisions`` for :func:`scan_messages`."""
    return _history_git(["log", "--no-show-signature", "--format=%x00%H%n%B", *revisions, "--"])


def _messages(stream: IO[bytes]) -> Iterator[tuple[str, bytes]]:
    """(commit, message) pairs of ``git log --format=%x00%H%n%B`` output, one at a time."""
    commit = ""
    lines: list[bytes] = []
    for raw in stream:
        if raw.startswith(b"\0"):
            if commit:
                yield commit, b"".join(lines)
            commit, lines = raw[1:].strip().decode("ascii"), []
        else:
            lines.append(raw)
    if commit:
        yield commit, b"".join(lines)


def scan_messages(
    revisions: list[str],
    result: ScanResult,
    allow_lines: AllowLines = AllowLines(),
    progress: ScanProgress | None = None,
    git: GitStream | None = None,
) -> None:
    """Findings in the commit messages of ``revisions`` (path ``""``, the commit's id);
    ``progress`` counts the commits. ``git``: the :func:`message_log` to read, if started
    already (it is stopped on return)."""
    progress = progress if progress is not None else ScanProgress()
    with git if git is not None else message_log(revisions) as log:
        for commit, message in _messages(log.stdout):
            result.bytes += len(message)
            found = 0
            if _holds_needle(message):
                hits = scan_bytes(
                    message,
                    allow_lines=allow_lines.patterns,
                    markers=allow_lines.markers,
                    suppressed=result.suppressed,
                )
                for hit in hits:
                    result.detections.append(detection_for(hit, "", commit=commit))
                    found += 1
            progress.add(commits=1, nbytes=len(message), findings=found)
        log.finish()


class MessageScan:
    """:func:`scan_messages` in a thread, beside the diff pass (both mostly wait for git):
    :meth:`join` then adds its findings to a result, or raises what stopped it."""

    def __init__(
        self,
        revisions: list[str],
        allow_lines: AllowLines = AllowLines(),
        progress: ScanProgress | None = None,
    ) -> None:
        self.result = ScanResult()
        self.error: BaseException | None = None
        # Started here, not in the thread: stop() can then always reach it.
        self._git = message_log(revisions)
        self._thread = threading.Thread(
            target=self._run, args=(revisions, allow_lines, progress), daemon=True
        )
        self._thread.start()

    def _run(
        self, revisions: list[str], allow_lines: AllowLines, progress: ScanProgress | None
    ) -> None:
        try:
            scan_messages(revisions, self.result, allow_lines, progress, git=self._git)
        except BaseException as exc:  # handed to the caller by join()
            self.error = exc

    def stop(self) -> None:
        """End the scan early: kill its git, wait for the thread (a no-op once joined)."""
        self._git.kill()
        self._thread.join()
        self._git.stop()

    def join(self, into: ScanResult) -> None:
        self._thread.join()
        if self.error is not None:
            raise self.error
        into.detections += self.result.detections
        into.bytes += self.result.bytes
        into.suppressed.update(self.result.suppressed)


@dataclass
class _GzBlobs:
    """Each distinct ``.gz`` blob and the (commit, path) pairs that introduced it."""

    where: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, sha: str, commit: str, path: str) -> None:
        self.where.setdefault(sha, []).append((commit, path))


def list_gz_blobs(revisions: list[str]) -> GitStream:
    """Start listing the ``.gz`` blobs the commits of ``revisions`` added or modified (a git
    process that walks history on its own: started early, it runs beside the diff pass)."""
    args = ["log", "--format=%x00%H", "--raw", "--no-renames", "--no-abbrev", "-z"]
    return _history_git([*args, "--diff-filter=AM", *revisions, "--", "*.gz"])


def _gz_blobs(listing: GitStream, excluder: Excluder) -> _GzBlobs:
    found, commit, meta = _GzBlobs(), "", None
    for token in listing.stdout.read().split(b"\0"):
        token = token.lstrip(b"\n")
        if meta is not None:
            path = os.fsdecode(token)
            fields = meta.split()
            if len(fields) >= 4 and fields[1] != b"160000" and not excluder.excludes(path):
                found.add(fields[3].decode("ascii"), commit, path)
            meta = None
        elif token.startswith(b":"):
            meta = token
        elif _HASH.fullmatch(token):
            commit = token.decode("ascii")
    listing.finish()
    return found


def scan_gz_blobs(
    listing: GitStream,
    excluder: Excluder,
    result: ScanResult,
    allow_lines: AllowLines = AllowLines(),
    progress: ScanProgress | None = None,
) -> None:
    """Findings in the ``.gz`` blobs ``listing`` (see :func:`list_gz_blobs`) names;
    ``progress`` counts the blobs."""
    blobs = _gz_blobs(listing, excluder)
    if not blobs.where:
        return
    shas = list(blobs.where)
    with _history_git(["cat-file", "--batch"], stdin=True) as git:
        feeder = threading.Thread(target=feed_lines, args=(git.stdin, shas), daemon=True)
        feeder.start()
        try:
            for sha in shas:
                header = git.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    continue
                read = blob_reader(git.stdout, int(header[2]))
                before, found = result.bytes, len(result.detections)
                _scan_gz(read, int(header[2]), blobs.where[sha], result, allow_lines)
                if progress is not None:
                    found = len(result.detections) - found
                    progress.add(blobs=1, nbytes=result.bytes - before, findings=found)
                while read(1 << 16):
                    pass  # whatever a corrupt gzip left unread: stay in step with cat-file
                git.stdout.read(1)  # the newline after each blob
        finally:
            git.kill()  # every blob is read, or nothing more will be
            feeder.join()


def _scan_gz(
    read: Reader,
    size: int,
    where: list[tuple[str, str]],
    result: ScanResult,
    allow_lines: AllowLines,
) -> None:
    """The blob through the decoders (gzip, and whatever it holds), reported at every commit
    and path that introduced it."""
    first_commit, first_path = where[0]
    found = ScanResult()
    scan_layers(
        read, first_path, found, finder=finder_for(size), size=size, allow_lines=allow_lines
    )
    result.bytes += found.bytes
    result.skipped += found.skipped
    result.suppressed.update(found.suppressed)
    result.errors += [f"{first_commit[:12]}:{error}" for error in found.errors]
    for commit, path in where:
        for detection in found.detections:
            shown = path + detection.finding.path[len(first_path) :]
            finding = dataclasses.replace(detection.finding, path=shown, commit=commit)
            result.detections.append(dataclasses.replace(detection, finding=finding))


__all__ = ["MessageScan", "list_gz_blobs", "message_log", "scan_gz_blobs", "scan_messages"]
