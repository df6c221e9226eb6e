"""``RedactingFilter``: a ``logging.Filter`` after which no handler writes a secret.

It masks the record itself (so every later handler and formatter sees masked data) and keeps
its shape, because formatters and handlers read more than the rendered message:

* ``args`` keeps its type, length and keys: each argument is masked in place (a string becomes
  its masked string; another object is replaced by its masked text only when its ``str`` or
  ``repr`` held a secret), so uvicorn's access formatter still unpacks its five arguments and
  Sentry still groups by the template. The template (``msg``) is masked only if it holds a
  secret itself. Only when a secret is split between the template and an argument
  (``"Bearer %s"``) does the record get the masked message as ``msg`` and empty ``args``. A
  record whose format fails is rendered safely instead of raising.
* ``exc_info`` stays an exception of the same type with its traceback: a masked copy when it,
  its notes or its chained causes render a secret (:mod:`hygiene.masking.exceptions`), and
  ``exc_text`` is set to the masked rendering, which the standard formatters print. When no
  faithful copy exists, ``exc_info`` is cleared and the masked text stays.
* ``stack_info`` and every ``extra=`` attribute (copies; the caller's objects are untouched);
  structlog ``ProcessorFormatter`` records, whose ``msg`` is the event dict.

A masked record is marked by the type of its ``args`` (a ``tuple`` subclass, or a subclass of
the mapping's own class: :mod:`hygiene.masking.marks`; no attribute shows up in JSON
formatters' output), and the last record found clean is remembered (with its own ``args``
untouched): the filter on a second handler, or after :func:`hygiene.masking.install` masked
the record when it was made, returns at once. The filter
never raises and never drops a record.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from hygiene.masking.exceptions import mask_exception
from hygiene.masking.fastpath import filter_for, forget, remember, remembered
from hygiene.masking.keys import is_sensitive_key
from hygiene.masking.marks import NO_ARGS, MaskedArgs, UnsettledArgs, is_marked, marked_mapping
from hygiene.masking.memo import STANDARD_ATTRS as _STANDARD_ATTRS
from hygiene.masking.memo import STANDARD_COUNT as _STANDARD_COUNT
from hygiene.masking.memo import (
    Extras,
    attribute_count,
    extras,
    remember_masked,
    unchanged_since_masked,
)
from hygiene.masking.spans import Span, splice
from hygiene.masking.text import mask, secret_spans
from hygiene.masking.values import mask_value
from hygiene.masking.views import masked_view

_FORMATTER: Final = logging.Formatter()
# Values masked as data (copies); any other object in `extra=` gets a masked view.
_PLAIN_DATA: Final = (
    str,
    bytes,
    bytearray,
    int,
    float,
    type(None),
    Mapping,
    list,
    tuple,
    set,
    frozenset,
)
_UNMASKABLE: Final = "[hygiene.masking: this record could not be masked; its content is withheld]"


_NO_ARGS: Final = NO_ARGS


def redact_judged(record: logging.LogRecord, verdict: str | bool | None) -> bool:
    """Mask ``record``, past the common case :mod:`hygiene.masking.fastpath` decides:
    ``verdict`` is its rendered message (to judge here), None (not a plain record) or False
    (reading or rendering it raised). Never raises; always True."""
    if verdict is None:
        _redact_other(record)
        return True
    if not isinstance(verdict, str):  # False: rendering raised; the full path renders safely
        _redact_fully(record)
        return True
    try:
        # mask()'s own gate and rules: a message with a hint, or one the compiled pass leaves
        # to Python (not ASCII, or long); one found clean there is remembered as clean.
        return _redact_rendered(record, record.msg, record.args, verdict, secret_spans(verdict))
    except Exception:  # an argument whose str() fails: the full path renders it safely
        _redact_fully(record)
        return True


redact_record: Final = filter_for(redact_judged)
"""Mask ``record`` in place (marked if masked, remembered if clean); never raises, and always
True: :class:`RedactingFilter`'s ``filter`` itself (one call per handler). ``plain`` (a second
argument, False by default) says the record is known to hold only the attributes
``LogRecord`` gives it (:func:`hygiene.masking.install`'s hook knows that of the records it
makes). Compiled where the extension was built (:mod:`hygiene.masking.fastpath`)."""


def redact_unfiltered(record: logging.LogRecord) -> bool:
    """:func:`redact_record` for a caller that knows no filter has run since the record was
    last masked or found clean (:func:`hygiene.masking.install`'s hook on a handler without
    filters): such a record returns at once, with no look for attributes added since."""
    if remembered(record):
        return True  # found clean (most records)
    if type(record.args) is MaskedArgs:
        return True  # masked
    return redact_record(record)


def unsettle(record: logging.LogRecord) -> None:
    """Mark ``record``, masked or found clean, as one filters have yet to see: the next look
    at it (:func:`redact_unfiltered` included) looks again."""
    forget(record)
    if type(record.args) is MaskedArgs:
        record.args = UnsettledArgs(record.args)


def _redact_other(record: logging.LogRecord) -> None:
    """Records past the common case: marked ones, mapping arguments, extras, exceptions."""
    try:
        args = record.args
        kind = type(args)
        if kind is not tuple and (kind is MaskedArgs or is_marked(args)):
            # Masked before; a filter may have changed the template or an attribute since
            # (masking them again changes nothing).
            if not unchanged_since_masked(record):
                masked = _redact_extras(record)
                msg = record.msg
                if type(msg) is str:
                    record.msg = mask(msg)
                remember_masked(record, attribute_count(record.__dict__), masked)
            if isinstance(args, UnsettledArgs):  # looked at again: settled
                record.args = MaskedArgs(args)
            return
        msg = record.msg
        if type(msg) is str and not args and not _has_more(record):  # (args None, {})
            _redact_rendered(record, msg, args, msg, secret_spans(msg))
            return
    except Exception:  # a filter that raises breaks the caller's logging call
        _blank(record)
        return
    _redact_fully(record)


def _has_more(record: logging.LogRecord) -> bool:
    """Whether ``record`` carries more than its message: extras, an exception, a stack."""
    return bool(
        len(record.__dict__) != _STANDARD_COUNT
        or record.exc_info
        or record.exc_text
        or record.stack_info
    )


def _redact_rendered(
    record: logging.LogRecord, msg: str, args: Any, message: str, spans: list[Span]
) -> bool:
    """The common case past the gate: a secret found in the message stands whole in string
    arguments (or none is there); else the full path decides. Always True."""
    try:
        if not spans:
            remember(record, args, msg)
            return True
        masked_args = _args_from_spans(msg, args, message, spans) if args else None
        if masked_args is not None:
            record.args = masked_args
            remember_masked(record, _STANDARD_COUNT, ())  # (LogRecord's attributes only)
            return True
    except Exception:  # a filter that raises breaks the caller's logging call
        _blank(record)
        return True
    _redact_fully(record)
    return True


class RedactingFilter(logging.Filter):
    """Masks secrets in every record it sees; attach it to handlers (or use :func:`install`).

    With ``dictConfig``: ``"filters": {"redact": {"()": "hygiene.masking.RedactingFilter"}}``
    and ``"filters": ["redact"]`` on each handler.
    """

    # The function itself, not a method calling it: one call less on every logging call.
    filter = staticmethod(redact_record)


def _redact_fully(record: logging.LogRecord) -> None:
    try:
        if type(record.msg) is dict and not record.args:
            _redact_event_dict(record)
        else:
            _redact_message(record)
        if record.exc_info or record.exc_text or record.stack_info:
            _redact_exception(record)
        attributes = record.__dict__
        masked = _redact_extras(record) if len(attributes) > _STANDARD_COUNT else extras(attributes)
        _mark(record)
        remember_masked(record, attribute_count(attributes), masked)
    except Exception:  # a filter that raises breaks the caller's logging call
        _blank(record)


def _mark(record: logging.LogRecord) -> None:
    args = record.args
    if not args:
        record.args = _NO_ARGS
    elif type(args) is tuple:
        record.args = MaskedArgs(args)
    elif isinstance(args, Mapping) and not is_marked(args):
        record.args = marked_mapping(args, args)


def _redact_message(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:
        # The handler would report the failure with the raw arguments: render them masked.
        record.msg, record.args = mask(_fallback_message(record)), _NO_ARGS
        return
    spans = secret_spans(message)
    args = record.args
    if not spans:
        if args and type(args) is not tuple and isinstance(args, Mapping):
            # `logger.info("%(user)s", {...})`: keys the message does not use are still there.
            record.args = _masked_args(args)
        return
    msg = record.msg
    if args and type(args) is tuple and type(msg) is str:
        masked_args = _args_from_spans(msg, args, message, spans)
        if masked_args is not None:
            record.args = masked_args
            return
    masked = splice(message, spans)
    if args and isinstance(msg, str) and _mask_in_place(record, msg, args, masked):
        return
    record.msg, record.args = masked, _NO_ARGS  # split secret: no shape keeps it hidden


def _args_from_spans(
    msg: str, args: tuple[Any, ...], message: str, spans: list[Span]
) -> MaskedArgs | None:
    """The usual case without masking anything twice: each secret found in the message stands
    whole in string arguments (and not in the template); it is replaced there. ``None`` when
    the record is not that simple (the general path decides)."""
    new = list(args)
    for start, end, replacement in spans:
        secret = message[start:end]
        if len(secret) < 8 or secret in msg:
            return None
        hit = False
        for i, arg in enumerate(new):
            if type(arg) is str and secret in arg:
                new[i] = arg.replace(secret, replacement)
                hit = True
        if not hit:  # rendered from another type, or across arguments
            return None
    return MaskedArgs(new)


def _mask_in_place(record: logging.LogRecord, msg: str, args: Any, masked: str) -> bool:
    """Mask each argument (and the template, if it holds a secret itself); True when that
    renders clean."""
    new_args = _masked_args(args)
    if _renders(msg, new_args, masked):
        record.msg, record.args = msg, new_args
        return True
    template = mask(msg)
    if template is not msg and _renders(template, new_args, masked):
        record.msg, record.args = template, new_args
        return True
    return False


def _renders(template: str, args: Any, expected: str) -> bool:
    """Whether ``template % args`` renders clean: the masked message itself (the usual case,
    no second pass), or another text without a secret (masked bytes render as escapes)."""
    try:
        rendered = template % args
    except Exception:
        return False
    return bool(rendered == expected) or mask(rendered) is rendered


def _masked_args(args: Any) -> Any:
    if isinstance(args, Mapping):
        items = {k: mask_value(v, k if isinstance(k, str) else None) for k, v in args.items()}
        return marked_mapping(args, items)
    return MaskedArgs(mask_value(a) for a in args)


def _redact_event_dict(record: logging.LogRecord) -> None:
    masked = mask_value(record.msg)  # structlog's ProcessorFormatter passes the event dict
    if masked is not record.msg:
        record.msg = masked


def _fallback_message(record: logging.LogRecord) -> str:
    try:
        return f"{record.msg} (arguments: {record.args!r})"
    except Exception:
        return _UNMASKABLE


def _redact_exception(record: logging.LogRecord) -> None:
    if record.stack_info:
        record.stack_info = mask(record.stack_info)
    exc_info = record.exc_info
    if exc_info and exc_info[0] is not None and exc_info[1] is not None:
        masked = mask_exception(exc_info[1])
        if masked is None:  # no faithful copy: the masked text is all handlers get
            text = record.exc_text or _FORMATTER.formatException(exc_info)
            record.exc_info = None
        else:
            if masked is not exc_info[1]:
                record.exc_info = (type(masked), masked, exc_info[2])
            text = record.exc_text or _FORMATTER.formatException(record.exc_info)  # type: ignore[arg-type]
        record.exc_text = mask(text)
    elif record.exc_text:
        record.exc_text = mask(record.exc_text)


def _redact_extras(record: logging.LogRecord) -> Extras:
    """Mask ``record``'s extras in place; they as masked (what the memo remembers)."""
    attributes = record.__dict__
    names = attributes.keys() - _STANDARD_ATTRS
    for name in names:
        value = attributes[name]
        if isinstance(value, _PLAIN_DATA) or is_sensitive_key(name):
            masked = mask_value(value, name)
        else:  # an object handlers read by attribute (Django's `request`): a masked view
            masked = masked_view(value)
        if masked is not value:
            attributes[name] = masked
    return tuple((name, attributes[name]) for name in names)


def _blank(record: logging.LogRecord) -> None:
    """Last resort when masking failed: keep the record, drop everything it carried."""
    try:
        record.msg, record.args = _UNMASKABLE, _NO_ARGS
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        for name in [n for n in record.__dict__ if n not in _STANDARD_ATTRS]:
            del record.__dict__[name]
    except Exception:  # noqa: S110 - nothing is left to try, and the caller must not see it
        pass
