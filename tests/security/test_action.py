"""The GitHub Action against a hostile repository: file names and contents that would be
workflow commands, names that would be options, a pull request that switches its own scan
off. The action's steps run as the runner runs them (tests/test_action.py's run_action), and
the log is read as the runner reads it (workflow_commands): every command acted on must be
one the scripts wrote, and no secret reaches the log."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from tests.helpers import REPO_ROOT, SecretGuard, git
from tests.test_action import (
    Run,
    _commit,
    _head,
    annotations,
    assert_commands_are_the_scripts,
    read_outputs,
    run_action,
    workflow_commands,
)

LIB = REPO_ROOT / "action" / "lib.sh"

# Names the runner would act on if they reached the log raw. HOSTILE marks their payload.
COMMAND_NAMES = [
    "::error::HOSTILE",
    "::add-mask::HOSTILE",
    "::stop-commands::HOSTILE",
    "::set-output name=exit-code::HOSTILE",
    "  ::warning file=x.py::HOSTILE",
    "##[error]HOSTILE",
    "x ##[warning]HOSTILE",
    "forged\n::error::HOSTILE newline",
    "forged\r::error::HOSTILE carriage return",
    "forged\r\n::add-mask::HOSTILE crlf",
    "%0A::error::HOSTILE",
]


def _plant(repo: Path, name: str, text: str) -> None:
    (repo / name).write_bytes(text.encode())
    git(repo, "--literal-pathspecs", "add", "--", name)


def _leaky_repo(repo: Path, guard: SecretGuard, names: list[str], *, commit: bool = True) -> None:
    for name in names:
        _plant(repo, name, f"TOKEN = '{guard.pat()}'\n")
    if commit:
        git(repo, "commit", "-qm", "hostile names", "--no-verify")


def _log(run: Run) -> bytes:
    return b"".join(run.logs)


@pytest.mark.parametrize("fmt", ["text", "sarif", "json"])
def test_hostile_file_names_reach_the_log_as_text_only(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    _leaky_repo(git_repo, guard, COMMAND_NAMES)
    run = run_action(git_repo, tmp_path / "runner", guard, format=fmt, output="report.out")
    assert run.outputs["scan"]["exit-code"] == "1"
    if fmt != "text":
        assert run.outputs["scan"]["findings"] == str(len(COMMAND_NAMES))
    assert run.statuses == {"Scan": 0, "Verdict": 1}
    acted = assert_commands_are_the_scripts(run)
    assert any(c.startswith("::error::aic-token-hygiene: ") for c in acted)
    if fmt == "text":  # the report is in the log, bracketed: every name is there, inert
        assert _log(run).count(b"HOSTILE") >= len(COMMAND_NAMES)
    guard.capture((git_repo / "report.out").read_bytes())


@pytest.mark.parametrize("fmt", ["text", "sarif"])
def test_hostile_paths_given_as_input_stay_text(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    # A workflow handing the changed files' names on (one per line: no line ends in them).
    names = [n for n in COMMAND_NAMES if "\n" not in n and "\r" not in n]
    _leaky_repo(git_repo, guard, names)
    run = run_action(git_repo, tmp_path / "runner", guard, paths="\n".join(names), format=fmt)
    assert run.outputs["scan"]["exit-code"] == "1"
    assert_commands_are_the_scripts(run)


@pytest.mark.parametrize("mode", ["staged", "history"])
def test_hostile_names_in_the_index_and_history_stay_text(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, mode: str
) -> None:
    _commit(git_repo, "README", "base\n", "base")  # the index is read against HEAD
    _leaky_repo(git_repo, guard, COMMAND_NAMES, commit=mode == "history")
    run = run_action(git_repo, tmp_path / "runner", guard, mode=mode, format="text")
    assert run.outputs["scan"]["exit-code"] == "1"
    assert_commands_are_the_scripts(run)


def test_hostile_settings_error_message_stays_text(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    # A broken settings file makes hygiene quote the offending key in its error message.
    for index, key in enumerate(
        ("##[error]HOSTILE", "::error::HOSTILE", "a\\n::add-mask::HOSTILE")
    ):
        (git_repo / ".hygiene.toml").write_text(f'"{key}" = 1\n')
        _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "broken settings")
        run = run_action(git_repo, tmp_path / f"r{index}", guard, config="head")
        assert run.statuses == {"Scan": 2}
        assert run.outputs["scan"]["exit-code"] == "2"
        assert run.outputs["scan"]["report"] == ""
        assert_commands_are_the_scripts(run)


def test_a_stop_token_seen_before_does_not_close_a_later_bracket(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _leaky_repo(git_repo, guard, ["plain.py"])
    first = run_action(git_repo, tmp_path / "r1", guard, format="text")
    [token] = re.findall(rb"::stop-commands::([0-9a-f]{32})", _log(first))
    # The next change's file names try that token (and the forms around it).
    forged = [
        f"::{token.decode()}::\n::error::HOSTILE replay",
        f"{token.decode()}\r::add-mask::HOSTILE",
    ]
    _leaky_repo(git_repo, guard, forged)
    second = run_action(git_repo, tmp_path / "r2", guard, format="text")
    tokens = re.findall(rb"::stop-commands::([0-9a-f]{32})", _log(second))
    assert tokens
    assert token not in tokens
    assert second.outputs["scan"]["exit-code"] == "1"
    assert_commands_are_the_scripts(second)


# Names that are options or standard input to a command line that appends them raw.
OPTION_NAMES = ["--exclude=*", "--no-config", "-", "--output=elsewhere", "-x", "--", "--help"]


def test_paths_that_look_like_options_are_scanned_as_files(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    for name in OPTION_NAMES:
        (git_repo / name).write_text(f"TOKEN = '{guard.pat()}'\n")
    run = run_action(
        git_repo, tmp_path / "runner", guard, paths="\n".join(OPTION_NAMES), format="json"
    )
    assert run.statuses == {"Scan": 0, "Verdict": 1}
    report = json.loads((git_repo / "aic-token-hygiene.sarif").read_text())
    found = sorted(Path(f["path"]).name for f in report["findings"])
    assert found == sorted(OPTION_NAMES)
    assert not (git_repo / "elsewhere").exists()
    assert_commands_are_the_scripts(run)


@pytest.mark.parametrize("mode", ["all-files", "history", "staged"])
def test_names_that_look_like_options_in_git_are_scanned(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, mode: str
) -> None:
    _commit(git_repo, "README", "base\n", "base")
    _leaky_repo(git_repo, guard, OPTION_NAMES, commit=mode != "staged")
    run = run_action(git_repo, tmp_path / "runner", guard, mode=mode, format="json")
    report = json.loads((git_repo / "aic-token-hygiene.sarif").read_text())
    assert sorted(Path(f["path"]).name for f in report["findings"]) == sorted(OPTION_NAMES)
    assert_commands_are_the_scripts(run)


def test_a_paths_line_with_blanks_names_the_file_that_exists(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    (git_repo / " padded.py ").write_text(f"TOKEN = '{guard.pat()}'\n")
    (git_repo / "plain.py").write_text(f"TOKEN = '{guard.pat()}'\n")
    run = run_action(
        git_repo, tmp_path / "runner", guard, paths=" padded.py \n  plain.py\n", format="json"
    )
    assert run.outputs["scan"]["findings"] == "2"


def test_since_cannot_be_an_option(git_repo: Path, tmp_path: Path, guard: SecretGuard) -> None:
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    for since in ("--output=/tmp/x", "-p", "--all"):
        run = run_action(git_repo, tmp_path / since, guard, mode="history", since=since)
        assert run.statuses == {"Scan": 2}
        assert run.outputs["scan"]["exit-code"] == "2"
        assert_commands_are_the_scripts(run)


def test_args_cannot_choose_the_settings(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    for args in ("--no-config", "--config x.toml", "--exclude vendor/\n--config=x.toml"):
        run = run_action(git_repo, tmp_path / str(len(args)), guard, args=args)
        assert run.statuses == {"Scan": 2}
        acted = assert_commands_are_the_scripts(run)
        assert any("use the config input" in c for c in acted)


def test_a_committed_report_is_never_taken_for_the_scans(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    # The change commits a report of its own (to be uploaded to code scanning) and breaks
    # the scan so that hygiene writes none.
    fake = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": []}]}
    (git_repo / "aic-token-hygiene.sarif").write_text(json.dumps(fake))
    (git_repo / ".hygiene.toml").write_text("exclude = 1\n")
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, config="head")
    assert run.statuses == {"Scan": 2}
    assert run.outputs["scan"] == {"exit-code": "2", "findings": "", "report": ""}
    assert not (git_repo / "aic-token-hygiene.sarif").exists()


# --- a pull request that weakens its own scan -------------------------------------------


def _pull_request(repo: Path, guard: SecretGuard, files: dict[str, str]) -> tuple[str, str]:
    """A base commit, then a head commit adding a leak and ``files`` (settings)."""
    base = _head(repo)
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "leak.py").write_text(f"TOKEN = '{guard.pat()}'\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the pull request", "--no-verify")
    return base, _head(repo)


def _base(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    (repo / "README").write_text("base\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base", "--no-verify")


WEAKENING = {
    "exclude everything": {".hygiene.toml": 'exclude = ["*"]\n'},
    "exclude in pyproject": {"pyproject.toml": '[tool.hygiene]\nexclude = ["*"]\n'},
    "dotted keys": {
        "pyproject.toml": '# [tool.hygiene] below\n[tool]\nhygiene.exclude = ["src/"]\n'
    },
    "inline table": {
        "pyproject.toml": '# [tool.hygiene]\n[tool]\nhygiene = { types = ["bearer-token"] }\n'
    },
    "other types": {".hygiene.toml": 'types = ["bearer-token"]\n'},
    "allowed paths": {".hygiene.toml": "allow-paths = ['.*']\n"},
    "allowed lines": {".hygiene.toml": "allow-lines = ['TOKEN']\n"},
    "nested exclude": {".hygiene.toml": 'exclude = ["src/*", "src/**", "*.py"]\n'},
}


@pytest.mark.parametrize(
    "mode",
    [
        "all-files",
        "history",
    ],
)
@pytest.mark.parametrize("name", sorted(WEAKENING))
def test_a_pull_request_cannot_switch_its_own_scan_off(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, name: str, mode: str
) -> None:
    _base(git_repo, {})
    pull_request = _pull_request(git_repo, guard, WEAKENING[name])
    run = run_action(
        git_repo, tmp_path / "runner", guard, pull_request=pull_request, mode=mode, since="auto"
    )
    assert run.outputs["scan"]["exit-code"] == "1", name
    assert run.statuses == {"Scan": 0, "Verdict": 1}
    acted = assert_commands_are_the_scripts(run)
    [file] = WEAKENING[name]
    assert any(
        c.startswith(f"::warning file={file}::aic-token-hygiene: this change edits") for c in acted
    ), acted


def test_the_base_revisions_settings_still_apply(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    # The base excludes vendor/ (reviewed, merged); the head deletes that file and leaks.
    _base(git_repo, {".hygiene.toml": 'exclude = ["vendor/"]\n'})
    (git_repo / "vendor").mkdir()
    (git_repo / "vendor" / "fixture.py").write_text(f"T = '{guard.pat()}'\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "vendored", "--no-verify")
    base = _head(git_repo)
    git(git_repo, "rm", "-q", ".hygiene.toml")
    _commit(git_repo, "src.py", f"T = '{guard.pat()}'\n", "the pull request")
    run = run_action(
        git_repo, tmp_path / "runner", guard, pull_request=(base, _head(git_repo)), format="json"
    )
    report = json.loads((git_repo / "aic-token-hygiene.sarif").read_text())
    assert [f["path"] for f in report["findings"]] == ["src.py"]
    acted = assert_commands_are_the_scripts(run)
    assert any(c.startswith("::warning file=.hygiene.toml::") for c in acted)


def test_a_pull_request_cannot_baseline_its_own_leak(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    old = guard.pat()
    baseline = {"version": 1, "fingerprints": [fingerprint(old)]}
    _base(git_repo, {".hygiene-baseline.json": json.dumps(baseline), "old.py": f"T = '{old}'\n"})
    base = _head(git_repo)
    new = guard.pat()
    baseline["fingerprints"].append(fingerprint(new))
    (git_repo / ".hygiene-baseline.json").write_text(json.dumps(baseline))
    _commit(git_repo, "new.py", f"T = '{new}'\n", "the pull request")
    for index, args in enumerate(
        ("--baseline .hygiene-baseline.json", "--baseline=.hygiene-baseline.json")
    ):
        run = run_action(
            git_repo,
            tmp_path / f"r{index}",
            guard,
            pull_request=(base, _head(git_repo)),
            format="json",
            args=args,
        )
        report = json.loads((git_repo / "aic-token-hygiene.sarif").read_text())
        assert [f["path"] for f in report["findings"]] == ["new.py"]  # old.py: baselined
        acted = assert_commands_are_the_scripts(run)
        assert any("edits the baseline" in c for c in acted)


def test_a_pull_request_hiding_a_leak_behind_a_marker_is_warned(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _base(git_repo, {"old.py": "# pragma: allowlist secret (a reviewed line)\n"})
    base = _head(git_repo)
    (git_repo / "a.py").write_text(f"T = '{guard.pat()}'  # pragma: allowlist secret\n")
    (git_repo / "b.py").write_text(f"U = '{guard.pat()}'  # hygiene: allow\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "the pull request", "--no-verify")
    run = run_action(git_repo, tmp_path / "runner", guard, pull_request=(base, _head(git_repo)))
    acted = assert_commands_are_the_scripts(run)
    assert any("adds 2 line(s) holding an inline allowlist marker" in c for c in acted), acted
    quiet = run_action(git_repo, tmp_path / "r2", guard, pull_request=(_head(git_repo),) * 2)
    assert not any("allowlist marker" in c for c in assert_commands_are_the_scripts(quiet))


def test_config_head_and_none_on_a_pull_request(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _base(git_repo, {})
    pull_request = _pull_request(git_repo, guard, {".hygiene.toml": 'exclude = ["src/"]\n'})
    head = run_action(git_repo, tmp_path / "r1", guard, pull_request=pull_request, config="head")
    assert head.outputs["scan"]["exit-code"] == "0"  # the workflow chose the head's settings
    assert any("(config: head)" in c for c in assert_commands_are_the_scripts(head))
    none = run_action(git_repo, tmp_path / "r2", guard, pull_request=pull_request, config="none")
    assert none.outputs["scan"]["exit-code"] == "1"
    bad = run_action(git_repo, tmp_path / "r3", guard, pull_request=pull_request, config="x\n")
    assert bad.statuses == {"Scan": 2}
    assert_commands_are_the_scripts(bad)


def test_a_base_missing_from_a_shallow_checkout_means_no_settings(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    # actions/checkout's default depth holds the head only: the base is fetched, and when
    # it cannot be, the scan reads no settings rather than the head's.
    _base(git_repo, {})
    _base_id, head = _pull_request(git_repo, guard, {".hygiene.toml": 'exclude = ["*"]\n'})
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{git_repo}", str(clone))
    run = run_action(clone, tmp_path / "runner", guard, pull_request=("1" * 40, head))
    assert run.outputs["scan"]["exit-code"] == "1"
    acted = assert_commands_are_the_scripts(run)
    assert any("the base revision is not in the checkout" in c for c in acted)


def test_a_shallow_checkout_fetches_the_base(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _base(git_repo, {".hygiene.toml": 'exclude = ["vendor/"]\n'})
    git(git_repo, "config", "uploadpack.allowReachableSHA1InWant", "true")
    base, head = _pull_request(git_repo, guard, {".hygiene.toml": 'exclude = ["*"]\n'})
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{git_repo}", str(clone))
    run = run_action(clone, tmp_path / "runner", guard, pull_request=(base, head))
    assert run.outputs["scan"]["exit-code"] == "1"
    acted = assert_commands_are_the_scripts(run)
    assert not any("not in the checkout" in c for c in acted)
    assert any(c.startswith("::warning file=.hygiene.toml::") for c in acted)


# --- lib.sh: the only ways the scripts write commands and outputs ------------------------


def _bash(script: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["bash", "-c", f'set -euo pipefail; . "{LIB}"; {script}'],
        capture_output=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", **env},
        timeout=60,
        check=False,
    )


HOSTILE_VALUES = [
    "plain",
    "100%",
    "a\nb",
    "a\r::error::HOSTILE",
    "x\n::add-mask::HOSTILE\n",
    "%0A::error::HOSTILE",
    "name=value\nexit-code=0",
    "ghadelimiter\nEOF\n<<EOF",
]


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_commands_and_outputs_the_scripts_write_keep_their_value(
    tmp_path: Path, value: str
) -> None:
    out = tmp_path / "output"
    out.touch()
    proc = _bash(
        'gha_command warning "$V" "$V"; gha_output report "$V"; gha_output after ok',
        tmp_path,
        V=value,
        GITHUB_OUTPUT=str(out),
    )
    assert proc.returncode == 0, proc.stderr
    [command] = workflow_commands(proc.stdout)
    assert command.startswith("::warning file=")
    properties, message = command[2:].split("::", 1)
    unescape = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}
    pattern = re.compile("|".join(unescape))
    assert pattern.sub(lambda m: unescape[m.group()], message) == value
    file = properties.split("file=", 1)[1]
    assert pattern.sub(lambda m: unescape[m.group()], file) == value
    assert read_outputs(out.read_bytes().decode()) == {"report": value, "after": "ok"}


def test_the_bracket_closes_after_output_without_a_final_newline(tmp_path: Path) -> None:
    proc = _bash(
        "quoted printf '::error::HOSTILE unterminated'; gha_command warning 'aic-token-hygiene: after'",
        tmp_path,
    )
    assert workflow_commands(proc.stdout)[1:] == ["::warning::aic-token-hygiene: after"]


def test_the_bracket_holds_stderr_and_keeps_the_status(tmp_path: Path) -> None:
    proc = _bash(
        "status=0; quoted bash -c 'echo ::error::HOSTILE >&2; exit 3' || status=$?; "
        'echo "status $status"',
        tmp_path,
    )
    assert proc.stderr == b""
    assert proc.stdout.endswith(b"status 3\n")
    assert [c.split("::")[1] for c in workflow_commands(proc.stdout)] == ["stop-commands"]


def test_every_bracket_has_a_fresh_token(tmp_path: Path) -> None:
    proc = _bash("for i in 1 2 3 4 5 6 7 8; do quoted true; done", tmp_path)
    tokens = re.findall(rb"::stop-commands::(\S+)", proc.stdout)
    assert len(tokens) == 8
    assert len(set(tokens)) == 8
    assert all(re.fullmatch(rb"[0-9a-f]{32}", t) for t in tokens)


# --- annotations and the step summary name hostile files ---------------------------------

# Names that would end a summary cell, row or table, open a code span, write HTML or a link.
MARKDOWN_NAMES = [
    "a|b.py",
    "`code`.py",
    "<script>alert(1)<\\script>.py",
    "<img src=x onerror=alert(1)>.py",
    "[click](https:evil.example).py",
    "new\n| x | 1 | forged | row | here |.py",
    "&lt;amp;.py",
    "<!-- hide.py",
    "*bold* _em_ ~~s~~.py",
    "\\|escaped.py",
]


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_hostile_file_names_are_annotated_as_data(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    names = [*COMMAND_NAMES, "a,line=1,col=1.py", "b:1.py", "c%3A%0A.py", "d%.py"]
    _leaky_repo(git_repo, guard, names)
    run = run_action(git_repo, tmp_path / "runner", guard, format=fmt, output="report.out")
    found = annotations(run)  # asserts every command is the scripts' own
    assert sorted(a["file"] for a in found) == sorted(names)
    for annotation in found:
        assert annotation["line"] == "1"
        assert annotation["col"] == "10"
        assert "\n" not in annotation["message"]
        assert "\r" not in annotation["message"]
    assert run.statuses == {"Scan": 0, "Verdict": 1}


def _table_rows(summary: str) -> list[str]:
    return [line for line in summary.split("\n") if line.startswith("|")]


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_the_summary_escapes_hostile_names(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    _leaky_repo(git_repo, guard, [*MARKDOWN_NAMES, *COMMAND_NAMES])
    run = run_action(git_repo, tmp_path / "runner", guard, format=fmt, output="report.out")
    assert_commands_are_the_scripts(run)
    rows = _table_rows(run.summary)
    assert len(rows) == 2 + len(MARKDOWN_NAMES) + len(COMMAND_NAMES)  # header, rule, one each
    for row in rows[2:]:
        # five cells: no `|` but the table's, no HTML, no code span, no link, no emphasis
        assert row.count("|") == 6, row
        assert not set(row) & set("<>`[]*_~\\\r"), row
        assert "&" not in re.sub(r"&#[0-9]+;", "", row), row  # entities only: ours
    # a cell's entities read back to the exact name (C-escaped where it holds a newline)
    cells = [html.unescape(row.split("|")[1].strip()) for row in rows[2:]]
    shown = {n if n.isprintable() else json.dumps(n)[1:-1] for n in MARKDOWN_NAMES}
    assert shown <= set(cells)
    assert run.summary.startswith(f"### aic-token-hygiene: {len(rows) - 2} finding(s)\n\n|")


@pytest.mark.parametrize(
    "args",
    [
        '--exclude "$(touch PWNED)"',
        "--exclude $(touch PWNED)",
        "--exclude `touch PWNED`",
        "--exclude x; touch PWNED",
        "--exclude x && touch PWNED",
        "--exclude ${IFS}$(touch${IFS}PWNED)",
        "--exclude 'x' | touch PWNED",
    ],
)
def test_args_are_never_evaluated(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, args: str
) -> None:
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, args=args)
    assert not (git_repo / "PWNED").exists()
    assert not (tmp_path / "runner" / "PWNED").exists()
    assert run.outputs["scan"]["exit-code"] in ("1", "2")
    assert_commands_are_the_scripts(run)


@pytest.mark.parametrize(
    "args", ['--exclude "unclosed', "--exclude 'unclosed", "--exclude trailing\\", "'a\"b"]
)
def test_args_that_cannot_be_parsed_are_refused(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, args: str
) -> None:
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, args=args)
    assert run.statuses == {"Scan": 2}
    assert run.outputs["scan"]["exit-code"] == "2"
    [message] = assert_commands_are_the_scripts(run)
    assert message.startswith("::error::aic-token-hygiene: args: not shell words (")
    assert not (git_repo / "aic-token-hygiene.sarif").exists()


def test_args_quoting_cannot_smuggle_the_settings(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "a.py", f"T = '{guard.pat()}'\n", "leak")
    for index, args in enumerate(
        ("'--no-config'", '"--config=x.toml"', "--con''fig x", "\\--no-config")
    ):
        run = run_action(git_repo, tmp_path / f"r{index}", guard, args=args)
        assert run.statuses == {"Scan": 2}, args
        [message] = assert_commands_are_the_scripts(run)
        assert "use the config input" in message


@pytest.mark.parametrize(
    ("line", "col"), [("1,title=x", "1"), ("1", "2::x"), ("0", "1"), ("", "3"), ("-1", "1")]
)
def test_an_annotations_line_and_column_are_numbers_or_left_out(
    tmp_path: Path, line: str, col: str
) -> None:
    proc = _bash('gha_command error "$M" "$F" "$L" "$C"', tmp_path, M="m", F="a.py", L=line, C=col)
    assert workflow_commands(proc.stdout) == ["::error file=a.py::m"]
    numbered = _bash('gha_command error m "a,b:c" 12 3', tmp_path)
    assert workflow_commands(numbered.stdout) == ["::error file=a%2Cb%3Ac,line=12,col=3::m"]


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_a_name_that_is_not_utf8_is_annotated_and_summarized_as_text(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    name = os.fsdecode(b"bad\xff\n::error::HOSTILE.py")
    (git_repo / name).write_text(f"T = '{guard.pat()}'\n")
    git(git_repo, "--literal-pathspecs", "add", "--", name)
    git(git_repo, "commit", "-qm", "bytes", "--no-verify")
    run = run_action(git_repo, tmp_path / "runner", guard, format=fmt, output="report.out")
    [annotation] = annotations(run)
    assert "xff" in annotation["file"]
    assert "\n" not in annotation["message"]
    [row] = [r for r in run.summary.split("\n") if r.startswith("| ") and "bad" in r]
    assert row.count("|") == 6
    assert run.statuses == {"Scan": 0, "Verdict": 1}
