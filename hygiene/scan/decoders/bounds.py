"""The bounds every decoder honours: one budget of decoded bytes per top-level input, a ratio
limit per compressed stream, a nesting depth (see :class:`~hygiene.scan.limits.DecodeLimits`)."""

from __future__ import annotations

from hygiene.errors import InputError
from hygiene.scan.limits import DecodeLimits

# Below this many decoded bytes no ratio is judged: tiny, very compressible members (a file
# of one repeated line) are normal.
RATIO_FLOOR = 1 << 20
# A top-level input may expand to max_ratio times its size, but at least this many times it.
BUDGET_FLOOR = 64 << 10


class DecodeError(InputError):
    """An input a decoder gave up on: a bomb, nesting too deep, a corrupt or truncated archive.

    Reported as one line for that input (its path), and the scan goes on. A ``bomb`` stops
    the whole top-level input (the rest of its members are not read).
    """

    def __init__(self, message: str, *, bomb: bool = False) -> None:
        super().__init__(message)
        self.bomb = bomb
        # The layer the failure belongs to (a truncated .tgz is the archive's failure, though
        # it shows while a member is read); None: whichever layer catches it.
        self.owner: object | None = None


class Budget:
    """The decoded bytes one top-level input may still expand to, shared by all its layers.

    At most ``max_bytes``, and at most ``max_ratio`` times the input's own size where known
    (an overlapping-member zip bomb is stopped after its first few members, not at 1 GiB).
    """

    def __init__(self, limits: DecodeLimits, size: int | None = None) -> None:
        self.limits = limits
        cap = limits.max_bytes
        if size is not None:
            cap = min(cap, max(size, BUDGET_FLOOR) * limits.max_ratio)
        self.cap = cap
        self.left = cap
        self.exhausted = False

    def spend(self, n: int) -> None:
        """Count ``n`` decoded bytes; raises :class:`DecodeError` once over the cap."""
        self.left -= n
        if self.left < 0 and not self.exhausted:
            self.exhausted = True
            raise DecodeError(
                f"expands to more than {self.cap} bytes (a decompression bomb?); rest not scanned",
                bomb=True,
            )
        if self.exhausted:
            raise DecodeError("")


def check_ratio(produced: int, compressed: int, limits: DecodeLimits) -> None:
    """Raise :class:`DecodeError` when ``compressed`` bytes expanded to ``produced`` bytes beyond
    the ratio limit."""
    if produced > RATIO_FLOOR and produced > max(compressed, 1) * limits.max_ratio:
        raise DecodeError(
            f"expands more than {limits.max_ratio}x (a decompression bomb?); rest not scanned",
            bomb=True,
        )


__all__ = ["BUDGET_FLOOR", "RATIO_FLOOR", "Budget", "DecodeError", "check_ratio"]
