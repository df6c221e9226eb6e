"""Masked exceptions that stay exceptions: same type, same stack, nothing secret to render.

:func:`mask_exception` returns the exception itself when neither it nor anything it chains to
(``__cause__``, ``__context__``, the members of an exception group) renders a secret. Otherwise
it returns a copy of the same type, made without calling ``__init__`` (so constructors with
their own signatures, such as botocore's ``ClientError``, are no obstacle), whose ``args``,
``__notes__`` and string attributes are masked, carrying the original ``__traceback__`` and
masked copies of its chained exceptions. The caller's exception is never changed: it may still
be raised, retried or inspected.

Frame locals are not part of it: a traceback's frames are the running program's, and their
``f_locals`` cannot be safely rewritten. What renders locals (Sentry's frame variables, loguru's
``diagnose``, rich, structlog's ``dict_tracebacks`` with locals) needs its own hook; the
standard ``logging`` formatters and ``traceback`` never print them.

When no faithful copy can be made (a ``__str__`` that renders a secret from somewhere the copy
cannot reach, a cycle in the chain), it returns ``None`` and the caller falls back to masked
text only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, Final

from hygiene.masking.text import mask
from hygiene.masking.values import mask_value

if sys.version_info >= (3, 11):
    _GROUPS: tuple[type[BaseException], ...] = (BaseExceptionGroup,)  # noqa: F821
else:
    _GROUPS = ()
# Exception chains longer than this are rare; past it the caller gets the text fallback.
_MAX_CHAIN: Final = 32
# How deep typed_mask walks an exception's attributes (a request's own containers).
_MAX_DEPTH_TYPED: Final = 6


def mask_exception(exc: BaseException) -> BaseException | None:
    """``exc`` with every secret it renders masked: itself when clean, else a same-type copy;
    ``None`` when no safe copy can be made."""
    try:
        return _Masker().masked(exc, 0)
    except _NoCopy:
        return None


class _NoCopy(Exception):
    """No faithful masked copy exists: the caller falls back to masked text."""


class _Masker:
    def __init__(self) -> None:
        self.done: dict[int, BaseException] = {}
        self.busy: set[int] = set()

    def masked(self, exc: BaseException, depth: int) -> BaseException:
        key = id(exc)
        if key in self.done:
            return self.done[key]
        if key in self.busy or depth > _MAX_CHAIN:
            raise _NoCopy
        self.busy.add(key)
        result = self._masked(exc, depth)
        self.busy.discard(key)
        self.done[key] = result
        return result

    def _masked(self, exc: BaseException, depth: int) -> BaseException:
        args = _masked_args(exc, lambda e: self.masked(e, depth + 1))
        attributes = _masked_attributes(exc)
        cause = self._link(exc.__cause__, depth)
        context = self._link(exc.__context__, depth)
        if (
            args is exc.args
            and attributes is None
            and cause is exc.__cause__
            and context is exc.__context__
        ):
            if _renders_secret(exc):
                raise _NoCopy
            return exc
        copy = _copy(exc, args, attributes)
        copy.__cause__, copy.__context__ = cause, context
        copy.__suppress_context__ = exc.__suppress_context__
        if _renders_secret(copy):
            raise _NoCopy
        return copy

    def _link(self, exc: BaseException | None, depth: int) -> BaseException | None:
        return None if exc is None else self.masked(exc, depth + 1)


def _masked_args(
    exc: BaseException, masked: Callable[[BaseException], BaseException]
) -> tuple[object, ...]:
    if isinstance(exc, _GROUPS):
        group: Any = exc
        members = [masked(e) for e in group.exceptions]
        message = mask(group.message)
        if message is group.message and all(
            m is e for m, e in zip(members, group.exceptions, strict=True)
        ):
            return exc.args
        return (message, members)
    new = tuple(typed_mask(a) for a in exc.args)
    return exc.args if all(n is a for n, a in zip(new, exc.args, strict=True)) else new


def _masked_attributes(exc: BaseException) -> dict[str, object] | None:
    """The exception's own attributes (``__notes__`` included) masked; ``None`` if clean.

    Only strings, bytes and containers: other objects (an ``httpx.Request``) are what handlers
    read, and a traceback does not render them.
    """
    attributes = getattr(exc, "__dict__", None)
    if not attributes:
        return None
    changed: dict[str, object] = {}
    for name, value in attributes.items():
        if isinstance(value, str | bytes | bytearray | list | tuple | dict):
            new = typed_mask(value, name)
            if new is not value:
                changed[name] = new
    return {**attributes, **changed} if changed else None


def typed_mask(value: object, key: str | None = None, depth: int = 0) -> object:
    """``value`` masked as :func:`mask_value` masks it, every part keeping its type.

    An exception's ``__str__`` reads its attributes (aiohttp's ``ClientResponseError``:
    ``self.request_info.real_url``, a named tuple holding a ``yarl.URL``): a named tuple
    stays one, an object whose text held a secret becomes its type made again from the masked
    text where that type takes it (``URL(masked)``), and stays as it was otherwise (its text
    is checked afterwards: :func:`_renders_secret`).
    """
    if isinstance(value, str | bytes | bytearray | int | float | type(None)):
        return mask_value(value, key)
    if depth >= _MAX_DEPTH_TYPED:
        return value
    if type(value) in (list, tuple) or hasattr(value, "_fields"):
        items = [typed_mask(v, None, depth + 1) for v in value]  # type: ignore[attr-defined]
        if all(new is old for new, old in zip(items, value, strict=True)):  # type: ignore[call-overload]
            return value
        if hasattr(value, "_make"):
            return value._make(items)
        return items if type(value) is list else tuple(items)
    if type(value) is dict:
        pairs = {
            k: typed_mask(v, k if isinstance(k, str) else None, depth + 1) for k, v in value.items()
        }
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    if isinstance(value, Mapping):
        return _remade_mapping(value)
    return _remade(value)


def _remade_mapping(value: Mapping[object, object]) -> object:
    """A mapping of the same type with its values masked (a multidict proxy of request
    headers made again over a masked copy); ``value`` itself when that cannot be made."""
    items = [(k, mask_value(v, k if isinstance(k, str) else None)) for k, v in value.items()]
    if all(new is old for (_, new), old in zip(items, value.values(), strict=False)):
        return value
    try:
        copy = getattr(value, "copy", None)
        base: Any = type(copy())(items) if callable(copy) else dict(items)
        remade = base if type(base) is type(value) else type(value)(base)  # type: ignore[call-arg]
    except Exception:
        return value
    return remade if type(remade) is type(value) else value


def _remade(value: object) -> object:
    """An object of the same type made from its masked text; ``value`` itself when its text
    holds no secret or its type cannot be made from text."""
    try:
        text = str(value)
        masked = mask(text)
        if masked is text:
            return value
        remade = type(value)(masked)  # type: ignore[call-arg]
        shown = str(remade)  # (a URL type quotes the `…`: still nothing secret in it)
        return remade if mask(shown) is shown else value
    except Exception:
        return value


def _copy(
    exc: BaseException, args: tuple[object, ...], attributes: dict[str, object] | None
) -> BaseException:
    cls = type(exc)
    try:
        copy = cls.__new__(cls, *args)  # no __init__: any constructor signature will do
        copy.args = args
        if attributes is not None:
            copy.__dict__.update(attributes)
        elif getattr(exc, "__dict__", None):
            copy.__dict__.update(exc.__dict__)
        return copy.with_traceback(exc.__traceback__)
    except Exception as failure:
        raise _NoCopy from failure


def _renders_secret(exc: BaseException) -> bool:
    """Whether what ``traceback`` prints of ``exc`` itself (its ``str`` and notes) holds one."""
    try:
        text = str(exc)
    except Exception:
        return False  # traceback prints `<exception str() failed>`
    if mask(text) is not text:
        return True
    notes = getattr(exc, "__notes__", None)
    return isinstance(notes, list | tuple) and any(
        isinstance(n, str) and mask(n) is not n for n in notes
    )
