"""The reports: text, json and SARIF renderings of findings, and fingerprint baselines."""

from __future__ import annotations

from hygiene.scan.reports.baseline import load_baseline, render_baseline, write_baseline
from hygiene.scan.reports.formats import FORMATS, render

__all__ = ["FORMATS", "load_baseline", "render", "render_baseline", "write_baseline"]
