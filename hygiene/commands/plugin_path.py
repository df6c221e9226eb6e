"""``hygiene plugin-path``: where the installed detect-secrets plugin module is.

``plugins/aic_tokens.py`` exists only in this repository's checkout; a service that installed
the toolkit points detect-secrets at the package's own module instead::

    detect-secrets scan --plugin "$(hygiene plugin-path)"
"""

from __future__ import annotations

import click

from hygiene.integrations.detect_secrets.hook import plugin_path


@click.command(
    help="Print the absolute path of the installed detect-secrets plugin module, for "
    '`detect-secrets scan --plugin "$(hygiene plugin-path)"`.'
)
def command() -> int:
    # Printed alone on its line, unquoted: `$(...)` takes it whole, spaces and all.
    click.echo(plugin_path())
    return 0
