"""Each package's public face is its ``__all__``, pinned here (httpx's discipline): a name
added or dropped is a decision, made in this file as well as in the package."""

from __future__ import annotations

import importlib
import types

import pytest

from tests.test_layout import PACKAGE, REPO_ROOT

EXPORTS: dict[str, list[str]] = {
    "hygiene": ["DISTRIBUTION", "__version__"],
    "hygiene.api": [
        "DEADLINE_VAR",
        "BoundedTransport",
        "Config",
        "ControlPlaneClient",
        "CreatedPat",
        "Memberships",
        "RetryPolicy",
        "RetryTransport",
        "check_bearer",
        "check_days",
        "load_config",
        "mask_url",
        "read_deadline",
        "tty_prompt",
    ],
    "hygiene.commands": [],
    "hygiene.inventory": [
        "ACTIVE",
        "EXPIRED",
        "LATEST",
        "REVOKED",
        "TOKEN_ID",
        "Entry",
        "Inventory",
        "Location",
        "Reader",
        "check_token_id",
        "default_location",
        "entry_from_record",
        "export_lines",
        "migrate",
        "open_inventory",
        "parse_location",
    ],
    "hygiene.integrations": [],
    "hygiene.integrations.detect_secrets": [
        "SECRET_TYPE",
        "AicTokenDetector",
        "run_audit",
        "run_hook",
    ],
    "hygiene.integrations.githooks": [
        "NAMES",
        "Installed",
        "hook_text",
        "install_hooks",
        "pinned_text",
    ],
    "hygiene.masking": [
        "Installation",
        "RedactingFilter",
        "UncoveredWarning",
        "install",
        "is_sensitive_key",
        "mask",
        "mask_value",
        "structlog_processor",
    ],
    "hygiene.masking.recipes": [],
    "hygiene.revoke": [
        "Interaction",
        "Outcome",
        "Result",
        "RevokeOptions",
        "SessionTarget",
        "Target",
        "log_out_all",
        "make_plan",
        "revoke_all",
        "revoke_leaked",
    ],
    "hygiene.rules": ["FORMATS", "ExportRule", "RuleTranslationError", "export", "export_rules"],
    "hygiene.scan": [
        "Detection",
        "Finding",
        "ScanRequest",
        "ScanResult",
        "run_scan",
    ],
    "hygiene.scan.decoders": [
        "DecodeError",
        "decoded_secrets",
        "finder_for",
        "refine",
        "scan_buffer",
        "scan_layers",
        "sniff",
    ],
    "hygiene.scan.matcher": [
        "DEFAULT_CHUNK_SIZE",
        "Hit",
        "NeedleFinder",
        "StreamScanner",
        "finder_for",
        "scan_bytes",
    ],
    "hygiene.scan.reports": [
        "FORMATS",
        "load_baseline",
        "render",
        "render_baseline",
        "write_baseline",
    ],
    "hygiene.scan.sources": [
        "Excluder",
        "FileTarget",
        "collect_paths",
        "merge",
        "scan_targets",
        "tracked_files",
    ],
    "hygiene.testing": [
        "ControlPlane",
        "Fault",
        "HostileServer",
        "RateLimit",
        "RecordedRequest",
        "State",
        "Switches",
        "running_control_plane",
        "running_hostile_server",
    ],
    "hygiene.watch": [
        "Event",
        "FileFollower",
        "Responder",
        "Seen",
        "Stream",
        "StreamFollower",
        "Watcher",
    ],
}


def _packages() -> list[str]:
    inits = sorted(PACKAGE.rglob("__init__.py"))
    return [".".join(p.parent.relative_to(REPO_ROOT).parts) for p in inits]


def test_every_package_is_pinned() -> None:
    assert sorted(EXPORTS) == _packages()


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_all_is_pinned_and_every_name_resolves(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__all__ == EXPORTS[name]
    for attribute in module.__all__:
        assert getattr(module, attribute) is not None


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_every_public_name_of_a_package_is_exported(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(value, types.ModuleType)
        and attr != "annotations"  # from __future__ import annotations
    }
    assert public <= set(module.__all__)
