"""Masked views: ``extra=`` objects that handlers read by attribute keep working.

Django logs ``extra={"request": request}``, and its ``AdminEmailHandler`` reads
``record.request.META``, ``.GET``, ``.user``; replacing the request by its masked text (what
masking does to a log *argument* whose ``str`` holds a secret) leaves the e-mail without its
request data. A :class:`MaskedView` stands in for such an object instead: attribute access
goes to the object, while ``str``, ``repr``, ``format`` and pickling give only the masked text,
which is all a formatter renders (JSON formatters call ``str`` on objects they do not know).
``isinstance`` still sees the object's class, as with Django's ``SimpleLazyObject``.

What a handler then renders from the attributes themselves (Django's e-mail prints
``request.GET``) is that handler's to mask: see the Django recipe.
"""

from __future__ import annotations

from typing import Any

from hygiene.masking.text import mask


class MaskedView:
    """``target`` to attribute readers; its masked ``str`` / ``repr`` to renderers."""

    __slots__ = ("_hygiene_repr", "_hygiene_str", "_hygiene_target")

    def __init__(self, target: object, text: str, representation: str) -> None:
        object.__setattr__(self, "_hygiene_target", target)
        object.__setattr__(self, "_hygiene_str", text)
        object.__setattr__(self, "_hygiene_repr", representation)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance() keeps working
        return type(object.__getattribute__(self, "_hygiene_target"))

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_hygiene_target"), name)

    def __setattr__(self, name: str, value: object) -> None:
        setattr(object.__getattribute__(self, "_hygiene_target"), name, value)

    def __str__(self) -> str:
        return str(object.__getattribute__(self, "_hygiene_str"))

    def __repr__(self) -> str:
        return str(object.__getattribute__(self, "_hygiene_repr"))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return (str, (str(self),))  # a pickled record carries the masked text only


def masked_view(value: object) -> object:
    """``value`` itself when neither its ``str`` nor its ``repr`` holds a secret, else a view."""
    rendered = [_render(render, value) for render in (str, repr)]
    masked = [mask(text) if text is not None else None for text in rendered]
    if all(m is r for m, r in zip(masked, rendered, strict=True)):
        return value
    text, representation = (m if m is not None else "" for m in masked)
    return MaskedView(value, text, representation)


def _render(render: type[str] | Any, value: object) -> str | None:
    try:
        return str(render(value))
    except Exception:
        return None  # a broken __str__ or __repr__: the view renders nothing for it
