"""gunicorn: a logger class whose error and access logs carry the redacting filter.

In ``gunicorn.conf.py`` (or ``--logger-class``)::

    logger_class = "hygiene.masking.recipes.gunicorn.RedactingLogger"

gunicorn builds its handlers in ``Logger.setup()``, at start and again on ``SIGHUP`` / log
reopening; the filter is added each time. With ``logconfig_dict``, pass it through
:func:`hygiene.masking.recipes.dictconfig.with_redaction` as well.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger

from hygiene.masking.records import RedactingFilter


class RedactingLogger(Logger):  # type: ignore[misc]
    """gunicorn's ``Logger`` with a :class:`RedactingFilter` on every handler it owns."""

    redactor = RedactingFilter()

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                    handler.addFilter(self.redactor)
