"""Watch: follow live logs as ``tail -F`` does, report each new leak once, and (``--revoke``)
kill it within a second, unattended.

    follow     files across rotation and truncation, standard input
    appended   scanning a growing stream line by line, in bounded memory
    watcher    the loop: poll, scan, act on a thread pool, stop cleanly
    responder  revoke a PAT through the inventory, log a leaked session out
    seen       what was seen and done, by fingerprint (``--state FILE``)
    events     one masked line or JSON object per leak
"""

from __future__ import annotations

from hygiene.watch.events import Event
from hygiene.watch.follow import FileFollower, StreamFollower
from hygiene.watch.responder import Responder
from hygiene.watch.seen import Seen
from hygiene.watch.watcher import Stream, Watcher

__all__ = ["Event", "FileFollower", "Responder", "Seen", "Stream", "StreamFollower", "Watcher"]
