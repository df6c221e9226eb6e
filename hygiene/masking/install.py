"""``install()``: mask every record of the process with one call.

What it does:

* puts one :class:`RedactingFilter` on every handler that exists now: the root logger's, those
  of every other logger (``propagate=False`` ones such as ``uvicorn.access`` included) and
  ``logging.lastResort``; a filter on a handler sees child loggers' propagated records, a
  filter on a logger would not;
* wraps the log record factory, so records are masked when they are made: handlers added later
  still never see a secret in the message, its arguments, the exception or ``stack_info``
  (only ``extra=`` attributes, which ``logging`` adds after the factory, need the handler
  filter: call ``install()`` again after adding handlers, or attach the filter to them).

Calling it twice adds nothing twice. It returns an :class:`Installation` whose
``uninstall()`` takes everything back (tests use it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hygiene.masking.records import RedactingFilter

RecordFactory = Callable[..., logging.LogRecord]


class RedactingRecordFactory:
    """A log record factory that masks each record the wrapped factory makes."""

    def __init__(self, wrapped: RecordFactory, redactor: RedactingFilter) -> None:
        self.wrapped = wrapped
        self.redactor = redactor

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.wrapped(*args, **kwargs)
        self.redactor.filter(record)
        return record


@dataclass
class Installation:
    """What :func:`install` changed, so that it can be taken back."""

    redactor: RedactingFilter
    handlers: list[logging.Handler] = field(default_factory=list)
    factory: RedactingRecordFactory | None = None

    def uninstall(self) -> None:
        """Remove the filter from the handlers it was added to and unwrap the factory."""
        for handler in self.handlers:
            handler.removeFilter(self.redactor)
        if self.factory is not None and logging.getLogRecordFactory() is self.factory:
            logging.setLogRecordFactory(self.factory.wrapped)


def install() -> Installation:
    """Mask every record of this process's logging (see the module docs for how)."""
    current = logging.getLogRecordFactory()
    ours = current if isinstance(current, RedactingRecordFactory) else None
    redactor = ours.redactor if ours is not None else RedactingFilter()
    installation = Installation(redactor)
    for handler in _every_handler():
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(redactor)
            installation.handlers.append(handler)
    if ours is None:
        installation.factory = RedactingRecordFactory(current, redactor)
        logging.setLogRecordFactory(installation.factory)
    return installation


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
