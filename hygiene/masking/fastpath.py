"""The filter's common case: a record that carries its message and nothing else, and the
memo of the last record found clean.

Most logging calls of a service make such a record (a ``str`` template, a plain tuple of
arguments, no exception, no stack, no ``extra=`` attributes) whose short message holds no hint
of a secret, and :class:`~hygiene.masking.RedactingFilter` sees each of them once per handler.
:func:`plain_message` tells those apart; the memo lets the filter on a second handler, or
after :func:`~hygiene.masking.install`'s hook, know a record found clean at once.

It is compiled where the package was built with a C compiler (``_fastpath.c``, an optional
extension that ``pip install`` builds; :data:`COMPILED` says whether it was). On CPython 3.11
a pure-Python filter costs about 1.12x plain logging on a short clean record before it masks
anything (``bench/filter_floor_bench.py``): reading ``record.__dict__`` to count the
attributes turns the record's inline values into a dict, which makes every later attribute
access of the formatter slower, and rendering, lowercasing and nine substring searches add as
much again. The compiled filter counts the attributes through the record's GC traverse, which
reads inline values where they are, judges the message in one pass, and calls Python only for
a record that is not plain or holds a hint. Both give the same answers
(``tests/masking/test_fastpath.py`` compares them); where the extension is missing, the
Python twins below run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final, Protocol

from hygiene.masking.decoded import encoded_needles, may_hold_encoded
from hygiene.masking.hints import CASED_HINTS as CASED_HINTS
from hygiene.masking.hints import HINTS as HINTS
from hygiene.masking.hints import hints_in
from hygiene.masking.memo import STANDARD_COUNT, attribute_count
from hygiene.masking.text import LONG

Clean = tuple[logging.LogRecord, tuple[object, ...], str]
# What comes after the common case: slow(record, verdict), verdict being the rendered message
# (a record whose message Python must judge), None (a record that is not plain) or False
# (reading or rendering the record raised).
Slow = Callable[[logging.LogRecord, "str | bool | None"], bool]


class Redact(Protocol):
    """The filter function: ``plain`` says the record holds LogRecord's attributes only."""

    def __call__(self, record: logging.LogRecord, plain: bool = False) -> bool: ...


# The last record found clean, with the arguments and template it was judged on.
_last_clean: tuple[object, object, object] = (None, None, None)


def plain_message_py(record: logging.LogRecord, plain: bool) -> str | None:
    """:func:`plain_message` in Python: the rendered message of a plain record (which the
    caller judges), ``None`` for any other; a rendering error propagates. ``plain`` says the
    record is known to hold no attribute beyond LogRecord's (nothing is counted then).

    The compiled one answers the same, except that it judges a short ASCII message itself:
    one without a hint comes back as the ``Clean`` tuple ``(record, args, msg)``."""
    msg, args = record.msg, record.args
    if (
        type(args) is tuple  # (a marked tuple is a subclass: masked already)
        and type(msg) is str
        and record.exc_info is None
        and record.stack_info is None
        and record.exc_text is None
        and (plain or len(record.__dict__) == STANDARD_COUNT)
    ):
        return msg % args if args else msg  # what getMessage() renders
    return None


def remembered_py(record: logging.LogRecord) -> bool:
    """Whether ``record`` is the last one found clean, its ``args`` and ``msg`` unchanged."""
    last = _last_clean
    return last[0] is record and last[1] is record.args and last[2] is record.msg


def remember_py(record: logging.LogRecord, args: object, msg: object) -> None:
    """Remember ``record`` as found clean with these ``args`` and ``msg``."""
    global _last_clean
    _last_clean = (record, args, msg)


def forget_py(record: logging.LogRecord) -> None:
    """Forget ``record`` if it is the one remembered (filters have yet to see it)."""
    global _last_clean
    if _last_clean[0] is record:
        _last_clean = (None, None, None)


def redact_with(slow: Slow) -> Redact:
    """The filter in Python: True for a record remembered, or plain with a short message
    that holds no hint (remembered then); any other record goes to ``slow``."""

    def redact(record: logging.LogRecord, plain: bool = False) -> bool:
        global _last_clean
        try:
            # Found clean before, unless a filter has added an attribute since (a context
            # filter putting request headers on the record; a formatter's do not count).
            last = _last_clean
            msg, args = record.msg, record.args
            if (
                last[0] is record
                and last[1] is args
                and last[2] is msg
                and attribute_count(record.__dict__) == STANDARD_COUNT
            ):
                return True
            # plain_message_py unrolled, and text's gate: this runs on every logging call,
            # and a Python call costs a tenth of all of it.
            if not (
                type(args) is tuple  # (a marked tuple is a subclass: masked already)
                and type(msg) is str
                and record.exc_info is None
                and record.stack_info is None
                and record.exc_text is None
                and (plain or len(record.__dict__) == STANDARD_COUNT)
            ):
                return slow(record, None)
            message = msg % args if args else msg  # what getMessage() renders
            if (
                len(message) < LONG
                and not hints_in(message, message.lower())
                and not may_hold_encoded(message)
            ):
                _last_clean = (record, args, msg)
                return True
        except Exception:  # a bad format, or an argument whose str() fails
            return slow(record, False)
        return slow(record, message)

    return redact


try:
    import hygiene.masking._fastpath as _C  # (the compiled twin; a submodule, no cycle)
except ImportError:  # built without a compiler: the Python twins run
    _C = None  # type: ignore[assignment]

# What the compiled pass looks for as written: the rule table's cased hints, and the needles of
# PATs in base64 and UTF-16 (the twin asks decoded.may_hold_encoded, which searches the same).
EXACT_HINTS: Final = (*CASED_HINTS, *encoded_needles())

if _C is not None:
    _C.set_hints(HINTS, EXACT_HINTS)

COMPILED: Final = _C is not None
"""Whether the compiled filter runs (the extension was built)."""

plain_message: Final[Callable[[logging.LogRecord, bool], Clean | str | None]] = (
    plain_message_py if _C is None else _C.plain_message
)
remembered: Final[Callable[[logging.LogRecord], bool]] = (
    remembered_py if _C is None else _C.remembered
)
remember: Final[Callable[[logging.LogRecord, object, object], None]] = (
    remember_py if _C is None else _C.remember
)
forget: Final[Callable[[logging.LogRecord], None]] = forget_py if _C is None else _C.forget


def filter_for(slow: Slow) -> Redact:
    """The filter function (``redact(record, plain=False)``, always True): the compiled one
    calling ``slow`` for what it does not decide, or its Python twin."""
    if _C is None:
        return redact_with(slow)
    probe = logging.LogRecord("", logging.INFO, "", 0, "", None, None)
    inline = _C.referent_count(probe)
    probe.__dict__  # noqa: B018 - read to make the dict: the traverse then visits it alone
    # Counting works where the traverse visits each attribute's value (CPython 3.11+'s inline
    # values) and the dict alone once it is made; elsewhere (3.10) the dict is always read.
    counts = inline - _C.referent_count(probe) == STANDARD_COUNT - 1
    _C.configure(logging.LogRecord, inline if counts else -1, STANDARD_COUNT, LONG, slow)
    redact: Redact = _C.redact
    return redact
