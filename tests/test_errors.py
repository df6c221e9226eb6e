"""The one place where exceptions become exit codes and one-line messages."""

from __future__ import annotations

import io

import pytest

from hygiene import errors
from hygiene.cli import report_errors
from tests.helpers import new_pat


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (errors.UsageError("bad option"), 2),
        (errors.InputError("cannot read x"), 2),
        (errors.AuthFailed("AUTH_FAILED: authentication failed"), 2),
        (errors.ApiError("boom", status=500), 2),
        (KeyboardInterrupt(), 130),
        (RuntimeError("unexpected"), 2),
    ],
)
def test_exceptions_become_exit_codes_and_one_line(exc: BaseException, code: int) -> None:
    def boom() -> int:
        raise exc

    err = io.StringIO()
    assert report_errors(boom, stderr=err) == code
    lines = err.getvalue().splitlines()
    assert len(lines) == 1
    assert "Traceback" not in err.getvalue()


def test_return_value_passes_through() -> None:
    assert report_errors(lambda: 1, stderr=io.StringIO()) == 1


def test_messages_are_masked_and_folded() -> None:
    token = new_pat()

    def boom() -> int:
        raise errors.InputError(f"cannot use\n{token}")

    err = io.StringIO()
    report_errors(boom, stderr=err)
    assert token not in err.getvalue()
    assert token[8:-4] not in err.getvalue()
    assert err.getvalue().count("\n") == 1
