"""``install()``: mask every record of the process, and (by default) its standard streams.

What it does, and why each hook:

* wraps ``logging.Logger.makeRecord`` (on the class), so every record is masked once, when
  it is complete: message, arguments, exception, ``stack_info`` and ``extra=`` attributes
  (``logging`` adds extras after the record factory runs, so a factory alone misses them). A
  hook on the class survives every reconfiguration: ``dictConfig`` (Django's second setup under
  runserver included) and ``basicConfig(force=True)`` replace handlers and their filters, never
  the ``Logger`` class. Records made elsewhere (``logging.makeLogRecord`` from a socket
  receiver, a ``LogRecord`` built by hand) are masked by the filter below;
* puts one :class:`RedactingFilter` on every handler that exists now: the root logger's, those
  of every other logger (``propagate=False`` ones such as ``uvicorn.access`` included) and
  ``logging.lastResort``. It costs nothing on records already masked (they are marked);
* with ``streams=True`` (the default), replaces ``sys.stdout`` and ``sys.stderr`` by
  :class:`~hygiene.masking.guard.GuardedText`, so ``print``, uncaught exceptions, dying
  threads, unraisable exceptions, ``http.client`` debug output and debuggers are masked too;
  ``StreamHandler``\\ s that already hold the real stream are pointed at the guard. It is the
  default because ``install()`` promises a clean process, and most leaks seen in real stacks
  never go through ``logging``; ``install(streams=False)`` leaves the streams alone.

Calling it twice adds nothing twice. It returns an :class:`Installation` whose
``uninstall()`` takes everything back (tests use it).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hygiene.masking.guard import GuardedText
from hygiene.masking.records import RedactingFilter, redact_record

MakeRecord = Callable[..., logging.LogRecord]


def _masking(make_record: MakeRecord) -> MakeRecord:
    # The signature spelled out: Logger._log passes ten positional arguments, and packing them
    # into *args costs more than the rest of a clean record's masking.
    # The standard library's own makeRecord (not one some other library put over it): with
    # no extras, all it does is call the record factory, and the hook does so itself.
    code = getattr(make_record, "__code__", None)
    stock = code is not None and (code.co_filename, code.co_name) == (
        logging.__file__,
        "makeRecord",
    )

    @functools.wraps(make_record)
    def make_masked_record(
        self: logging.Logger,
        name: str,
        level: int,
        fn: str,
        lno: int,
        msg: object,
        args: Any,
        exc_info: Any,
        func: str | None = None,
        extra: Any = None,
        sinfo: str | None = None,
    ) -> logging.LogRecord:
        if stock and extra is None:  # what the stock makeRecord does then, one call less
            factory: Callable[..., logging.LogRecord] = logging._logRecordFactory  # type: ignore[attr-defined]
            record = factory(name, level, fn, lno, msg, args, exc_info, func, sinfo)
        else:
            record = make_record(
                self, name, level, fn, lno, msg, args, exc_info, func, extra, sinfo
            )
        redact_record(record)
        return record

    make_masked_record.hygiene_masking = True  # type: ignore[attr-defined]
    return make_masked_record


@dataclass
class Installation:
    """What :func:`install` changed, so that it can be taken back."""

    redactor: RedactingFilter
    handlers: list[logging.Handler] = field(default_factory=list)
    make_record: MakeRecord | None = None  # the method it wrapped, if it did
    streams: dict[str, GuardedText] = field(default_factory=dict)
    handler_streams: list[tuple[logging.StreamHandler[Any], Any]] = field(default_factory=list)

    def uninstall(self) -> None:
        """Remove the filters, unwrap ``makeRecord`` and give the streams back."""
        for handler in self.handlers:
            handler.removeFilter(self.redactor)
        original = self.make_record
        # Only our own wrapper is taken off, not one someone put over it since.
        if (
            original is not None
            and getattr(logging.Logger.makeRecord, "__wrapped__", None) is original
        ):
            logging.Logger.makeRecord = original  # type: ignore[method-assign,assignment]
        for handler, stream in self.handler_streams:
            if handler.stream in self.streams.values():
                handler.setStream(stream)
        for name, guard in self.streams.items():
            guard.flush()
            if getattr(sys, name) is guard:
                setattr(sys, name, guard.wrapped)


def install(*, streams: bool = True) -> Installation:
    """Mask every record of this process's logging, and with ``streams`` (the default) what
    it writes to ``sys.stdout`` / ``sys.stderr`` (see the module docs for how)."""
    installation = Installation(_current_redactor())
    for handler in _every_handler():
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(installation.redactor)
            installation.handlers.append(handler)
    current = logging.Logger.makeRecord
    if not getattr(current, "hygiene_masking", False):
        installation.make_record = current
        logging.Logger.makeRecord = _masking(current)  # type: ignore[method-assign]
    if streams:
        _guard_streams(installation)
    return installation


def _current_redactor() -> RedactingFilter:
    for handler in _every_handler():
        for f in handler.filters:
            if isinstance(f, RedactingFilter):
                return f
    return RedactingFilter()


def _guard_streams(installation: Installation) -> None:
    originals: dict[int, GuardedText] = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, GuardedText):
            continue
        guard = GuardedText(stream)
        setattr(sys, name, guard)
        installation.streams[name] = guard
        originals[id(stream)] = guard
    for dunder, name in (("__stdout__", "stdout"), ("__stderr__", "stderr")):
        real = getattr(sys, dunder, None)
        if real is not None and name in installation.streams:
            originals.setdefault(id(real), installation.streams[name])
    # Handlers made before now hold the stream object itself: point them at the guard.
    for handler in _every_handler():
        stream = getattr(handler, "stream", None)
        if isinstance(handler, logging.StreamHandler) and id(stream) in originals:
            installation.handler_streams.append((handler, stream))
            handler.setStream(originals[id(stream)])


def _every_handler() -> Iterator[logging.Handler]:
    seen: set[int] = set()
    loggers = [logging.getLogger()]
    known = logging.Logger.manager.loggerDict.values()
    loggers += [lg for lg in known if isinstance(lg, logging.Logger)]
    handlers = [h for lg in loggers for h in lg.handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if id(handler) not in seen:
            seen.add(id(handler))
            yield handler
