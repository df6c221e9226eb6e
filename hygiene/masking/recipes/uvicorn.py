"""uvicorn: its ``LOGGING_CONFIG`` with the filter on every handler.

::

    from hygiene.masking.recipes.uvicorn import log_config

    uvicorn.run(app, log_config=log_config())

From the command line, write ``log_config()`` to a JSON file and pass ``--log-config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hygiene.masking.recipes.dictconfig import with_redaction


def log_config(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``config`` (uvicorn's own ``LOGGING_CONFIG`` by default) with the redacting filter."""
    if config is None:
        from uvicorn.config import LOGGING_CONFIG

        config = LOGGING_CONFIG
    return with_redaction(config)
