"""Django settings for the battery: production-style (DEBUG off, ADMINS, e-mail to files).

``HYGIENE_APP_MODE``: ``none``, ``install`` (``install()`` at the end of the settings),
``dictconfig`` (the README's filter on the app's own handler), ``integration`` (the Django
recipe: ``logging_config()`` and the reporter filter), ``integration-install`` (both).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

MODE = os.environ["HYGIENE_APP_MODE"]
OUT = Path(os.environ["HYGIENE_WORKDIR"]) / "out"

DEBUG = False
SECRET_KEY = secrets.token_hex(16)
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "django_site.urls"
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
ADMINS = [("Ops", "ops@example.invalid")]
SERVER_EMAIL = "django@example.invalid"
EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = str(OUT / "mail")

_FILTERS = ["redact"] if MODE == "dictconfig" else []
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact": {"()": "hygiene.masking.RedactingFilter"}} if _FILTERS else {},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "app": {"class": "logging.StreamHandler", "formatter": "plain", "filters": _FILTERS}
    },
    "loggers": {"app": {"handlers": ["app"], "level": "INFO", "propagate": False}},
}

if MODE.startswith("integration"):
    from hygiene.masking.recipes import django as masking

    LOGGING = masking.logging_config(LOGGING)
    LOGGING["handlers"]["mail_admins"]["include_html"] = True  # the HTML report shows locals
    DEFAULT_EXCEPTION_REPORTER_FILTER = (
        "hygiene.masking.recipes.django.RedactingExceptionReporterFilter"
    )

if MODE in ("install", "integration-install"):
    import common

    common.attach(MODE)
