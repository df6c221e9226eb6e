"""``RedactingFilter``: a ``logging.Filter`` after which no handler writes a secret.

It masks, on the record itself (so every later handler and formatter sees masked data):

* the rendered message (``getMessage()``: the secret may sit in the template, in an argument
  of any type, or be split across both); a record whose format fails is rendered safely
  instead of raising;
* mapping arguments (``logger.info("%(user)s", {...})``) whose unused keys hold secrets;
* exceptions: ``exc_info`` is rendered (chained causes included), masked into ``exc_text``
  and cleared, so formatters that render ``exc_info`` themselves cannot print the raw text or
  the frames' locals; an ``exc_text`` cached by an earlier handler is masked too;
* ``stack_info`` and every ``extra=`` attribute (copies; the caller's objects are untouched);
* structlog ``ProcessorFormatter`` records, whose ``msg`` is the event dict.

A record without secrets keeps its ``msg`` and ``args`` objects. Records with a secret in the
message get the masked text as ``msg`` and empty ``args``. The filter never raises and never
drops a record; running it twice (two handlers) changes nothing more.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Final

from hygiene.masking.text import mask
from hygiene.masking.values import mask_value

_PLAIN_RECORD: Final = logging.LogRecord("", logging.INFO, "", 0, "", None, None)
_STANDARD_COUNT: Final = len(_PLAIN_RECORD.__dict__)
_STANDARD_ATTRS: Final = frozenset(_PLAIN_RECORD.__dict__) | {"message", "asctime", "taskName"}
_FORMATTER: Final = logging.Formatter()
_UNMASKABLE: Final = "[hygiene.masking: this record could not be masked; its content is withheld]"


class RedactingFilter(logging.Filter):
    """Masks secrets in every record it sees; attach it to handlers (or use :func:`install`).

    With ``dictConfig``: ``"filters": {"redact": {"()": "hygiene.masking.RedactingFilter"}}``
    and ``"filters": ["redact"]`` on each handler.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        # This runs on every logging call of the process: the common case (a clean message,
        # no exception, no extras) is kept to a few checks in this one function.
        try:
            if type(record.msg) is dict and not record.args:
                _redact_event_dict(record)
            else:
                _redact_message(record)
            if record.exc_info or record.exc_text or record.stack_info:
                _redact_exception(record)
            if len(record.__dict__) > _STANDARD_COUNT:
                _redact_extras(record)
        except Exception:  # a filter that raises breaks the caller's logging call
            _blank(record)
        return True


def _redact_message(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:
        # The handler would report the failure with the raw arguments: render them masked.
        record.msg, record.args = mask(_fallback_message(record)), ()
        return
    masked = mask(message)
    if masked is not message:
        # Only records that held a secret lose their args (pitfall 4 of the notes).
        record.msg, record.args = masked, ()
    elif type(record.args) is not tuple and _mapping_args_hold_secret(record):
        record.msg, record.args = message, ()


def _redact_event_dict(record: logging.LogRecord) -> None:
    masked = mask_value(record.msg)  # structlog's ProcessorFormatter passes the event dict
    if masked is not record.msg:
        record.msg = masked


def _mapping_args_hold_secret(record: logging.LogRecord) -> bool:
    # `logger.info("%(user)s", {...})`: keys the message does not use are still in `args`.
    args = record.args
    return isinstance(args, Mapping) and mask_value(args) is not args


def _fallback_message(record: logging.LogRecord) -> str:
    try:
        return f"{record.msg} (arguments: {record.args!r})"
    except Exception:
        return _UNMASKABLE


def _redact_exception(record: logging.LogRecord) -> None:
    if record.stack_info:
        record.stack_info = mask(record.stack_info)
    exc_info = record.exc_info
    if exc_info and exc_info[0] is not None:
        text = record.exc_text or _FORMATTER.formatException(exc_info)
        record.exc_text = mask(text)
        record.exc_info = None
    elif record.exc_text:
        record.exc_text = mask(record.exc_text)


def _redact_extras(record: logging.LogRecord) -> None:
    attributes = record.__dict__
    for name in attributes.keys() - _STANDARD_ATTRS:
        value = attributes[name]
        masked = mask_value(value, name)
        if masked is not value:
            attributes[name] = masked


def _blank(record: logging.LogRecord) -> None:
    """Last resort when masking failed: keep the record, drop everything it carried."""
    try:
        record.msg, record.args = _UNMASKABLE, ()
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        for name in [n for n in record.__dict__ if n not in _STANDARD_ATTRS]:
            del record.__dict__[name]
    except Exception:  # noqa: S110 - nothing is left to try, and the caller must not see it
        pass
