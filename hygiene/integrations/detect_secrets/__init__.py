"""detect-secrets: the ``AIC Personal Access Token`` plugin and the hook that loads it."""

from __future__ import annotations

from hygiene.integrations.detect_secrets.hook import run_audit, run_hook
from hygiene.integrations.detect_secrets.plugin import SECRET_TYPE, AicTokenDetector

__all__ = ["SECRET_TYPE", "AicTokenDetector", "run_audit", "run_hook"]
