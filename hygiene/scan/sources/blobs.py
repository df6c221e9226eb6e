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
from hygiene.scan.scancontext import ScanContext
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
    signatures of the commits and tags whose messages hold one, and what could not be read;
    ``result`` holds the figures and error lines (its detections are moved to ``found``)."""

    found: list[tuple[str, Finding]] = field(default_factory=list)
    secrets: list[Secret] = field(default_factory=list)  # beside ``found``, when kept
    signatures: dict[str, Signature] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    result: ScanResult = field(default_factory=ScanResult)
    blobs: int = 0
    messages: int = 0  # commits and tags read

    def take(self, sha: str, part: ScanResult, keep: bool) -> None:
        """Take in the result of scanning the object ``sha``: its detections as findings
        under its id (and their secrets, if ``keep``), the rest as it is."""
        if not part.detections:  # most objects: nothing to move
            self.result.add(part)
            return
        self.found += [(sha, d.finding) for d in part.detections]
        if keep:
            self.secrets += [d.secret for d in part.detections]
        self.result.add(dataclasses.replace(part, detections=[]))

    def add(self, other: BatchResult) -> BatchResult:
        """Take in another batch's results (the one way batches are merged); returns this."""
        self.found += other.found
        self.secrets += other.secrets
        self.signatures.update(other.signatures)
        self.unreadable += other.unreadable
        self.result.add(other.result)
        self.blobs += other.blobs
        self.messages += other.messages
        return self


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
    ctx: ScanContext

    def __post_init__(self) -> None:
        # Hyperscan (where installed) for every object, even small ones: one call per blob
        # costs less than the pure-Python finder's passes (measured on croc's history:
        # 2.1 s against 3.4 s in one process).
        self.ctx = self.ctx.using(finder_for(None))

    def blob(self, stdout: IO[bytes], obj: GitObject) -> ScanResult:
        if obj.size <= WHOLE_SIZE:
            return scan_buffer(_read_exact(stdout, obj.size), obj.sha, self.ctx)
        read = blob_reader(stdout, obj.size)
        part = scan_layers(read, obj.sha, self.ctx, size=obj.size)
        while read(1 << 16):
            pass  # what a decoder left unread: stay in step with cat-file
        return part

    def message(self, stdout: IO[bytes], obj: GitObject) -> tuple[ScanResult, Signature | None]:
        """A commit's or tag's message scanned, and its signature when it holds a finding."""
        data = _read_exact(stdout, obj.size)
        header, _, message = data.partition(b"\n\n")
        if not message:
            return ScanResult(), None
        part = scan_buffer(message, "", self.ctx)
        return part, signature(header) if part.detections else None


def scan_objects(objects: list[GitObject], ctx: ScanContext) -> BatchResult:
    """Read and scan ``objects`` (see the module's docstring); ``ctx.keep_secrets`` keeps
    each finding's secret in ``secrets`` (in this process only)."""
    out = BatchResult()
    scanner = _Scanner(ctx)
    left = list(objects)
    while left:
        done, read = _one_cat_file(left, scanner)
        out.add(read)
        if done < len(left):
            out.unreadable.append(left[done].sha)  # cat-file died on it: the rest again
            done += 1
        left = left[done:]
    return out


def _one_cat_file(objects: list[GitObject], scanner: _Scanner) -> tuple[int, BatchResult]:
    """Scan ``objects`` with one cat-file: how many it got through (fewer when it died: what
    it found in the object it died within is not reported), and what they held."""
    out = BatchResult()
    shas = [obj.sha for obj in objects]
    keep = scanner.ctx.keep_secrets
    with GitStream(["cat-file", "--batch"], "{history}", options=("history",), stdin=True) as git:
        feeder = threading.Thread(target=feed_lines, args=(git.stdin, shas), daemon=True)
        feeder.start()
        try:
            for done, obj in enumerate(objects):
                read = _next_object(git.stdout, obj, scanner)
                if read is None:
                    return done, out
                if read is _MISSING:
                    out.unreadable.append(obj.sha)
                    continue
                part, sig = read
                if sig is not None:
                    out.signatures[obj.sha] = sig
                out.take(obj.sha, part, keep)
                if obj.kind == "blob":
                    out.blobs += 1
                    out.result.files += 1
                else:
                    out.messages += 1
            return len(objects), out
        finally:
            git.kill()  # every object is read, or nothing more will be
            feeder.join()


# What _next_object answers for an object cat-file says it does not have.
_MISSING: tuple[ScanResult, Signature | None] = (ScanResult(), None)


def _next_object(
    stdout: IO[bytes], obj: GitObject, scanner: _Scanner
) -> tuple[ScanResult, Signature | None] | None:
    """The next object cat-file prints, scanned (with its signature, for a message holding a
    finding); :data:`_MISSING` when cat-file says it is missing; None when cat-file ended
    before it."""
    header = stdout.readline()
    if not header:
        return None
    fields = header.split()
    if len(fields) != 3 or not fields[2].isdigit():  # "<id> missing": gone after all
        return _MISSING
    # The size cat-file is about to print, whatever the listing said: its reader stays in step.
    obj = dataclasses.replace(obj, size=int(fields[2]))
    read: tuple[ScanResult, Signature | None]
    try:
        if obj.kind == "blob":
            read = scanner.blob(stdout, obj), None
        else:
            read = scanner.message(stdout, obj)
    except InputError:
        return None  # ended within the object
    stdout.read(1)  # the newline after each object
    return read


__all__ = ["WHOLE_SIZE", "BatchResult", "Signature", "scan_objects", "signature"]
