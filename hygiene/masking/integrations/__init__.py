"""Recipes for libraries that render or ship logs themselves (README, "Masking logs").

Nothing here is imported by :mod:`hygiene.masking`: each module is imported by the user of its
library, and imports that library only when it needs a class of it.

* :mod:`.rendered`: frame variables and rendered tracebacks (``mask_local``, ``mask_rendered``);
* :mod:`.dictconfig`: ``with_redaction(config)`` for ``dictConfig`` dicts (uvicorn, gunicorn,
  Django, Flask);
* :mod:`.loguru`, :mod:`.structlog`, :mod:`.sentry`, :mod:`.otel`, :mod:`.django`,
  :mod:`.gunicorn`, :mod:`.uvicorn`: one per library.
"""
