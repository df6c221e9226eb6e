"""run_scan from Python: errors name the request's fields; the command line names its flags."""

from __future__ import annotations

import io

import pytest

from hygiene.cli import report_errors
from hygiene.errors import UsageError
from hygiene.scan import ScanRequest, run_scan


@pytest.mark.parametrize(
    ("request_", "python", "cli"),
    [
        (ScanRequest(since="HEAD~1"), "since needs history", "--since needs --history"),
        (
            ScanRequest(staged=True, all_files=True),
            "staged and all_files cannot be combined",
            "--staged and --all-files cannot be combined",
        ),
        (
            ScanRequest(paths=("a",), history=True),
            "history takes no paths arguments",
            "--history takes no PATH arguments",
        ),
    ],
)
def test_errors_name_fields_in_python_and_flags_on_the_command_line(
    request_: ScanRequest, python: str, cli: str
) -> None:
    with pytest.raises(UsageError) as info:
        run_scan(request_)
    assert str(info.value) == python

    def run() -> int:
        run_scan(request_)
        return 0

    err = io.StringIO()
    assert report_errors(run, stderr=err) == 2
    assert err.getvalue() == f"hygiene: error: {cli}\n"


def test_stdin_is_scanned_from_the_stream_given() -> None:
    body = "Q" + "k3" * 10
    data = f"token pat_AIC_{body}\n".encode()
    result = run_scan(ScanRequest(paths=("-",), keep_secrets=True), stdin=io.BytesIO(data))
    assert [(f.path, f.line, f.column) for f in result.findings] == [("<stdin>", 1, 7)]
