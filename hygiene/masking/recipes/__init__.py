"""Recipes for libraries that render or ship logs themselves (docs/masking.md, "Recipes").

Nothing here is imported by :mod:`hygiene.masking`: each module is imported by the user of its
library, and imports that library only when it needs a class of it. Module names are unique in
the package tree (the layout rule), hence ``otel_logs`` and ``structlog_tracebacks``.

* :mod:`.frames`: frame variables and rendered tracebacks (``mask_local``, ``mask_rendered``);
* :mod:`.dictconfig`: ``with_redaction(config)`` for ``dictConfig`` dicts (uvicorn, gunicorn,
  Django, Flask);
* :mod:`.loguru`, :mod:`.structlog_tracebacks`, :mod:`.sentry`, :mod:`.otel_logs`,
  :mod:`.django`, :mod:`.gunicorn`, :mod:`.uvicorn`: one per library.
"""

__all__: list[str] = []
