"""``hygiene install-hooks``: copy the plain git hooks into the current repository."""

from __future__ import annotations

import click

from hygiene.display import quote
from hygiene.integrations.githooks import NAMES, install_hooks


@click.command(help="Install the pre-commit and pre-push git hooks into this repository.")
@click.option("--force", is_flag=True, help="Replace a different existing hook (kept as .bak).")
@click.option(
    "--hook",
    "names",
    multiple=True,
    type=click.Choice(sorted(NAMES)),
    help="Install only this hook (repeatable; default: all).",
)
def command(force: bool, names: tuple[str, ...]) -> int:
    for done in install_hooks(names or NAMES, force=force):
        # The hooks folder is the repository's to name (core.hooksPath): shown quoted.
        click.echo(f"{done.name}: {done.action} ({quote(done.path)})")
    return 0
