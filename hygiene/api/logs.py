"""The client's own log lines: formatted first, then masked, so no argument can leak a token."""

from __future__ import annotations

import logging

from hygiene.detection import mask_secrets

log = logging.getLogger("hygiene.api")


def info(fmt: str, *args: object) -> None:
    """Log at INFO the masked result of ``fmt % args``."""
    if log.isEnabledFor(logging.INFO):
        log.info("%s", mask_secrets(fmt % args))


def debug(fmt: str, *args: object) -> None:
    """Log at DEBUG the masked result of ``fmt % args``."""
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s", mask_secrets(fmt % args))
