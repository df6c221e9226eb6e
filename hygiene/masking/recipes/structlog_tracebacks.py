"""structlog: the masking processor, with tracebacks and their local variables covered.

Place :func:`processor` last before the renderer, after ``format_exc_info`` or
``dict_tracebacks``::

    structlog.configure(processors=[
        structlog.processors.add_log_level,
        structlog.processors.dict_tracebacks,   # or format_exc_info
        hygiene.masking.recipes.structlog_tracebacks.processor,
        structlog.processors.JSONRenderer(),
    ])

It does what :func:`hygiene.masking.structlog_processor` does (``dict_tracebacks``' frame
``locals`` included, through :func:`~hygiene.masking.values.mask_locals`), and also masks the
quoted values that look like random credentials in a rendered ``exception`` string (what rich
and better-exceptions print with locals), and walks the locals of every exception of the chain
once more by value, for containers. structlog itself is not imported.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from hygiene.masking.recipes.frames import mask_local, mask_rendered
from hygiene.masking.structlog import structlog_processor

EventDict = MutableMapping[str, Any]


def processor(logger: object, method_name: str, event_dict: EventDict) -> EventDict:
    """``event_dict`` with every secret masked, tracebacks and their locals included."""
    masked = structlog_processor(logger, method_name, event_dict)
    exception = masked.get("exception")
    if isinstance(exception, str):
        rendered = mask_rendered(exception)
        if rendered != exception:
            masked = dict(masked)
            masked["exception"] = rendered
    elif isinstance(exception, list):
        walked = [_mask_exception(e) for e in exception]
        if any(new is not old for new, old in zip(walked, exception, strict=True)):
            masked = dict(masked)
            masked["exception"] = walked
    return masked


def _mask_exception(exception: object) -> object:
    """One ``dict_tracebacks`` exception: its frames' ``locals`` by value."""
    if not isinstance(exception, dict) or not isinstance(exception.get("frames"), list):
        return exception
    frames = []
    changed = False
    for frame in exception["frames"]:
        if isinstance(frame, dict) and isinstance(frame.get("locals"), dict):
            local_vars = mask_local("locals", frame["locals"])
            if local_vars is not frame["locals"]:
                frame = {**frame, "locals": local_vars}
                changed = True
        frames.append(frame)
    return {**exception, "frames": frames} if changed else exception
