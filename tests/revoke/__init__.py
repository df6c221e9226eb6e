"""Tests of hygiene.revoke."""
