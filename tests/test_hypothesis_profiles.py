"""HYPOTHESIS_PROFILE=deep raises every property, those that pin their own count included."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.helpers import DEEP_EXAMPLES, examples


def test_a_pinned_count_stands_outside_a_deep_hunt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    assert examples(300) == 300


def test_a_deep_hunt_raises_a_pinned_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "deep")
    assert examples(300) == DEEP_EXAMPLES == settings.get_profile("deep").max_examples
