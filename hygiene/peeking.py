"""Looking at the first bytes of a stream before reading it whole.

The scanner (:mod:`hygiene.scan.decoders.layers`) and ``hygiene mask``
(:mod:`hygiene.masking.layered`) both tell a stream's format by its first bytes, then read
the whole of it, those bytes first.
"""

from __future__ import annotations

from collections.abc import Callable

Reader = Callable[[int], bytes]


def peek(
    read: Reader,
    size: int,
    *,
    enough: Callable[[bytes], bool] | None = None,
    top_up: bool = True,
) -> tuple[bytes, Reader]:
    """The first bytes of ``read`` and a reader of the whole: ``size`` bytes (fewer at its
    end), or fewer once ``enough(head)`` says they tell what is needed. ``top_up``: a read
    that reaches the end of the bytes looked at is filled from ``read`` (False: it returns
    what is there, so a pipe's first line goes through at once)."""
    head = b""
    while len(head) < size and not (enough is not None and enough(head)):
        piece = read(size - len(head))
        if not piece:
            break
        head += piece
    pending = head

    def again(n: int) -> bytes:
        nonlocal pending
        if not pending:
            return read(n)
        piece, pending = pending[:n], pending[n:]
        if top_up and len(piece) < n and not pending:
            piece += read(n - len(piece))
        return piece

    return head, again


__all__ = ["Reader", "peek"]
