"""uvicorn: its ``LOGGING_CONFIG`` with the filter on every handler.

::

    from hygiene.masking.recipes.uvicorn import log_config

    uvicorn.run(app, log_config=log_config())

``--log-config`` (a JSON file of ``log_config()``) filters uvicorn's own handlers only: the
app's loggers have none there and reach ``logging.lastResort`` unfiltered, so keep
``hygiene.masking.install()`` at import of the app module (docs/masking.md).
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
