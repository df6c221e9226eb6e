"""The control-plane client: configuration, auth flow, retrying transport, endpoint calls."""

from __future__ import annotations

from hygiene.api.client import ControlPlaneClient, CreatedPat, Memberships, check_days
from hygiene.api.config import Config, load_config, tty_prompt

__all__ = [
    "Config",
    "ControlPlaneClient",
    "CreatedPat",
    "Memberships",
    "check_days",
    "load_config",
    "tty_prompt",
]
