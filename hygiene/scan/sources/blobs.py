"""Reading a batch of history's objects through one ``git cat-file --batch`` and scanning each.

A blob goes through every decoder, as a file does (archives, compressed streams, UTF-16,
base64), shown as its id until it is attributed to a commit and path; a commit's or annotated
tag's message is scanned as text of its own (path ``""``, line 1 its subject). Findings are
kept by object id; a worker process sends back findings only, never a secret.

An object git cannot read (missing, or a damaged pack that makes cat-file fail) is listed in
``unreadable``; cat-file is started again for the rest of the batch.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import IO

from hygiene.detection import Secret, mask_secrets
from hygiene.errors import InputError
from hygiene.gitcmd import GitStream
from hygiene.scan.decoders import finder_for, scan_buffer, scan_layers
from hygiene.scan.findings import Finding, ScanResult
from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.sources.objects import GitObject
from hygiene.scan.sources.staged import blob_reader, feed_lines

# A blob up to this size is read whole (one scan call); a bigger one is streamed.
WHOLE_SIZE = 8 << 20


@dataclass(frozen=True)
class Signature:
    """Who made a commit or tag, and when: ``author`` ``Name <email>``, ``date`` ISO 8601
    (the author's or tagger's), ``time`` the committer's (tagger's) Unix time, for ordering."""

    author: str
    date: str
    time: int = 0


@dataclass
class BatchResult:
    """Findings by object id (paths relative to the object, ``""`` for a message), the
    signatures of the commits and tags whose messages hold one, and what could not be read."""

    found: list[tuple[str, Finding]] = field(default_factory=list)
    secrets: list[Secret] = field(default_factory=list)  # beside ``found``, when kept
    signatures: dict[str, Signature] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    result: ScanResult = field(default_factory=ScanResult)
    blobs: int = 0
    messages: int = 0  # commits and tags read


def signature(header: bytes) -> Signature:
    """A commit's or tag's header as a :class:`Signature` (its author or tagger, its
    committer's or tagger's time); fields a header lacks are empty."""
    lines: dict[bytes, bytes] = {}
    for line in header.split(b"\n"):
        key, _, value = line.partition(b" ")
        lines.setdefault(key, value)
    who, _, when = (lines.get(b"author") or lines.get(b"tagger") or b"").rpartition(b"> ")
    stamp = (lines.get(b"committer") or lines.get(b"tagger") or b"").rpartition(b"> ")[2]
    try:
        time = int(stamp.split()[0])
    except (ValueError, IndexError):
        time = 0
    # A name is the committer's to choose: a token written there is shown masked.
    author = mask_secrets(who.decode("utf-8", "replace") + ">") if who else ""
    return Signature(author, _iso(when), time)


def _iso(when: bytes) -> str:
    """``1700000000 +0100`` as ``2023-11-14T23:13:20+01:00``; unreadable: ``""``."""
    try:
        seconds, zone = when.split()[:2]
        sign = -1 if zone.startswith(b"-") else 1
        offset = timedelta(hours=int(zone[-4:-2]), minutes=int(zone[-2:])) * sign
        stamp = datetime.fromtimestamp(int(seconds), timezone(offset))
    except (ValueError, OverflowError, OSError):
        return ""
    return stamp.isoformat()


def _read_exact(stdout: IO[bytes], size: int) -> bytes:
    data = stdout.read(size)
    if len(data) != size:
        raise InputError("git cat-file ended early")
    return data


@dataclass
class _Scanner:
    limits: DecodeLimits
    allow_lines: AllowLines
    keep: bool
    out: BatchResult

    def __post_init__(self) -> None:
        # Hyperscan (where installed) for every object, even small ones: one call per blob
        # costs less than the pure-Python finder's passes (measured on croc's history:
        # 2.1 s against 3.4 s in one process).
        self.finder = finder_for(None)

    def _collect(self, sha: str, before: int) -> None:
        """Move the detections made since ``before`` into ``out.found`` under ``sha``."""
        detections = self.out.result.detections
        for detection in detections[before:]:
            self.out.found.append((sha, detection.finding))
            if self.keep:
                self.out.secrets.append(detection.secret)
        del detections[before:]

    def blob(self, stdout: IO[bytes], obj: GitObject) -> None:
        before = len(self.out.result.detections)
        if obj.size <= WHOLE_SIZE:
            data = _read_exact(stdout, obj.size)
            scan_buffer(
                data, obj.sha, self.out.result, self.finder, limits=self.limits,
                allow_lines=self.allow_lines,
            )  # fmt: skip
        else:
            read = blob_reader(stdout, obj.size)
            scan_layers(
                read, obj.sha, self.out.result, limits=self.limits, finder=self.finder,
                size=obj.size, allow_lines=self.allow_lines,
            )  # fmt: skip
            while read(1 << 16):
                pass  # what a decoder left unread: stay in step with cat-file
        self._collect(obj.sha, before)

    def message(self, stdout: IO[bytes], obj: GitObject) -> None:
        data = _read_exact(stdout, obj.size)
        header, _, message = data.partition(b"\n\n")
        before = len(self.out.result.detections)
        if message:
            scan_buffer(message, "", self.out.result, self.finder, allow_lines=self.allow_lines)
        if len(self.out.result.detections) > before:
            self.out.signatures[obj.sha] = signature(header)
        self._collect(obj.sha, before)


def scan_objects(
    objects: list[GitObject],
    limits: DecodeLimits | None = None,
    allow_lines: AllowLines = AllowLines(),
    keep_secrets: bool = False,
) -> BatchResult:
    """Read and scan ``objects`` (see the module's docstring); ``keep_secrets`` keeps each
    finding's secret in ``secrets`` (in this process only)."""
    out = BatchResult()
    scanner = _Scanner(limits or DecodeLimits(), allow_lines, keep_secrets, out)
    left = list(objects)
    while left:
        done = _one_cat_file(left, scanner)
        if done < len(left):
            out.unreadable.append(left[done].sha)  # cat-file died on it: the rest again
            done += 1
        left = left[done:]
    out.result.detections.clear()  # any of an object cat-file died within: not reported
    return out


def _one_cat_file(objects: list[GitObject], scanner: _Scanner) -> int:
    """Scan ``objects`` with one cat-file; how many it got through (fewer when it died)."""
    shas = [obj.sha for obj in objects]
    with GitStream(["cat-file", "--batch"], "{history}", options=("history",), stdin=True) as git:
        feeder = threading.Thread(target=feed_lines, args=(git.stdin, shas), daemon=True)
        feeder.start()
        try:
            for done, obj in enumerate(objects):
                if not _next_object(git.stdout, obj, scanner):
                    return done
            return len(objects)
        finally:
            git.kill()  # every object is read, or nothing more will be
            feeder.join()


def _next_object(stdout: IO[bytes], obj: GitObject, scanner: _Scanner) -> bool:
    """Scan the next object cat-file prints; False when cat-file ended before it."""
    header = stdout.readline()
    if not header:
        return False
    fields = header.split()
    if len(fields) != 3 or not fields[2].isdigit():  # "<id> missing": gone after all
        scanner.out.unreadable.append(obj.sha)
        return True
    # The size cat-file is about to print, whatever the listing said: its reader stays in step.
    obj = dataclasses.replace(obj, size=int(fields[2]))
    try:
        if obj.kind == "blob":
            scanner.blob(stdout, obj)
        else:
            scanner.message(stdout, obj)
    except InputError:
        return False  # ended within the object
    stdout.read(1)  # the newline after each object
    if obj.kind == "blob":
        scanner.out.blobs += 1
        scanner.out.result.files += 1
    else:
        scanner.out.messages += 1
    return True


__all__ = ["WHOLE_SIZE", "BatchResult", "Signature", "scan_objects", "signature"]
