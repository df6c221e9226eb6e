"""Tests of the revoke, tokens and fake-server commands."""
