"""Writers that captured ``sys.stdout`` / ``sys.stderr`` before ``install()`` replaced them.

``install()`` puts a guard in place of each stream, but whatever took the stream object
before still holds the real one: a ``logging.StreamHandler`` made earlier (attached to a
logger or not yet), and loguru's sinks (its default sink is ``sys.stderr`` as loguru found it
on import; ``logger.add(sys.stderr)`` and ``logger.add(sys.stdout.write)`` hold it too).
structlog's writers hold it too: a ``PrintLogger(sys.stderr)``, a ``WriteLogger`` or
``BytesLogger`` (``sys.stdout.buffer``) made before, cached by ``cache_logger_on_first_use``,
and a logger factory configured with the stream (``PrintLoggerFactory(sys.stderr)``), whose
every later logger would. Each is pointed at the guard, and pointed back by ``uninstall()``.

loguru keeps its sinks in private attributes (``logger._core.handlers``, a sink's
``_stream`` or ``_function``). Where they cannot be read or changed (another loguru version),
the sinks that write to a real stream are named in a :class:`UncoveredWarning` rather than
left uncovered silently. structlog keeps no list of the loggers it made: they are found
among the objects the garbage collector tracks, by their structlog class (once, at
``install()``, and only where structlog was imported).
"""

from __future__ import annotations

import gc
import logging
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

# How to put a writer back: (object, attribute, original value).
Restore = tuple[object, str, Any]


class UncoveredWarning(UserWarning):
    """Something writes to the real ``sys.stdout`` / ``sys.stderr`` and ``install()`` could
    not point it at the guard: what it writes is not masked."""


def every_handler() -> Iterator[logging.Handler]:
    """Every live handler of ``logging``: on loggers or not (``logging`` keeps a weak list of
    all it made), ``lastResort`` included."""
    seen: set[int] = set()
    loggers = [logging.getLogger()]
    known = logging.Logger.manager.loggerDict.values()
    loggers += [lg for lg in known if isinstance(lg, logging.Logger)]
    handlers = [h for lg in loggers for h in lg.handlers]
    for ref in list(getattr(logging, "_handlerList", ())):
        handler = ref() if callable(ref) else None
        if isinstance(handler, logging.Handler):
            handlers.append(handler)
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if id(handler) not in seen:
            seen.add(id(handler))
            yield handler


def guard_loguru(guards: Mapping[int, Any]) -> list[Restore]:
    """Point loguru's sinks that hold a real stream (by ``id`` in ``guards``) at its guard.

    Returns what to restore; warns (:class:`UncoveredWarning`) naming the sinks it could not
    reach. Nothing happens when loguru was never imported.
    """
    loguru = sys.modules.get("loguru")
    if loguru is None or not guards:  # (no guards: an earlier install() put them in place)
        return []
    try:
        handlers = dict(loguru.logger._core.handlers)
    except Exception:  # another loguru: its sinks cannot be listed
        _warn("loguru's sinks (they cannot be listed in this loguru version)")
        return []
    restore: list[Restore] = []
    for handler in handlers.values():
        sink = getattr(handler, "_sink", None)
        found = _repointed(sink, guards)
        if found is None:
            if _holds_a_stream(handler, guards):
                _warn(f"loguru sink {handler!r}")
            continue
        restore.append(found)
    return restore


def _repointed(sink: object, guards: Mapping[int, Any]) -> Restore | None:
    """Point ``sink`` at the guard of the stream it holds; what to restore, or None."""
    stream = getattr(sink, "_stream", None)
    if stream is not None and id(stream) in guards:
        return _set(sink, "_stream", guards[id(stream)])
    function = getattr(sink, "_function", None)
    owner = getattr(function, "__self__", None)
    if owner is not None and id(owner) in guards:
        name = getattr(function, "__name__", "write")
        replacement: Callable[..., Any] | None = getattr(guards[id(owner)], name, None)
        if replacement is not None:
            return _set(sink, "_function", replacement)
    return None


def _set(owner: object, name: str, value: object) -> Restore | None:
    try:
        original = getattr(owner, name)
        setattr(owner, name, value)
    except Exception:  # a slotted or frozen sink
        return None
    return (owner, name, original)


def _holds_a_stream(handler: object, guards: Mapping[int, Any]) -> bool:
    """Whether a loguru handler's sink writes to a real stream: one it holds in the ways
    above, or, for a sink of another kind, one its description names."""
    sink = getattr(handler, "_sink", None)
    held = [
        getattr(sink, "_stream", None),
        getattr(getattr(sink, "_function", None), "__self__", None),
    ]
    if any(obj is not None and id(obj) in guards for obj in held):
        return True
    if any(obj is not None and type(obj).__name__.startswith("Guarded") for obj in held):
        return False  # pointed at a guard already
    return any(f"<{name}>" in repr(handler) for name in ("stderr", "stdout"))


# structlog's classes that write to a file they hold (its loggers) or hand one to each logger
# they make (its factories).
_STRUCTLOG_WRITERS = (
    "PrintLogger",
    "WriteLogger",
    "BytesLogger",
    "PrintLoggerFactory",
    "WriteLoggerFactory",
    "BytesLoggerFactory",
)


