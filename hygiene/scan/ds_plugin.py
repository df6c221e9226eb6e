"""The detect-secrets plugin at its path of earlier releases.

detect-secrets writes the plugin file's path into baselines (``plugins_used[].path``), and it
loads every ``BasePlugin`` subclass it finds in that file's namespace: this file keeps such
baselines loading. The plugin is :mod:`hygiene.integrations.detect_secrets.plugin`.
"""

from __future__ import annotations

from hygiene.integrations.detect_secrets.plugin import SECRET_TYPE, AicTokenDetector

__all__ = ["SECRET_TYPE", "AicTokenDetector"]
