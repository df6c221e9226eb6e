"""Masking secrets in logs: ``mask()``, ``RedactingFilter``, ``install()``, structlog.

For a service, one line at start-up masks every record of the process, and what it prints::

    hygiene.masking.install()                # install(streams=False): logging only

Modules: :mod:`~hygiene.masking.text` (``mask`` and its gate; :mod:`~hygiene.masking.gate`
for long texts), :mod:`~hygiene.masking.keyvalues` (values of sensitive keys,
``Authorization``), :mod:`~hygiene.masking.keys` (sensitive key names),
:mod:`~hygiene.masking.credentials` (``Bearer``, ``Basic``, URL passwords),
:mod:`~hygiene.masking.context` (credentials named by their context: environment lists,
flags, netrc, pgpass; :mod:`~hygiene.masking.context_web`: HTML fields, folded headers,
signed URLs), :mod:`~hygiene.masking.urlencoded` (URL-encoded text read decoded),
:mod:`~hygiene.masking.dense` (texts repeating a key thousands of times: one pass per rule),
:mod:`~hygiene.masking.spans`, :mod:`~hygiene.masking.values` (structured values, and
``mask_locals`` for renderers of frame variables),
:mod:`~hygiene.masking.records` (the ``logging.Filter``, keeping each record's shape),
:mod:`~hygiene.masking.fastpath` (the filter's common case, compiled where it was built),
:mod:`~hygiene.masking.exceptions` (``mask_exception``: a masked exception of the same
type, with its stack),
:mod:`~hygiene.masking.install` (the ``Logger.makeRecord`` hook, handler filters, streams;
:mod:`~hygiene.masking.captured`: loguru sinks and handlers that took the streams before),
:mod:`~hygiene.masking.guard` (the ``sys.stdout`` / ``sys.stderr`` guard),
:mod:`~hygiene.masking.decoded` (PATs in base64 and UTF-16, found by the scanner's decoders),
:mod:`~hygiene.masking.pairs` (name/value pairs: HAR, Postman),
:mod:`~hygiene.masking.structlog` and :mod:`~hygiene.masking.stream` (``hygiene mask``;
:mod:`~hygiene.masking.lines`: the lines before a line, and frame variables;
:mod:`~hygiene.masking.layered`: compressed logs, UTF-16 text, archives refused).
"""

from __future__ import annotations

from hygiene.masking.captured import UncoveredWarning
from hygiene.masking.install import Installation, install
from hygiene.masking.keys import is_sensitive_key
from hygiene.masking.records import RedactingFilter
from hygiene.masking.structlog import structlog_processor
from hygiene.masking.text import mask
from hygiene.masking.values import mask_value

__all__ = [
    "Installation",
    "RedactingFilter",
    "UncoveredWarning",
    "install",
    "is_sensitive_key",
    "mask",
    "mask_value",
    "structlog_processor",
]
