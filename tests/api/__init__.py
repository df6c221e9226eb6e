"""Tests of hygiene.api."""
