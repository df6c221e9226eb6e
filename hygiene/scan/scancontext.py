"""How one scan reads every input: built once from its request, handed to every source.

A :class:`ScanContext` carries what each part of a scan needs to read an input the same way:
the chunk size, the decoders' bounds, the line allowlist and markers, whether secrets stay in
this process, how many workers, the ``--exclude`` globs, and the callbacks (progress, a
FIFO's wait) and the needle finder of the run. The files, the index and history read through
it, in this process and in the workers (which get :meth:`ScanContext.for_workers`, its
picklable part, once per unit or batch).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hygiene.scan.limits import AllowLines, DecodeLimits
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE

if TYPE_CHECKING:
    from hygiene.progress import ScanProgress
    from hygiene.scan.matcher.needles import NeedleFinder

# Told (one line) why the scan waits, e.g. for a writer to open a FIFO named as a path.
Notice = Callable[[str], None]


@dataclass(frozen=True)
class ScanContext:
    """How every input of one scan is read (see the module's docstring).

    ``keep_secrets``: each detection keeps its token, in this process (no workers); without
    it, big scans may use ``jobs`` worker processes (None: one per core, at most 8).
    ``finder``: the needle finder of the inputs being read (None: each input's own, by its
    size); a run over many files sets one for all (:meth:`using`)."""

    chunk_size: int = DEFAULT_CHUNK_SIZE
    limits: DecodeLimits = field(default_factory=DecodeLimits)
    allow: AllowLines = field(default_factory=AllowLines)
    keep_secrets: bool = True
    jobs: int | None = None
    excludes: tuple[str, ...] = ()
    on_wait: Notice | None = field(default=None, compare=False)
    progress: ScanProgress | None = field(default=None, compare=False)
    finder: NeedleFinder | None = field(default=None, compare=False)

    def using(self, finder: NeedleFinder | None) -> ScanContext:
        """This context with ``finder`` for the inputs read next."""
        return dataclasses.replace(self, finder=finder)

    def for_workers(self) -> ScanContext:
        """What a worker process needs, and can be pickled: no callback, no finder (a
        Hyperscan database stays in the process that compiled it; a worker makes its own)."""
        return dataclasses.replace(self, on_wait=None, progress=None, finder=None)


__all__ = ["Notice", "ScanContext"]
