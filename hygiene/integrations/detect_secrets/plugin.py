"""The detect-secrets plugin: ``AIC Personal Access Token`` findings from the detection core.

A thin layer over :func:`hygiene.detection.find_secrets` (no pattern of its own). It never
verifies over the network (detect-secrets would call ``verify`` twice per match and abort the
scan on any non-``requests`` exception). ``hygiene plugin-path`` prints this file's path for
``detect-secrets scan --plugin`` (``plugins/aic_tokens.py``, in this repository only,
re-exports it); :mod:`hygiene.integrations.detect_secrets.hook` loads it by
this file's path.
"""

from __future__ import annotations

from collections.abc import Generator

from hygiene.integrations.detect_secrets.extra import require_detect_secrets

require_detect_secrets()  # without the extra: one line saying how to install it, not a traceback

from detect_secrets.plugins.base import BasePlugin  # noqa: E402

from hygiene.detection import AIC_PAT, find_secrets  # noqa: E402

SECRET_TYPE = "AIC Personal Access Token"  # noqa: S105 - written into baselines: never rename


class AicTokenDetector(BasePlugin):
    """Finds ``pat_AIC_`` personal access tokens (placeholders excluded)."""

    secret_type = SECRET_TYPE

    def analyze_string(self, string: str) -> Generator[str, None, None]:
        """Each PAT in ``string`` (detect-secrets hashes it and handles allowlist markers)."""
        for secret in find_secrets(string):
            if secret.type_id == AIC_PAT:
                yield secret.token


__all__ = ["SECRET_TYPE", "AicTokenDetector"]
