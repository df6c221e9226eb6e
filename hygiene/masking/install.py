"""``install()``: mask every record of the process, and (by default) its standard streams.

What it does, and why each hook:

* wraps ``logging.Logger.makeRecord`` (on the class), so every record is masked once, when
  it is complete: message, arguments, exception, ``stack_info`` and ``extra=`` attributes
  (``logging`` adds extras after the record factory runs, so a factory alone misses them);
* wraps ``logging.Handler.filter`` (on the class), so every handler masks what reaches it:
  records made elsewhere (``logging.makeLogRecord`` in a socket receiver, records unpickled
  from another process's queue, a ``LogRecord`` built by hand) and records a filter handed
  back in place of another. A record the ``makeRecord`` hook masked is known at once (it is
  marked, or remembered as clean), so a record is masked once, not once per hook. The
  handler's own filters run first, as before, and a record they drop is not masked at all;
  attributes they add (a context filter putting request data on the record) are masked.
  A record of a logger with filters of its own is masked when made and again here, after
  them.

Hooks on classes survive every reconfiguration: ``dictConfig`` (Django's second setup under
runserver included) and ``basicConfig(force=True)`` replace handlers and their filters, never
the ``Logger`` and ``Handler`` classes, so handlers made after ``install()`` are covered too.
(A filter object on each handler would cost every record a second call, 3% of what
plain logging costs, and would be gone after the next ``dictConfig``.) A handler class that
overrides ``filter`` without calling ``super().filter`` is reached by the first hook only.

With ``streams=True`` (the default), it also replaces ``sys.stdout`` and ``sys.stderr`` by
:class:`~hygiene.masking.guard.GuardedText`, so ``print``, uncaught exceptions, dying
threads, unraisable exceptions, ``http.client`` debug output and debuggers are masked too;
``StreamHandler``\\ s that already hold the real stream (attached to a logger or not yet)
are pointed at the guard, and so are loguru's sinks that do (its default sink took
``sys.stderr`` on import); a loguru sink it cannot reach is named in an
:class:`~hygiene.masking.captured.UncoveredWarning` (:mod:`hygiene.masking.captured`). It is the
default because ``install()`` promises a clean process, and most leaks seen in real stacks
never go through ``logging``; ``install(streams=False)`` leaves the streams alone.

Calling it twice adds nothing twice. It returns an :class:`Installation` whose
``uninstall()`` takes everything back (tests use it).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hygiene.masking.captured import Restore
    from hygiene.masking.guard import GuardedText

# The filter, the guard and loguru's sinks are imported when install() runs: `hygiene mask`
# imports this package (and so this module) for the stream alone, and would pay for them.

MakeRecord = Callable[..., logging.LogRecord]
HandlerFilter = Callable[[logging.Handler, logging.LogRecord], Any]


def _masking(make_record: MakeRecord) -> MakeRecord:
    from hygiene.masking.records import redact_record, unsettle

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
        if stock and extra is None and not self.filters:  # what makeRecord does: one call less
            factory: Callable[..., logging.LogRecord] = logging._logRecordFactory  # type: ignore[attr-defined]
            record = factory(name, level, fn, lno, msg, args, exc_info, func, sinfo)
            # The stock factory adds no attribute: no extras to look for.
            redact_record(record, factory is logging.LogRecord)
            return record
        record = make_record(self, name, level, fn, lno, msg, args, exc_info, func, extra, sinfo)
        redact_record(record)
        if self.filters:
            # The logger's filters run next and may add attributes (a context filter putting
            # request headers on the record): masked now, and again by the handler hook.
            unsettle(record)
        return record

    make_masked_record.hygiene_masking = True  # type: ignore[attr-defined]
    return make_masked_record


def _masking_filter(original: HandlerFilter) -> HandlerFilter:
    from hygiene.masking.records import redact_record, redact_unfiltered

    # The standard library's own filter (not one some other library put over it) does
    # nothing for a handler without filters: the hook skips that call then.
    stock = original is logging.Filterer.filter

    def filter_then_mask(self: logging.Handler, record: logging.LogRecord) -> Any:
        if stock and not self.filters:
            redact_unfiltered(record)  # a record the makeRecord hook saw returns at once
            return True
        verdict = original(self, record)
        if not verdict:
            return verdict  # dropped: nothing is written, nothing to mask
        # Python 3.12+: a filter may hand back another record, the one then written. The
        # filters may have added attributes: looked for again.
        redact_record(verdict if isinstance(verdict, logging.LogRecord) else record)
        return verdict

    functools.update_wrapper(filter_then_mask, original)
    filter_then_mask.hygiene_masking = True  # type: ignore[attr-defined]
    return filter_then_mask


def _wrap(owner: type, name: str, masking: Callable[[Any], Any]) -> Any:
    """Put ``masking(method)`` over ``owner.name``; the method it wrapped, or None when a
    masking hook is there already."""
    current = getattr(owner, name)
    if getattr(current, "hygiene_masking", False):
        return None
    setattr(owner, name, masking(current))
    return current


def _unwrap(owner: type, name: str, original: Any) -> None:
    """Give ``owner.name`` back ``original`` (None: nothing was wrapped). Only our own
    wrapper is taken off, not one someone put over it since; a method ``owner`` inherited
    (``Handler.filter`` is ``Filterer``'s) is inherited again."""
    if original is None or getattr(getattr(owner, name), "__wrapped__", None) is not original:
        return
    delattr(owner, name)
    if getattr(owner, name, None) is not original:
        setattr(owner, name, original)


@dataclass
class Installation:
    """What :func:`install` changed, so that it can be taken back."""

    make_record: MakeRecord | None = None  # the method it wrapped, if it did
    handler_filter: HandlerFilter | None = None  # likewise
    streams: dict[str, GuardedText] = field(default_factory=dict)
    handler_streams: list[tuple[logging.StreamHandler[Any], Any]] = field(default_factory=list)
    sinks: list[Restore] = field(default_factory=list)  # loguru's, structlog's

    def uninstall(self) -> None:
        """Unwrap ``makeRecord`` and ``Handler.filter``, and give the streams back."""
        from hygiene.masking import captured

        _unwrap(logging.Logger, "makeRecord", self.make_record)
        _unwrap(logging.Handler, "filter", self.handler_filter)
        for handler, stream in self.handler_streams:
            if handler.stream in self.streams.values():
                handler.setStream(stream)
        captured.restore(self.sinks)
        for name, guard in self.streams.items():
            guard.flush()
            if getattr(sys, name) is guard:
                setattr(sys, name, guard.wrapped)


def install(*, streams: bool = True) -> Installation:
    """Mask every record of this process's logging, and with ``streams`` (the default) what
    it writes to ``sys.stdout`` / ``sys.stderr`` (see the module docs for how)."""
    installation = Installation()
    installation.make_record = _wrap(logging.Logger, "makeRecord", _masking)
    installation.handler_filter = _wrap(logging.Handler, "filter", _masking_filter)
    if streams:
        _guard_streams(installation)
    return installation


def _guard_streams(installation: Installation) -> None:
    from hygiene.masking import captured
    from hygiene.masking.guard import GuardedText

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
    # Handlers, loguru sinks and structlog loggers made before now hold the stream object
    # itself: point them at the guard (captured.py; those it cannot reach are named in a
    # warning).
    for handler in captured.every_handler():
        stream = getattr(handler, "stream", None)
        if isinstance(handler, logging.StreamHandler) and id(stream) in originals:
            installation.handler_streams.append((handler, stream))
            handler.setStream(originals[id(stream)])
    installation.sinks = captured.guard_loguru(originals) + captured.guard_structlog(originals)
