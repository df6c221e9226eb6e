"""The core's rules as configuration for the tools organizations already run.

``export(fmt)`` renders :data:`hygiene.detection.RULES` (and its placeholder, scheme-word and
allowlist constants) for one target; nothing here keeps a pattern of its own. Each export
starts with comments naming what its target cannot express.
"""

from __future__ import annotations

import typing

from hygiene.rules import (
    betterleaks,
    github,
    gitleaks,
    kingfisher,
    otel,
    secretlint,
    trufflehog,
    vector,
)
from hygiene.rules.model import ExportRule, RuleTranslationError, export_rules

if typing.TYPE_CHECKING:  # the package's public names are its __all__ alone
    from collections.abc import Callable

__all__ = ["FORMATS", "ExportRule", "RuleTranslationError", "export", "export_rules"]

# format name -> renderer, in the order the SPEC lists them
FORMATS: dict[str, Callable[[], str]] = {
    "gitleaks": gitleaks.render,
    "betterleaks": betterleaks.render,
    "kingfisher": kingfisher.render,
    "trufflehog": trufflehog.render,
    "secretlint": secretlint.render,
    "github": github.render,
    "vector": vector.render,
    "otel": otel.render,
}


def export(fmt: str, *, base_url: str | None = None) -> str:
    """The configuration text for target ``fmt`` (one of :data:`FORMATS`).

    ``base_url`` (the service's address, already checked) lets a target that can validate a
    found PAT (kingfisher) ask the service; the others ignore it.
    """
    if fmt == "kingfisher":
        return kingfisher.render(base_url)
    try:
        render = FORMATS[fmt]
    except KeyError:
        raise RuleTranslationError(f"unknown export format {fmt!r}") from None
    return render()
