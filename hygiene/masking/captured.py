"""Writers that captured ``sys.stdout`` / ``sys.stderr`` before ``install()`` replaced them.

``install()`` puts a guard in place of each stream, but whatever took the stream object
before still holds the real one: a ``logging.StreamHandler`` made earlier (attached to a
logger or not yet), and loguru's sinks (its default sink is ``sys.stderr`` as loguru found it
on import; ``logger.add(sys.stderr)`` and ``logger.add(sys.stdout.write)`` hold it too).
Each is pointed at the guard, and pointed back by ``uninstall()``.

loguru keeps its sinks in private attributes (``logger._core.handlers``, a sink's
``_stream`` or ``_function``). Where they cannot be read or changed (another loguru version),
the sinks that write to a real stream are named in a :class:`UncoveredWarning` rather than
left uncovered silently.
"""

from __future__ import annotations

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
