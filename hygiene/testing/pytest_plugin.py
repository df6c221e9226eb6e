"""pytest plugin (entry point ``aic_control_plane``): fixtures for the stand-in control plane."""

from __future__ import annotations
