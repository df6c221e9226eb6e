"""What a log record's attributes are, and what the filter remembers of the last record it
masked.

A record reaches the filter once per handler. The last record masked is remembered with its
template, its attribute count and its extras as masked, so a later look at it (the filter on
a second handler) knows it unchanged at once, and a record a filter changed since (a context
filter putting request data on it, or prefixing its message) gets what changed masked again.
"""

from __future__ import annotations

import logging
from typing import Any, Final

_PLAIN_RECORD: Final = logging.LogRecord("", logging.INFO, "", 0, "", None, None)
# How many attributes a record made by LogRecord has, and their names (with those a
# formatter adds): anything else on a record is an extra.
STANDARD_COUNT: Final = len(_PLAIN_RECORD.__dict__)
STANDARD_ATTRS: Final = frozenset(_PLAIN_RECORD.__dict__) | {"message", "asctime", "taskName"}

Extras = tuple[tuple[str, object], ...]
# A plain tuple (this is set on every record masked): the record, its template, its attribute
# count (see attribute_count) and its extras, as masked.
_last_masked: tuple[object, object, int, Extras] = (None, None, 0, ())


def attribute_count(attributes: dict[str, Any]) -> int:
    """How many attributes a record has, not counting those a formatter adds."""
    return len(attributes) - ("message" in attributes) - ("asctime" in attributes)


def extras(attributes: dict[str, Any]) -> Extras:
    """A record's extras (``extra=`` and what filters added), as ``(name, value)`` pairs."""
    return tuple((name, attributes[name]) for name in attributes.keys() - STANDARD_ATTRS)


def remember_masked(record: logging.LogRecord, count: int, masked_extras: Extras) -> None:
    """Remember ``record`` as the last one masked, with ``count`` attributes and its extras."""
    global _last_masked
    _last_masked = (record, record.msg, count, masked_extras)


def unchanged_since_masked(record: logging.LogRecord) -> bool:
    """Whether ``record`` is the one last masked, and no filter changed it since."""
    last = _last_masked
    if last[0] is not record or last[1] is not record.msg:
        return False
    attributes = record.__dict__
    return attribute_count(attributes) == last[2] and all(
        attributes.get(name) is value for name, value in last[3]
    )
