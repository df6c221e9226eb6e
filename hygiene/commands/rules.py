"""``hygiene rules export``: the core's rules as another tool's configuration, on stdout."""

from __future__ import annotations

import click

from hygiene.errors import EXIT_OK
from hygiene.rules import FORMATS, export


@click.group(name="rules")
def group() -> None:
    """The detection rules, for the tools your organization already runs."""


@group.command(name="export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    required=True,
    help="Target: gitleaks (TOML), trufflehog (custom detectors YAML), secretlint "
    "(.secretlintrc.json), github (custom pattern form fields), vector (remap transform) "
    "or otel (Collector redaction and transform processors).",
)
def export_command(fmt: str) -> int:
    """Print the core's rules as FORMAT's configuration on standard output.

    The rules are generated from the scanner's own definitions; comments at the top say what
    the target cannot express. Example: hygiene rules export --format gitleaks > aic.toml
    """
    click.echo(export(fmt), nl=False)
    return EXIT_OK
