"""Which tests the fast selection (``python -m pytest -m "not slow"``) leaves out.

The list lives in one data file rather than as markers over the test files: it is tuned from
``--durations=0`` as a whole, and a test's code stays as it was written.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

LIST = Path(__file__).with_name("fast_selection.txt")

# The real-library battery is slow as a whole (each case starts real servers), but each of its
# modules keeps one case in the fast selection, with the masking installed, about a second each.
KEPT_REALWORLD = frozenset(
    "tests/masking/realworld/" + case
    for case in (
        "test_clients.py::test_client[httpx-install]",
        "test_context_stacks.py::test_loguru_sinks_and_handlers_made_before_install_are_masked",
        "test_django.py::test_django_runserver[install]",
        "test_loggers.py::test_logging_library[jsonlogger-install]",
        "test_stdlib_aiohttp.py::test_http_server[install]",
        "test_uvicorn.py::test_uvicorn_fastapi[install]",
        "test_wsgi.py::test_gunicorn[install]",
    )
)


@cache
def slow_ids() -> frozenset[str]:
    """The node ids tests/fast_selection.txt names (comments and blank lines left out)."""
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line.strip() and not line.startswith("#"))


def is_slow(nodeid: str, fixturenames: Iterable[str] = (), params: Iterable[object] = ()) -> bool:
    """Whether the test is left out of the fast selection: it is listed, or it runs against
    the PostgreSQL server (starting one costs seconds; the SQLite cases stay fast). The
    ``inventory_location`` cases reach the server through ``getfixturevalue``, so those are
    known by their parameter, not by the fixtures they name."""
    on_postgres = "postgres_server" in fixturenames or "postgresql" in params
    return on_postgres or nodeid in slow_ids()
