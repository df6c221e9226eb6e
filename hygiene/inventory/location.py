"""Where the inventory lives: a SQLite file (the zero-setup default) or a PostgreSQL database
shared by a team, named by ``HYGIENE_INVENTORY``.

A URL's password is never shown: :attr:`Location.display` is the URL without it (libpq reads
the password from the URL, ``PGPASSWORD`` or ``~/.pgpass``; teams should use the last two).
"""

from __future__ import annotations

import sys
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

APP_DIR = "aic-token-hygiene"
FILE_NAME = "inventory.sqlite3"
SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class Location:
    """A SQLite ``path`` or a PostgreSQL ``url`` (exactly one of the two)."""

    path: Path | None = None
    url: str | None = field(default=None, repr=False)  # may hold a password: never shown

    @property
    def is_postgres(self) -> bool:
        return self.url is not None

    @property
    def display(self) -> str:
        """What may be printed: the path, or the URL without its password or query."""
        if self.path is not None:
            return str(self.path)
        return redacted_url(self.url or "")

    def __str__(self) -> str:
        return self.display


def redacted_url(url: str) -> str:
    """``url`` with any password (and the query, where ``password=`` may sit) left out."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "postgresql://(unparsable URL)"
    if ":" in host:
        host = f"[{host}]"
    user = f"{urllib.parse.unquote(parts.username)}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"


def parse_location(text: str) -> Location:
    """A ``postgresql://`` (or ``postgres://``) URL, else a file path (``~`` expanded)."""
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in SCHEMES:
        return Location(url=text)
    return Location(path=Path(text).expanduser())


def default_location(env: Mapping[str, str], platform: str = sys.platform) -> Location:
    """``HYGIENE_INVENTORY``, else the per-user data folder of the platform."""
    if env.get("HYGIENE_INVENTORY"):
        return parse_location(env["HYGIENE_INVENTORY"])
    home = Path(env.get("HOME") or Path.home())
    if platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return Location(path=base / APP_DIR / FILE_NAME)


__all__ = ["Location", "default_location", "parse_location", "redacted_url"]
