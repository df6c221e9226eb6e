"""Tests of hygiene.inventory."""
