"""How a masked record is marked: by the type of its ``args``, never by an attribute.

An attribute would show up in every JSON formatter that renders ``extra=`` fields. The
arguments keep their shape and behaviour: a ``tuple`` subclass for positional arguments, and
for mapping arguments a subclass of the mapping's own class (gunicorn's access log passes a
``dict`` subclass whose ``__getitem__`` finds ``{Header}i`` keys in any case and answers ``-``
for missing ones: a plain ``dict`` would break its format).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final


class MaskedArgs(tuple):  # type: ignore[type-arg]
    """A masked record's positional ``args``: a plain tuple to everyone, a mark to us."""

    __slots__ = ()
    hygiene_masked = True


class UnsettledArgs(MaskedArgs):
    """Masked ``args`` of a record that filters have yet to see (they may add to it): the
    next look at it looks again, then settles them to :class:`MaskedArgs`."""

    __slots__ = ()


class MaskedMapping(dict):  # type: ignore[type-arg]
    """A masked record's mapping ``args`` when they were a plain ``dict`` (or no ``dict``)."""

    hygiene_masked = True


NO_ARGS: Final = MaskedArgs()
# Marked subclasses made so far, per mapping class (a process logs with few of them).
_SUBCLASSES: Final[dict[type, type]] = {dict: MaskedMapping}


def is_marked(args: object) -> bool:
    """Whether ``args`` belong to a record masked already."""
    kind = type(args)
    return kind is MaskedArgs or kind is MaskedMapping or getattr(kind, "hygiene_masked", False)


def marked_mapping(original: Mapping[Any, Any], items: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """``items`` in a marked mapping of ``original``'s own class (its lookups kept)."""
    if not isinstance(original, dict):
        return MaskedMapping(items)
    try:
        cls = _SUBCLASSES.get(type(original)) or _subclass(type(original))
        marked: dict[Any, Any] = dict.__new__(cls)  # no __init__: it may transform the items
        dict.update(marked, items)
        if getattr(original, "__dict__", None):
            marked.__dict__.update(original.__dict__)
    except Exception:  # a class that will not be subclassed this way
        return MaskedMapping(items)
    return marked


def _subclass(cls: type) -> type:
    marked = type(f"Masked{cls.__name__}", (cls,), {"hygiene_masked": True, "__module__": __name__})
    _SUBCLASSES[cls] = marked
    return marked
