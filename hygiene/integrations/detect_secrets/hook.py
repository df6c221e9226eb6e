"""detect-secrets' pre-commit hook and ``audit`` with the AIC plugin, minus their traps.

What changes against plain ``detect-secrets-hook`` (see notes on detect-secrets 1.5.0):

* the AIC plugin is always loaded from this package (users need no path to a plugin file);
* the ``is_indirect_reference`` filter is off, so ``Client(token="pat_AIC_...")`` is found;
* a baseline naming a plugin file that does not exist is an error (exit 2), where
  detect-secrets would log it and pass having scanned nothing;
* a pre-commit ``rev:`` pinned to a commit id is not a secret (``--exclude-lines``);
* ``audit`` on a baseline with custom plugins does not crash (detect-secrets issue #611: the
  secret-type registry is cached before the baseline's plugins are configured).

detect-secrets keeps its settings in a process-wide singleton, so the fixes are patches on its
classes; each is applied once per process (a marker on the wrapper says it is in place).
The entry point that prints and exits is :mod:`hygiene.commands.detect_secrets_hook`.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from hygiene.errors import InputError, UsageError
from hygiene.integrations.detect_secrets.extra import require_detect_secrets

PLUGIN_NAME = "AicTokenDetector"
INDIRECT_FILTER = "detect_secrets.filters.heuristic.is_indirect_reference"
LINE_FILTER = "detect_secrets.filters.regex.should_exclude_line"
# A pre-commit `rev:` pinned to a commit (`pre-commit autoupdate --freeze`) is a 40-digit git
# object id, which detect-secrets' hex entropy plugin takes for a secret. Its YAML reader
# hands filters the line with the value quoted, hence the optional quote.
REV_PIN_LINE = r"""^\s*rev:\s*["']?[0-9a-f]{40}\b"""
_MARK = "_aic_patched"


def plugin_file() -> str:
    """The path of the plugin module inside the installed package (imported: an ImportError,
    :class:`~hygiene.errors.MissingExtra` without detect-secrets, if it cannot load)."""
    from hygiene.integrations.detect_secrets import plugin

    return os.path.abspath(plugin.__file__)


def plugin_path() -> str:
    """The same file as :func:`plugin_file`, found without importing it (nor detect-secrets):
    what ``hygiene plugin-path`` prints for ``detect-secrets scan --plugin``."""
    spec = importlib.util.find_spec(f"{__package__}.plugin")
    if spec is None or spec.origin is None:
        raise InputError("the AIC detect-secrets plugin module is missing from this install")
    return os.path.abspath(spec.origin)


def baseline_argument(argv: Sequence[str]) -> str | None:
    """The value of ``--baseline`` in ``argv``, if any."""
    for i, arg in enumerate(argv):
        if arg == "--baseline" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--baseline="):
            return arg.split("=", 1)[1]
    return None


def _read_baseline(path: str) -> dict[str, Any]:
    """The baseline's JSON object; empty when the file is missing (detect-secrets reports a
    missing baseline itself)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc: Any = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InputError(f"baseline {path} cannot be read: {exc}") from None
    return doc if isinstance(doc, dict) else {}


def check_baseline_plugins(path: str) -> None:
    """Every plugin file a baseline names must exist (relative ``file://`` paths resolve from
    the current folder, as detect-secrets resolves them)."""
    for plugin in _read_baseline(path).get("plugins_used", []):
        location = plugin.get("path") if isinstance(plugin, dict) else None
        if isinstance(location, str) and not os.path.exists(location.removeprefix("file://")):
            raise InputError(
                f"baseline {path} names plugin {plugin.get('name')} at {location}, which does "
                "not exist here: nothing would be scanned. Drop that entry (aic-detect-secrets "
                "loads the plugin itself) or regenerate the baseline here with "
                '`detect-secrets scan --plugin "$(hygiene plugin-path)"`'
            )


def line_exclusions(argv: Sequence[str], baseline: str | None) -> list[str]:
    """``--exclude-lines`` arguments that skip pre-commit ``rev:`` pins (:data:`REV_PIN_LINE`).

    detect-secrets replaces a baseline's line patterns with those given on the command line,
    so the baseline's own are passed again beside ours; a user's own ``--exclude-lines``
    already replace the baseline's, and ours is only added to them.
    """
    patterns = [REV_PIN_LINE]
    given = any(a == "--exclude-lines" or a.startswith("--exclude-lines=") for a in argv)
    if baseline and not given:
        for used in _read_baseline(baseline).get("filters_used", []):
            if isinstance(used, dict) and used.get("path") == LINE_FILTER:
                kept = used.get("pattern", [])
                patterns += (
                    [p for p in kept if isinstance(p, str)] if isinstance(kept, list) else []
                )
    return [arg for pattern in patterns for arg in ("--exclude-lines", pattern)]


def _patched(function: Callable[..., Any]) -> bool:
    return bool(getattr(function, _MARK, False))


def _clear_type_registry_on_configure() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import Settings

    original = Settings.configure_plugins
    if _patched(original):
        return

    def configure_plugins(self: Any, config: Any) -> Any:
        result = original(self, config)
        get_mapping_from_secret_type_to_class.cache_clear()
        return result

    setattr(configure_plugins, _MARK, True)
    Settings.configure_plugins = configure_plugins  # type: ignore[method-assign]


def _ensure_plugin_after_parse() -> None:
    from detect_secrets import pre_commit_hook
    from detect_secrets.settings import get_settings

    parse = pre_commit_hook.parse_args
    if _patched(parse):
        return

    def parse_args(argv: Any = None) -> Any:
        args = parse(argv)
        settings = get_settings()
        if PLUGIN_NAME not in settings.plugins:
            settings.configure_plugins([{"name": PLUGIN_NAME, "path": "file://" + plugin_file()}])
        settings.disable_filters(INDIRECT_FILTER)
        if PLUGIN_NAME not in settings.plugins:
            raise UsageError("the AIC plugin could not be enabled")
        return args

    setattr(parse_args, _MARK, True)
    pre_commit_hook.parse_args = parse_args


def run_hook(argv: Sequence[str]) -> int:
    """detect-secrets-hook with the plugin loaded and the indirect-reference filter off."""
    require_detect_secrets()
    from detect_secrets import pre_commit_hook

    baseline = baseline_argument(argv)
    if baseline:
        check_baseline_plugins(baseline)
    _clear_type_registry_on_configure()
    _ensure_plugin_after_parse()
    args = [
        "--plugin",
        plugin_file(),
        "--disable-filter",
        INDIRECT_FILTER,
        *line_exclusions(argv, baseline),
        *argv,
    ]
    return int(pre_commit_hook.main(args))


def run_audit(argv: Sequence[str]) -> int:
    """``detect-secrets audit`` without the custom-plugin crash."""
    require_detect_secrets()
    from detect_secrets import main as ds_main

    for arg in argv:
        if not arg.startswith("-") and os.path.isfile(arg):
            check_baseline_plugins(arg)
    _clear_type_registry_on_configure()
    return int(ds_main.main(["audit", *argv]) or 0)


__all__ = [
    "INDIRECT_FILTER",
    "PLUGIN_NAME",
    "baseline_argument",
    "check_baseline_plugins",
    "plugin_file",
    "plugin_path",
    "run_audit",
    "run_hook",
]
