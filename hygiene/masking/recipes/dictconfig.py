"""``with_redaction(config)``: a ``logging.config.dictConfig`` dict with the filter on every
handler, for the libraries configured by such a dict (uvicorn's ``log_config``, gunicorn's
``logconfig_dict``, Django's ``LOGGING``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

FILTER_NAME: Final = "hygiene_redact"
# The same filter again after a handler's other filters (one filter object is added to a
# handler only once, so it needs a name of its own).
AFTER_FILTER_NAME: Final = "hygiene_redact_after"
FILTER_NAMES: Final = (FILTER_NAME, AFTER_FILTER_NAME)
FILTER_FACTORY: Final = "hygiene.masking.RedactingFilter"


def with_redaction(config: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``config`` whose every handler carries the redacting filter: first, so
    that the handler's other filters never see a raw record, and when it has others, last
    too, so that what they add (a context filter putting request data on the record) is
    masked as well (a record found clean or masked is looked at again only for that)."""
    result: dict[str, Any] = copy.deepcopy(dict(config))
    filters = result.setdefault("filters", {})
    filters[FILTER_NAME] = {"()": FILTER_FACTORY}
    for handler in result.get("handlers", {}).values():
        others = [name for name in handler.get("filters", []) if name not in FILTER_NAMES]
        handler["filters"] = [FILTER_NAME, *others] + ([AFTER_FILTER_NAME] if others else [])
        if others:
            filters[AFTER_FILTER_NAME] = {"()": FILTER_FACTORY}
    return result
