"""What a scan found but did not report, and what hid it: every format says it.

The scanned content can hide findings in three ways: its settings file (``exclude``,
``types``, ``allow-paths``, ``allow-lines``, ``[[allow]]``), the baseline the caller names, and
inline markers on the lines themselves. A repository that silences the scan must leave a trace
in the report, so each format carries these counts (never what was hidden: they are counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The settings' keys, in the order the text summary names them.
SETTING_KEYS = ("exclude", "types", "allow-paths", "allow-lines", "allow")


@dataclass(frozen=True)
class Suppressed:
    """How many findings were hidden: ``by_setting`` per settings key, ``baseline`` by the
    ``--baseline`` file, ``inline`` by markers on their lines."""

    by_setting: Mapping[str, int] = field(default_factory=dict)
    baseline: int = 0
    inline: int = 0

    @property
    def settings(self) -> int:
        """Findings hidden by the settings file, all keys together."""
        return sum(self.by_setting.values())

    @property
    def total(self) -> int:
        return self.settings + self.baseline + self.inline

    def as_json(self) -> dict[str, int]:
        """The json report's ``suppressed`` object."""
        return {"settings": self.settings, "baseline": self.baseline, "inline": self.inline}

    def by_setting_json(self) -> dict[str, int]:
        """The json report's ``suppressed_by``: every key of the settings file, zeros included
        (a consumer need not know which keys exist)."""
        return {key: self.by_setting.get(key, 0) for key in SETTING_KEYS}

    def phrase(self) -> str:
        """``3 suppressed: 2 by settings exclude, 1 by inline marker`` ("" when none were)."""
        if not self.total:
            return ""
        parts = [
            f"{self.by_setting[key]} by settings {key}"
            for key in SETTING_KEYS
            if self.by_setting.get(key)
        ]
        if self.baseline:
            parts.append(f"{self.baseline} by baseline")
        if self.inline:
            marker = "marker" if self.inline == 1 else "markers"
            parts.append(f"{self.inline} by inline {marker}")
        return f"{self.total} suppressed: " + ", ".join(parts)

    def sarif_properties(self) -> dict[str, Any]:
        """The SARIF run's ``properties``: the json report's two objects."""
        return {"suppressed": self.as_json(), "suppressed_by": self.by_setting_json()}


__all__ = ["SETTING_KEYS", "Suppressed"]
