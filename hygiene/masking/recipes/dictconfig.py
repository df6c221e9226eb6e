"""``with_redaction(config)``: a ``logging.config.dictConfig`` dict with the filter on every
handler, for the libraries configured by such a dict (uvicorn's ``log_config``, gunicorn's
``logconfig_dict``, Django's ``LOGGING``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

FILTER_NAME: Final = "hygiene_redact"
FILTER_FACTORY: Final = "hygiene.masking.RedactingFilter"


def with_redaction(config: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``config`` whose every handler carries the redacting filter."""
    result: dict[str, Any] = copy.deepcopy(dict(config))
    filters = result.setdefault("filters", {})
    filters[FILTER_NAME] = {"()": FILTER_FACTORY}
    for handler in result.get("handlers", {}).values():
        names = list(handler.get("filters", []))
        if FILTER_NAME not in names:
            names.insert(0, FILTER_NAME)  # first: later filters must not see the raw record
        handler["filters"] = names
    return result
