"""The control-plane client: configuration, auth flow, retrying transport, endpoint calls.

Every network wait is bounded: :class:`~hygiene.api.deadline.BoundedTransport` (wall-clock
deadline per request, below httpx), :class:`~hygiene.api.transport.RetryPolicy` (timeouts,
retry and stall budgets, body cap) and ``Config.deadline`` (the whole command).
"""

from __future__ import annotations

from hygiene.api.auth import check_bearer
from hygiene.api.client import ControlPlaneClient, CreatedPat, Memberships, check_days
from hygiene.api.config import (
    DEADLINE_VAR,
    Config,
    load_config,
    mask_url,
    read_deadline,
    tty_prompt,
)
from hygiene.api.deadline import BoundedTransport
from hygiene.api.transport import RetryPolicy, RetryTransport

__all__ = [
    "DEADLINE_VAR",
    "BoundedTransport",
    "Config",
    "ControlPlaneClient",
    "CreatedPat",
    "Memberships",
    "RetryPolicy",
    "RetryTransport",
    "check_bearer",
    "check_days",
    "load_config",
    "mask_url",
    "read_deadline",
    "tty_prompt",
]
