"""``--history``: every object history holds, each read once, and each finding attributed.

1. List every blob, commit and annotated tag reachable from the scope
   (:mod:`~hygiene.scan.sources.objects`): branches, tags, ``refs/stash`` (its work tree,
   index and untracked parts are commits of their own), ``refs/notes/*``, with ``--reflog``
   the reflogs' entries; minus what ``--since`` reaches.
2. Read and scan them in batches (:mod:`~hygiene.scan.sources.blobs`, in worker processes
   past a size, :mod:`~hygiene.scan.sources.blobpool`): a blob through every decoder, as a
   file; a commit's or tag's message as text.
3. Attribute each blob with findings to the commit and path that first introduced it
   (:mod:`~hygiene.scan.sources.attribution`: the rule is written there), with its author and
   date; say whether its secret is still in HEAD's tree. A message's finding is its commit's
   (or its tag's: ``commit`` is then the tag object's id).
4. Report each secret once per path: the same fingerprint at the same path in several blobs
   (a file edited around a token) is one finding, the first.

An object git cannot read is one error line naming its id; the rest is scanned and reported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import time

from hygiene.detection import Secret
from hygiene.gitcmd import git_output
from hygiene.progress import ScanProgress
from hygiene.scan.findings import Detection, Finding, ScanResult
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.attribution import (
    Introduction,
    first_of,
    head_blobs,
    introductions,
    signatures,
)
from hygiene.scan.sources.blobpool import BATCH_BYTES, BATCH_OBJECTS, run_batches
from hygiene.scan.sources.blobs import BatchResult
from hygiene.scan.sources.files import Excluder
from hygiene.scan.sources.objects import Listing, batches, list_objects
from hygiene.scan.sources.scope import HistoryScope

_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?![0-9a-f])")
# Unattributed blobs come last.
_LAST = 1 << 62


def _unreadable(sha: str, reason: str) -> str:
    return f"object {sha}: {reason}; not scanned"


def scan_history(ctx: ScanContext, scope: HistoryScope) -> ScanResult:
    """Findings in everything ``scope`` reaches, but for the paths ``ctx.excludes`` names
    (see the module's docstring); ``ctx.progress`` hears of each batch of objects."""
    started = time.perf_counter()
    progress = ctx.progress if ctx.progress is not None else ScanProgress()
    listing = Listing()
    # Closed on any way out: the listing's gits are killed then, not when collected.
    with contextlib.closing(list_objects(scope, listing)) as objects:
        grouped = batches(objects, BATCH_BYTES, BATCH_OBJECTS)
        collected = run_batches(grouped, ctx, progress)
    result = ScanResult(
        errors=[
            *_grafted(),
            *(_unreadable(sha, "missing") for sha in listing.missing),
            *(_unreadable(sha, "cannot be read") for sha in collected.unreadable),
        ]
    )
    placed = _attributed(collected, scope, Excluder(ctx.excludes))
    result.add(placed)
    result.add(dataclasses.replace(collected.result, errors=[]))
    result.seconds = time.perf_counter() - started
    return result


def _grafted() -> list[str]:
    """An error line when the repository's ``info/grafts`` file gives commits other parents:
    git then walks a history without the commits it cuts off, so what only they hold is not
    scanned (no configuration value turns grafts off; ``GIT_GRAFT_FILE=/dev/null`` does)."""
    path = git_output(["rev-parse", "--git-path", "info/grafts"], "{history}")
    name = os.fsdecode(path.rstrip(b"\n"))
    try:
        grafted = os.path.isfile(name) and os.path.getsize(name) > 0
    except OSError:
        grafted = False
    if not grafted:
        return []
    return [
        f"{name}: grafts rewrite this repository's history; commits they cut off are not "
        "scanned (set GIT_GRAFT_FILE=/dev/null to scan them)"
    ]


def _placed_errors(errors: list[str], first: dict[str, Introduction]) -> list[str]:
    """What a decoder could not read in a blob (``SHA!member: ...``), shown at the commit and
    path that introduced the blob (``COMMIT12:PATH!member: ...``)."""
    placed = []
    for error in errors:
        intro = first.get(error[:40])
        if intro is not None:
            error = f"{intro.commit[:12]}:{intro.path}{error[40:]}"
        placed.append(error)
    return placed


def _attributed(collected: BatchResult, scope: HistoryScope, excluder: Excluder) -> ScanResult:
    """Each finding placed at its commit and path, one per fingerprint and path, in order,
    and the decoders' errors placed too."""
    messages = collected.signatures
    blobs = {sha for sha, _ in collected.found if sha not in messages}
    blobs.update(e[:40] for e in collected.result.errors if _OBJECT_ID.match(e))
    every, excluded = introductions(scope, blobs, excluder)
    first = {b: first_of(i) for b, i in every.items()}
    result = ScanResult(errors=_placed_errors(collected.result.errors, first))
    head = head_blobs()
    at_head = {f.fingerprint for sha, f in collected.found if sha in head}
    slots = _slots(collected, every, excluded)
    chosen = {slot: first_of(list(where)) for slot, where in slots.items()}
    who = {**signatures({i.commit for i in chosen.values()} - messages.keys()), **messages}
    placed = []
    for slot, intro in chosen.items():
        finding, secret = min(slots[slot][intro], key=lambda p: (p[0].line, p[0].column))
        sig = who.get(intro.commit)
        placed_finding = dataclasses.replace(
            finding,
            path=slot[1],
            commit=intro.commit or None,
            author=sig.author if sig else None,
            date=sig.date if sig else None,
            present_at_head=finding.fingerprint in at_head,
        )
        key = (intro.time, intro.commit, slot[1], finding.line, finding.column)
        placed.append((key, placed_finding, secret))
    placed.sort(key=lambda p: p[0])
    for _, finding, secret in placed:
        if secret is None:
            result.findings_only.append(finding)
        else:
            result.detections.append(Detection(finding, secret))
    return result


# Per (fingerprint, path): each introduction holding it, with the findings it brings.
_Slots = dict[tuple[str, str], dict[Introduction, list[tuple[Finding, "Secret | None"]]]]


def _slots(
    collected: BatchResult, every: dict[str, list[Introduction]], excluded: set[str]
) -> _Slots:
    slots: _Slots = {}
    messages = collected.signatures
    secrets: list[Secret | None] = list(collected.secrets) or [None] * len(collected.found)
    for (sha, finding), secret in zip(collected.found, secrets, strict=True):
        if sha in messages:
            places = [(Introduction(messages[sha].time, sha, ""), "")]
        elif sha in every:
            suffix = finding.path[len(sha) :]
            places = [(intro, intro.path + suffix) for intro in every[sha]]
        elif sha in excluded:
            continue  # every path that introduced it is excluded
        else:  # reachable, but no commit of the scope introduced it (a tag naming a blob)
            places = [(Introduction(_LAST, "", finding.path), finding.path)]
        for intro, path in places:
            here = slots.setdefault((finding.fingerprint, path), {})
            here.setdefault(intro, []).append((finding, secret))
    return slots


__all__ = ["scan_history"]
