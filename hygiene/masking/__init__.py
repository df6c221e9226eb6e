"""Masking secrets in logs: ``mask()``, ``RedactingFilter``, ``install()``, structlog.

For a service, one line at start-up masks every record of the process::

    hygiene.masking.install()

Modules: :mod:`~hygiene.masking.text` (``mask`` and its gate), :mod:`~hygiene.masking.keyvalues`
(values of sensitive keys, ``Authorization``), :mod:`~hygiene.masking.keys` (sensitive key
names), :mod:`~hygiene.masking.spans`, :mod:`~hygiene.masking.values` (structured values),
:mod:`~hygiene.masking.records` (the ``logging.Filter``), :mod:`~hygiene.masking.install`,
:mod:`~hygiene.masking.structlog` and :mod:`~hygiene.masking.stream` (``hygiene mask``).
"""

from __future__ import annotations

from hygiene.masking.install import Installation, install
from hygiene.masking.keys import is_sensitive_key
from hygiene.masking.records import RedactingFilter
from hygiene.masking.structlog import structlog_processor
from hygiene.masking.text import mask
from hygiene.masking.values import mask_value

__all__ = [
    "Installation",
    "RedactingFilter",
    "install",
    "is_sensitive_key",
    "mask",
    "mask_value",
    "structlog_processor",
]
