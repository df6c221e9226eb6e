"""The attack battery: each test is a real attack on a real process (docs/security.md)."""
