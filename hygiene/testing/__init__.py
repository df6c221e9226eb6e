"""Prove: a stand-in control plane on loopback, for tests and for trying the tools by hand."""

from __future__ import annotations
