"""Watch: follow live logs as ``tail -F`` does, report each new leak once, and (``--revoke``)
kill it within a second, unattended.

    follow     files across rotation and truncation, standard input
    folder     folders, recursively: new files found by a listing each second (bounded)
    paths      what a followed path may be opened as (never through a link swapped in)
    appended   scanning a growing stream line by line, in bounded memory
    watcher    the loop: poll, scan, settle unknown PATs at once, queue actions, stop cleanly
    actions    the bounded action queue: a thread pool, deferred leaks, PATs first
    responder  revoke a PAT through the inventory, log a leaked session out
    index      the inventory in memory, read again when its file changes
    seen       what was seen and done, by fingerprint, and where each file stands (``--state``)
    statefile  the state file: a regular file of bounded size, appended to, compacted
    events     one masked line or JSON object per leak
"""

from __future__ import annotations

from hygiene.watch.events import Event
from hygiene.watch.follow import FileFollower, StreamFollower
from hygiene.watch.responder import Responder
from hygiene.watch.seen import Seen
from hygiene.watch.watcher import Stream, Watcher

__all__ = ["Event", "FileFollower", "Responder", "Seen", "Stream", "StreamFollower", "Watcher"]