def guard_structlog(guards: Mapping[int, Any]) -> list[Restore]:
    """Point structlog's writers that hold a real stream (by ``id`` in ``guards``; its binary
    buffer too) at its guard: each attribute holding the stream or one of its methods, and
    the writer's lock (structlog's lock of the guard instead, so writers through it take one
    lock). Returns what to restore; warns (:class:`UncoveredWarning`) naming a writer that
    cannot be changed. Nothing happens when structlog was never imported."""
    structlog = sys.modules.get("structlog")
    if structlog is None or not guards:
        return []
    kinds = tuple(
        kind
        for kind in (getattr(structlog, name, None) for name in _STRUCTLOG_WRITERS)
        if isinstance(kind, type)
    )
    held = _held_streams(guards)
    targets = {id(real): guard for real, guard in held}
    restore: list[Restore] = []
    for writer in _holders(kinds, [real for real, _ in held], targets):
        restore.extend(_repointed_writer(writer, targets))
    return restore


def _held_streams(guards: Mapping[int, Any]) -> list[tuple[object, Any]]:
    """The real streams ``guards`` names (by ``id``), and their binary buffers, each with
    what takes its place (the guard, the guard's buffer)."""
    known = [
        sys.__stdout__,
        sys.__stderr__,
        *(getattr(g, "wrapped", None) for g in guards.values()),
    ]
    held: dict[int, tuple[object, Any]] = {}
    for stream in known:
        if stream is None or id(stream) not in guards:
            continue
        guard = guards[id(stream)]
        held.setdefault(id(stream), (stream, guard))
        raw = getattr(stream, "buffer", None)
        # (The guard of a stream without a buffer, a StringIO, has none: sys.__stdout__'s
        # guard is sys.stdout's, whatever sys.stdout was.)
        guarded = getattr(guard, "buffer", None)
        if raw is not None and guarded is not None:
            held.setdefault(id(raw), (raw, guarded))
    return list(held.values())


def _holders(
    kinds: tuple[type, ...], streams: list[object], targets: Mapping[int, Any]
) -> list[object]:
    """The objects of ``kinds`` that hold one of ``streams`` as ``_file`` (every structlog
    writer does), found by what refers to the streams: one pass of the collector in C (a
    Python loop over every object took 120 ms in a large process)."""
    found: dict[int, object] = {}
    for referrer in gc.get_referrers(*streams):
        # type(), never isinstance(): an object may lie about its __class__ (a lazy proxy's
        # raises).
        if issubclass(type(referrer), kinds):
            found[id(referrer)] = referrer
        elif type(referrer) is dict and id(referrer.get("_file")) in targets:
            # The instance's dict is made (Python 3.10, or its attributes were listed): its
            # owner is what refers to it.
            for owner in gc.get_referrers(referrer):
                if issubclass(type(owner), kinds) and getattr(owner, "__dict__", None) is referrer:
                    found[id(owner)] = owner
    return list(found.values())


def _repointed_writer(writer: object, targets: Mapping[int, Any]) -> list[Restore]:
    done: list[Restore] = []
    guard = None
    for name in _attributes(writer):
        value = getattr(writer, name, None)
        new = _guarded(value, targets)
        if new is None:
            continue
        found = _set(writer, name, new)
        if found is None:
            _warn(f"structlog writer {writer!r}")
            return done
        done.append(found)
        guard = new if id(value) in targets else guard
    lock = _structlog_lock(guard)
    if lock is not None and hasattr(writer, "_lock"):
        found = _set(writer, "_lock", lock)
        done += [found] if found is not None else []
    return done


def _attributes(writer: object) -> list[str]:
    """The names of ``writer``'s own attributes: its ``__dict__``'s and its slots (structlog's
    ``BytesLogger`` has slots)."""
    names = list(getattr(writer, "__dict__", {}))
    for kind in type(writer).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return [n for n in dict.fromkeys(names) if n not in ("__dict__", "__weakref__", "_lock")]


def _guarded(value: object, targets: Mapping[int, Any]) -> Any:
    """What ``value`` becomes: the guard of the stream it is, or the guard's method of the
    stream's method it is; None when it is neither."""
    if id(value) in targets:
        return targets[id(value)]
    owner = getattr(value, "__self__", None)
    if owner is None or id(owner) not in targets:
        return None
    return getattr(targets[id(owner)], getattr(value, "__name__", "write"), None)


def _structlog_lock(guard: object) -> Any:
    """structlog's lock of ``guard`` (one per file it writes to); None without one."""
    output = sys.modules.get("structlog._output")
    lock_for = getattr(output, "_get_lock_for_file", None)
    if guard is None or not callable(lock_for):
        return None
    try:
        return lock_for(guard)
    except Exception:  # another structlog: its writers keep their locks
        return None


def _warn(what: str) -> None:
    warnings.warn(
        f"hygiene.masking.install(): {what} writes to the real standard stream; "
        "what it writes is not masked (add it again after install(), or wrap it with "
        "hygiene.masking.recipes.loguru.sink)",
        UncoveredWarning,
        stacklevel=4,
    )


def restore(done: list[Restore]) -> None:
    """Put back what :func:`guard_loguru` changed."""
    for owner, name, original in reversed(done):
        try:
            setattr(owner, name, original)
        except Exception:  # noqa: S112 - the sink is gone or frozen: nothing to put back
            continue
