"""Tests of hygiene.testing."""
