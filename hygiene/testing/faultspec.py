"""``STEP=KIND[:ARG]`` fault specifications, for ``hygiene fake-server --fault`` and scripts.

Kinds: ``stall``, ``trickle-headers[:BYTES_PER_S]``, ``trickle-body[:BYTES_PER_S]``, ``html``,
``proxy-404``, ``garbage``, ``huge-body[:BYTES]``, ``redirect`` (to the server's trap port),
``throttle[:RETRY_AFTER]``, ``not-found``, ``fail[:STATUS]``.
"""

from __future__ import annotations

from collections.abc import Callable

from hygiene.testing.hostile import STEPS
from hygiene.testing.misbehaviours import (
    HugeBody,
    Misbehaviour,
    Raw,
    Stall,
    Trickle,
    fail,
    html,
    not_found,
    proxy_404,
    redirect,
    throttle,
)

KINDS: dict[str, Callable[[str | None, str], Misbehaviour]] = {
    "stall": lambda arg, trap: Stall(),
    "trickle-headers": lambda arg, trap: Trickle("headers", float(arg or 1)),
    "trickle-body": lambda arg, trap: Trickle("body", float(arg or 1)),
    "html": lambda arg, trap: html(200),
    "proxy-404": lambda arg, trap: proxy_404(),
    "garbage": lambda arg, trap: Raw(),
    "huge-body": lambda arg, trap: HugeBody(200, int(arg or 1 << 30)),
    "redirect": lambda arg, trap: redirect(trap + "/redirected"),
    "throttle": lambda arg, trap: throttle(arg or "1"),
    "not-found": lambda arg, trap: not_found(),
    "fail": lambda arg, trap: fail(int(arg or 500)),
}


def parse_fault(spec: str, trap_url: str) -> tuple[str, Misbehaviour]:
    """``(step, misbehaviour)`` from ``STEP=KIND[:ARG]``; ValueError with a clear message."""
    step, _, rest = spec.partition("=")
    kind, _, arg = rest.partition(":")
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r} in {spec!r}; one of {', '.join(STEPS)}")
    if kind not in KINDS:
        raise ValueError(f"unknown fault {kind!r} in {spec!r}; one of {', '.join(KINDS)}")
    try:
        fault = KINDS[kind](arg or None, trap_url)
    except ValueError:
        raise ValueError(f"bad argument {arg!r} for fault {kind!r}") from None
    if isinstance(fault, Trickle) and not fault.rate > 0:
        raise ValueError(f"the rate of {kind!r} must be positive")
    return step, fault


__all__ = ["KINDS", "parse_fault"]
