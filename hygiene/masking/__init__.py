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

import typing

from hygiene.masking.install import Installation, install
from hygiene.masking.keys import is_sensitive_key
from hygiene.masking.text import mask

if typing.TYPE_CHECKING:
    from hygiene.masking.captured import UncoveredWarning
    from hygiene.masking.records import RedactingFilter
    from hygiene.masking.structlog import structlog_processor
    from hygiene.masking.values import mask_value


def __getattr__(name: str) -> object:
    # Loaded on first use: `hygiene mask` imports this package for the stream alone, and the
    # filter (with the compiled fast path), loguru's sinks and structlog's processor cost a
    # tenth of its start-up. (`install` is imported above: the submodule of that name,
    # imported first, would otherwise stand where the function is looked for.)
    value: object
    if name == "RedactingFilter":
        from hygiene.masking import records

        value = records.RedactingFilter
    elif name == "UncoveredWarning":
        from hygiene.masking import captured

        value = captured.UncoveredWarning
    elif name == "structlog_processor":
        from hygiene.masking import structlog

        value = structlog.structlog_processor
    elif name == "mask_value":
        from hygiene.masking import values

        value = values.mask_value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # (looked up once)
    return value


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
