"""A structlog processor that masks secrets in the event dict.

Place it last before the renderer (after ``format_exc_info`` / ``dict_tracebacks``, so that
rendered tracebacks are masked too)::

    structlog.configure(processors=[
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso"),
        structlog.processors.format_exc_info,
        hygiene.masking.structlog_processor,
        structlog.processors.JSONRenderer(),
    ])

structlog itself is not imported: the processor only needs the event dict.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import MutableMapping
from typing import Any

from hygiene.masking.text import mask
from hygiene.masking.values import mask_locals, mask_value

EventDict = MutableMapping[str, Any]


def structlog_processor(logger: object, method_name: str, event_dict: EventDict) -> EventDict:
    """Return ``event_dict`` with every secret masked (a new dict when anything changed).

    Values under sensitive keys (``password=...``) are hidden; strings, bytes and nested
    containers are masked as :func:`hygiene.masking.mask` does; the frames' ``locals`` of
    ``dict_tracebacks`` also lose random-looking credentials. An ``exc_info`` still in the
    dict (no ``format_exc_info`` before this processor) is rendered into a masked
    ``exception`` string, so the renderer cannot print the raw traceback.
    """
    if event_dict.get("exc_info"):
        event_dict = dict(event_dict)
        rendered = _render_exc_info(event_dict.pop("exc_info"))
        if rendered:
            event_dict["exception"] = mask(rendered)
    changed = False
    masked: dict[str, Any] = {}
    for key, value in event_dict.items():
        new = _with_masked_locals(value) if key == "exception" else value
        new = mask_value(new, key)
        changed = changed or new is not value
        masked[key] = new
    return masked if changed else event_dict


def _with_masked_locals(exception: object) -> object:
    """``dict_tracebacks`` output with ``show_locals``: each frame's ``locals`` through
    :func:`~hygiene.masking.values.mask_locals` (random-looking values masked whatever the
    variable's name); anything else as it is."""
    if not isinstance(exception, list):
        return exception
    out: list[object] = []
    for entry in exception:
        frames = entry.get("frames") if isinstance(entry, dict) else None
        if isinstance(frames, list):
            entry = {**entry, "frames": [_frame(f) for f in frames]}
        out.append(entry)
    return out


def _frame(frame: object) -> object:
    if isinstance(frame, dict) and isinstance(frame.get("locals"), dict):
        return {**frame, "locals": mask_locals(frame["locals"])}
    return frame


def _render_exc_info(exc_info: object) -> str:
    if isinstance(exc_info, BaseException):
        return "".join(traceback.format_exception(type(exc_info), exc_info, exc_info.__traceback__))
    if isinstance(exc_info, tuple) and len(exc_info) == 3 and exc_info[0] is not None:
        return "".join(traceback.format_exception(*exc_info))
    current = sys.exc_info()
    if current[0] is None:
        return ""
    return "".join(traceback.format_exception(*current))
