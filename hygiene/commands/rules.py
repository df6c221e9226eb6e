"""``hygiene rules export``: the core's rules as another tool's configuration, on stdout."""

from __future__ import annotations

import os

import click

from hygiene.api.config import service_url
from hygiene.errors import EXIT_OK
from hygiene.rules import FORMATS, export


@click.group(name="rules")
def group() -> None:
    """The detection rules, for the tools your organization already runs."""


@group.command(name="export", short_help="Print the rules as FORMAT's configuration.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    required=True,
    help="Target: gitleaks (TOML), betterleaks (2.x TOML), kingfisher (rules YAML; with "
    "AIC_BASE_URL set, PAT rules validate against the service), trufflehog (custom detectors "
    "YAML), secretlint (.secretlintrc.json), github (custom pattern form fields), vector "
    "(remap transform) or otel (Collector redaction and transform processors).",
)
def export_command(fmt: str) -> int:
    """Print the core's rules as FORMAT's configuration on standard output.

    The rules are generated from the scanner's own definitions; comments at the top say what
    the target cannot express. Example: hygiene rules export --format gitleaks > aic.toml
    """
    base_url = None
    if fmt == "kingfisher" and os.environ.get("AIC_BASE_URL", "").strip():
        # Checked as every command checks it: a bad address is a usage error, not an export.
        base_url = service_url(os.environ)
    click.echo(export(fmt, base_url=base_url), nl=False)
    return EXIT_OK
