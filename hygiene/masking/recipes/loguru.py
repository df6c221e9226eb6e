"""loguru: a patcher for records and a sink wrapper for what handlers render.

loguru does not go through ``logging``, so :func:`hygiene.masking.install` never sees it::

    from loguru import logger
    from hygiene.masking.recipes import loguru as masking

    logger.remove()
    logger.configure(patcher=masking.patcher)
    logger.add(masking.sink(sys.stderr), diagnose=True, backtrace=True)

:func:`patcher` masks the message, ``extra`` and the exception (a masked copy of the same
type, with its traceback) of each record: what a custom sink or an ``InterceptHandler`` reads; :func:`sink` masks the text a handler writes, which is the only
place where the exception, its chained causes and, with ``diagnose=True``, the values of its
frames' variables exist as text. loguru itself is not imported here.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, Protocol

from hygiene.masking.exceptions import mask_exception
from hygiene.masking.recipes.frames import mask_rendered
from hygiene.masking.text import mask
from hygiene.masking.values import mask_value


class _Writable(Protocol):
    def write(self, text: str, /) -> object: ...


def patcher(record: MutableMapping[str, Any]) -> None:
    """Mask ``record["message"]`` and the values of ``record["extra"]`` in place."""
    try:
        message = record.get("message")
        if isinstance(message, str):
            record["message"] = mask(message)
        _mask_exception(record)
        extra = record.get("extra")
        if isinstance(extra, MutableMapping):
            for key, value in list(extra.items()):
                masked = mask_value(value, key)
                if masked is not value:
                    extra[key] = masked
    except Exception:  # noqa: S110 - a patcher that raises breaks the caller's logging call
        pass


def _mask_exception(record: MutableMapping[str, Any]) -> None:
    """``record["exception"]`` with a masked copy of the same type (sinks that ship the
    exception object, such as Sentry's, see no secret); the traceback stays."""
    exception = record.get("exception")
    value = getattr(exception, "value", None)
    replace = getattr(exception, "_replace", None)
    if not isinstance(value, BaseException) or replace is None:
        return
    masked = mask_exception(value)
    if masked is None:
        masked = type(value).__new__(type(value))
        masked.args = (mask(str(value)),)
    if masked is not value:
        record["exception"] = replace(value=masked)


def sink(target: _Writable | Callable[[str], object]) -> Callable[[str], None]:
    """A loguru sink that masks each rendered message, then hands it to ``target``.

    ``target`` is a text stream (``sys.stderr``, an open file: written and flushed) or a
    callable taking the text. Masking covers the rendered exception and its locals.
    """
    write: Callable[[str], object]
    flush: Callable[[], object] | None = None
    if hasattr(target, "write"):
        write = target.write
        flush = getattr(target, "flush", None)
    else:
        write = target

    def masking_sink(message: str) -> None:
        write(mask_rendered(str(message)))
        if flush is not None:
            flush()

    return masking_sink
