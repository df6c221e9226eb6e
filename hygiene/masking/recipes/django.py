"""Django: a ``LOGGING`` with the filter on every handler, a masking admin e-mail, and an
exception reporter filter that masks frame variables and request data.

In ``settings.py``::

    from hygiene.masking.recipes import django as masking

    LOGGING = masking.logging_config()          # or masking.logging_config(your_logging)
    DEFAULT_EXCEPTION_REPORTER_FILTER = "hygiene.masking.recipes.django.RedactingExceptionReporterFilter"

:func:`logging_config` starts from Django's own ``DEFAULT_LOGGING`` (so ``runserver``'s
``django.server`` request log and ``mail_admins`` keep working), adds what you pass, puts the
filter on every handler and makes ``mail_admins`` a :class:`RedactingAdminEmailHandler`.
Django applies ``LOGGING`` with ``dictConfig`` at every ``django.setup()``, so the filters
come back after runserver's second setup too.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from django.utils.log import DEFAULT_LOGGING, AdminEmailHandler
from django.views.debug import SafeExceptionReporterFilter

from hygiene.masking.recipes.dictconfig import FILTER_NAMES, with_redaction
from hygiene.masking.recipes.frames import mask_local, mask_rendered
from hygiene.masking.values import mask_value

ADMIN_EMAIL_HANDLER: Final = "hygiene.masking.recipes.django.RedactingAdminEmailHandler"


def logging_config(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Django's default logging plus ``config``, with the filter on every handler."""
    merged: dict[str, Any] = copy.deepcopy(DEFAULT_LOGGING)
    for section, value in (config or {}).items():
        if isinstance(value, Mapping) and isinstance(merged.get(section), dict):
            merged[section].update(copy.deepcopy(dict(value)))
        else:
            merged[section] = copy.deepcopy(value)
    mail = []
    for name, handler in merged.get("handlers", {}).items():
        if handler.get("class") == "django.utils.log.AdminEmailHandler":
            handler["class"] = ADMIN_EMAIL_HANDLER
            mail.append(name)
    result = with_redaction(merged)
    for name in mail:
        # The e-mail handler masks what it sends; the record filter would turn its `request`
        # (whose repr holds the URL) into text, and the e-mail would lose the request data.
        handler = result["handlers"][name]
        handler["filters"] = [f for f in handler["filters"] if f not in FILTER_NAMES]
    for logger in [*result.get("loggers", {}).values(), result.get("root", {})]:
        # Filters change the record in place: the e-mail handler goes first, to see it whole.
        names = logger.get("handlers", [])
        logger["handlers"] = [n for n in names if n in mail] + [n for n in names if n not in mail]
    return result


class RedactingAdminEmailHandler(AdminEmailHandler):  # type: ignore[misc]
    """``AdminEmailHandler`` whose subject, text and HTML bodies are masked before sending."""

    def send_mail(self, subject: str, message: str, *args: Any, **kwargs: Any) -> None:
        html = kwargs.get("html_message")
        if isinstance(html, str):
            kwargs["html_message"] = mask_rendered(html)
        super().send_mail(mask_rendered(subject), mask_rendered(message), *args, **kwargs)


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):  # type: ignore[misc]
    """Django's reporter filter, also masking frame variables by value and request data."""

    def get_traceback_frame_variables(self, request: Any, tb_frame: Any) -> list[Any]:
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [(name, mask_local(name, value)) for name, value in variables]

    def get_safe_request_meta(self, request: Any) -> dict[str, Any]:
        meta = super().get_safe_request_meta(request)
        return {k: mask_value(v, k) for k, v in meta.items()}

    def get_safe_cookies(self, request: Any) -> dict[str, Any]:
        cookies = super().get_safe_cookies(request)
        return {k: mask_value(v, "cookie") for k, v in cookies.items()}

    def get_post_parameters(self, request: Any) -> Any:
        params = super().get_post_parameters(request)
        if not params:
            return params
        return {k: mask_local(k, v) for k, v in params.items()}
