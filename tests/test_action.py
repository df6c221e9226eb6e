"""The composite action (``action.yml``), its shell steps run here as the runner would run
them: expressions substituted, step outputs passed on, against real git repositories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport has the same API
    import tomli as tomllib

from tests.helpers import REPO_ROOT, SARIF_SCHEMA, SCRIPTS_DIR, SecretGuard, console_script, git

ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
VENV = "aic-token-hygiene-venv"


@dataclass
class Run:
    """What one run of the action did: each step's status and output, uploads, outputs."""

    statuses: dict[str, int] = field(default_factory=dict)
    logs: list[bytes] = field(default_factory=list)
    uploads: list[dict[str, str]] = field(default_factory=list)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    summary: str = ""

    @property
    def failed(self) -> bool:
        return any(status != 0 for status in self.statuses.values())


# How the runner reads a step's output: lines end at CR, LF or CRLF (.NET's ReadLine); a
# line is a command when, less its leading blanks, it starts with `::` (or holds the legacy
# `##[`); `::stop-commands::TOKEN` turns every command off until a line `::TOKEN::`.
LINE_END = re.compile(r"\r\n|\r|\n")
SCRIPT_COMMAND = re.compile(
    r"::stop-commands::[0-9a-f]{32}"
    r"|::(warning|error)( file=[^:,\s]+)?::aic-token-hygiene: [^\r\n]+"
    # a finding's annotation: the file property escaped (no raw `:` `,`), numbers only
    r"|::(warning|error) file=[^:,\r\n]+,line=[1-9][0-9]*,col=[1-9][0-9]*"
    r"::aic-token-hygiene: [^\r\n]+"
)


def workflow_commands(log: bytes) -> list[str]:
    """The lines of ``log`` the runner would act on as workflow commands, in order."""
    acted: list[str] = []
    stop_token: str | None = None
    for line in LINE_END.split(log.decode("utf-8", "replace")):
        text = line.lstrip()
        if not text.startswith("::") and "##[" not in line:
            continue
        name = text[2:].split("::", 1)[0].split(" ", 1)[0] if text.startswith("::") else ""
        if stop_token is not None:
            if name and name.lower() == stop_token.lower():
                stop_token = None
            continue
        acted.append(line)
        if name == "stop-commands":
            stop_token = text.split("::", 2)[2]
    assert stop_token is None, "the step ended with workflow commands turned off"
    return acted


def assert_commands_are_the_scripts(run: Run) -> list[str]:
    """Every workflow command of every step is one the action's scripts write (none comes
    from scanned content); returns them."""
    acted = [c for log in run.logs for c in workflow_commands(log)]
    for command in acted:
        assert SCRIPT_COMMAND.fullmatch(command), command
        if ",line=" not in command:  # an annotation names the hostile file, escaped
            assert "HOSTILE" not in command, command
    return acted


def _lookup(expr: str, context: dict[str, Any]) -> str:
    value: Any = context
    for part in expr.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def _substitute(text: str, context: dict[str, Any]) -> str:
    return EXPR.sub(lambda m: _lookup(m.group(1), context), text)


def _fake_venv(temp: Path) -> None:
    """The install step's result, without the install: this interpreter's hygiene, importing
    this tree's package (the steps' environment has no PYTHONPATH: without it, the scripts
    would run whatever tree is installed, not the one under test)."""
    bin_dir = temp / VENV / "bin"
    bin_dir.mkdir(parents=True)
    for name, target in (("hygiene", console_script("hygiene")), ("python", sys.executable)):
        (bin_dir / name).write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{target}" "$@"\n')
        (bin_dir / name).chmod(0o755)


def read_outputs(text: str) -> dict[str, str]:
    """A ``$GITHUB_OUTPUT`` file read as the runner reads it: ``name=value`` lines and the
    ``name<<DELIMITER`` form for multi-line values."""
    outputs: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for inner in lines:
                if inner == delimiter:
                    break
                value.append(inner)
            else:
                raise AssertionError(f"output {name}: no closing delimiter")
            outputs[name] = "\n".join(value)
        else:
            name, value_ = line.split("=", 1)
            outputs[name] = value_
    return outputs


def run_action(
    repo: Path,
    temp: Path,
    guard: SecretGuard,
    *,
    install: bool = False,
    before: str = "",
    pull_request: tuple[str, str] | None = None,
    **inputs: str,
) -> Run:
    """Run the action's steps in ``repo`` with ``inputs`` (names with ``_`` for ``-``), as
    for a push whose previous head was ``before``, or for a pull request from base to head
    commit (``pull_request``)."""
    given = {k.replace("_", "-"): v for k, v in inputs.items()}
    unknown = set(given) - set(ACTION["inputs"])
    assert not unknown, unknown
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    github: dict[str, Any] = {"action_path": str(REPO_ROOT), "event_name": "push"}
    github.update(sha=_head(repo), event={"before": before})
    if pull_request is not None:
        base, head = pull_request
        github.update(event_name="pull_request")
        github["event"] = {"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}
    context: dict[str, Any] = {
        "inputs": {**defaults, **given},
        "github": github,
        "runner": {"temp": str(temp)},
        "steps": {},
    }
    temp.mkdir(parents=True, exist_ok=True)
    if not install:
        _fake_venv(temp)
    # The runner's PATH, without this interpreter's scripts: the action must use its own.
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != SCRIPTS_DIR
    )
    run = Run()
    for index, step in enumerate(STEPS):
        if "uses" in step:
            run.uploads.append({k: _substitute(str(v), context) for k, v in step["with"].items()})
            continue
        if step["name"].startswith("Install") and not install:
            continue
        output_file = temp / f"output-{index}"
        output_file.touch()
        env = {"PATH": path, "HOME": os.environ.get("HOME", str(temp)), "RUNNER_TEMP": str(temp)}
        env.update({k: _substitute(str(v), context) for k, v in step.get("env", {}).items()})
        env["GITHUB_OUTPUT"] = str(output_file)
        env["GITHUB_STEP_SUMMARY"] = str(temp / "step-summary.md")
        proc = subprocess.run(
            ["bash", "-e", "-c", _substitute(step["run"], context)],
            cwd=repo,
            env=env,
            capture_output=True,
            timeout=300,
            check=False,
        )
        guard.capture(proc.stdout, proc.stderr)
        run.logs.append(proc.stdout + proc.stderr)
        run.statuses[step["name"]] = proc.returncode
        outputs = read_outputs(output_file.read_bytes().decode())
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs}
            run.outputs[step["id"]] = outputs
        if proc.returncode != 0:
            break  # later steps run on success() only (the upload's always() aside)
    summary = temp / "step-summary.md"
    run.summary = summary.read_text() if summary.exists() else ""
    guard.capture(run.summary.encode())
    return run


def _head(repo: Path) -> str:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, check=False)
    return proc.stdout.decode().strip()


def _commit(repo: Path, name: str, text: str, message: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", message, "--no-verify")
    return _head(repo)


def _sarif_results(repo: Path, run: Run) -> list[dict[str, Any]]:
    report = repo / run.outputs["scan"]["report"]
    sarif = json.loads(report.read_text())
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    return [r for sarif_run in sarif["runs"] for r in sarif_run["results"]]


def test_all_files_finds_a_planted_token_writes_sarif_and_fails_the_job(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "config.py", f"TOKEN = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard)
    assert run.statuses == {"Scan": 0, "Verdict": 1}
    assert run.outputs["scan"]["exit-code"] == "1"
    assert run.outputs["scan"]["findings"] == "1"
    [result] = _sarif_results(git_repo, run)
    assert result["ruleId"] == "aic-pat"
    assert run.uploads == [
        {"sarif_file": "aic-token-hygiene.sarif", "category": "aic-token-hygiene"}
    ]
    guard.capture((git_repo / "aic-token-hygiene.sarif").read_bytes())


def test_fail_on_findings_false_keeps_the_job_green(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "config.py", f"TOKEN = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, fail_on_findings="false")
    assert run.statuses == {"Scan": 0, "Verdict": 0}
    assert run.outputs["scan"]["exit-code"] == "1"
    assert b"::warning::" in run.logs[-1]


def test_a_clean_repository_passes(git_repo: Path, tmp_path: Path, guard: SecretGuard) -> None:
    _commit(git_repo, "config.py", "TOKEN = 'pat_AIC_xxxxxxxxxxxx'\n", "placeholder")
    run = run_action(git_repo, tmp_path / "runner", guard)
    assert run.statuses == {"Scan": 0, "Verdict": 0}
    assert run.outputs["scan"]["findings"] == "0"
    assert _sarif_results(git_repo, run) == []


def test_paths_mode_scans_the_listed_paths_only(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    for folder in ("src", "docs", "vendor"):
        (git_repo / folder).mkdir()
    (git_repo / "src" / "a.py").write_text(f"T = '{guard.pat()}'\n")
    (git_repo / "docs" / "b.md").write_text(f"Authorization: Bearer {guard.session_token()}\n")
    (git_repo / "vendor" / "c.py").write_text(f"T = '{guard.pat()}'\n")
    run = run_action(
        git_repo, tmp_path / "runner", guard, paths="src\n  docs/b.md  \n", format="json"
    )
    assert run.outputs["scan"]["findings"] == "2"
    report = json.loads((git_repo / "aic-token-hygiene.sarif").read_text())
    assert sorted(f["path"].split("/")[0] for f in report["findings"]) == ["docs", "src"]


def test_staged_mode_scans_the_index(git_repo: Path, tmp_path: Path, guard: SecretGuard) -> None:
    _commit(git_repo, "a.txt", "fine\n", "one")
    (git_repo / "b.py").write_text(f"T = '{guard.pat()}'\n")
    git(git_repo, "add", "b.py")
    (git_repo / "b.py").write_text("T = None\n")  # the working tree is clean, the index not
    run = run_action(git_repo, tmp_path / "runner", guard, mode="staged")
    assert run.outputs["scan"]["exit-code"] == "1"
    assert run.statuses["Verdict"] == 1


def test_history_mode_finds_a_removed_token_and_since_bounds_it(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    first = _commit(git_repo, "a.txt", "fine\n", "one")
    _commit(git_repo, "c.txt", f"key={guard.pat()}\n", "leak")
    leaked = _head(git_repo)
    _commit(git_repo, "c.txt", "removed\n", "hide")
    whole = run_action(git_repo, tmp_path / "r1", guard, mode="history")
    assert whole.outputs["scan"]["findings"] == "1"
    [result] = _sarif_results(git_repo, whole)
    assert result["partialFingerprints"]
    after_leak = run_action(git_repo, tmp_path / "r2", guard, mode="history", since=leaked)
    assert after_leak.outputs["scan"]["exit-code"] == "0"
    # since: auto takes the pushed range from the event, or the whole history for a new branch.
    for before, expected in ((first, "1"), (leaked, "0"), ("0" * 40, "1")):
        pushed = run_action(
            git_repo,
            tmp_path / f"r-{before[:7]}",
            guard,
            mode="history",
            since="auto",
            before=before,
        )
        assert pushed.outputs["scan"]["exit-code"] == expected, before


def test_a_scan_error_fails_the_scan_step(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    run = run_action(git_repo, tmp_path / "runner", guard, mode="nonsense")
    assert run.statuses == {"Scan": 2}
    broken = run_action(git_repo, tmp_path / "r2", guard, paths="does/not/exist")
    assert broken.statuses["Scan"] == 2
    assert broken.outputs["scan"]["exit-code"] == "2"


def test_action_is_composite_and_uploads_through_codeql_action() -> None:
    assert ACTION["runs"]["using"] == "composite"
    [upload] = [s for s in STEPS if "uses" in s]
    assert re.fullmatch(r"github/codeql-action/upload-sarif@[0-9a-f]{40}", upload["uses"])
    assert "always()" in upload["if"]
    install = (REPO_ROOT / "action" / "install.sh").read_text()
    assert (
        '--require-hashes --only-binary=:all: -r "$ACTION_PATH/action/requirements.txt"' in install
    )
    assert 'install --no-deps --no-build-isolation --no-index "$ACTION_PATH"' in install
    assert STEPS[0]["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    for name in ("mode", "paths", "since", "format", "upload-sarif", "fail-on-findings", "config"):
        assert name in ACTION["inputs"]


REQUIREMENTS = REPO_ROOT / "action" / "requirements.txt"


def _pins() -> dict[str, tuple[str, str, list[str]]]:
    """action/requirements.txt: name -> (version, marker, hashes)."""
    pins = {}
    text = REQUIREMENTS.read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        requirement, *hashes = line.split("--hash=")
        req = Requirement(requirement.strip())
        [spec] = req.specifier
        assert spec.operator == "==", line
        pins[canonicalize_name(req.name)] = (spec.version, str(req.marker or ""), hashes)
    return pins


def test_every_runtime_dependency_is_pinned_with_hashes() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    pins = _pins()
    wanted = [Requirement(r) for r in pyproject["project"]["dependencies"]]
    wanted += [Requirement(r) for r in pyproject["build-system"]["requires"]]
    for req in wanted:
        version, marker, _ = pins[canonicalize_name(req.name)]
        assert req.specifier.contains(version), (req, version)
        assert marker == str(req.marker or ""), req  # installed where pyproject.toml asks
    for name, (_, _, hashes) in pins.items():
        assert hashes, name
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h.strip()) for h in hashes), name
    # Every wheel and sdist of the pinned version, for the runners' platforms: hyperscan
    # (compiled) has one file per CPython and machine at least.
    assert len(pins["hyperscan"][2]) >= 8


@pytest.mark.slow
def test_the_pinned_requirements_install_into_a_fresh_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # This machine's pip configuration (local indexes and wheels) left out: PyPI's files.
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    env = {k: v for k, v in env.items() if k not in ("PIP_FIND_LINKS", "PYTHONPATH")}
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    install = [*pip, "install", "--quiet", "--require-hashes", "--only-binary=:all:"]
    subprocess.run([*install, "-r", str(REQUIREMENTS)], check=True, env=env, timeout=900)
    frozen = subprocess.run(
        [*pip, "freeze", "--all"], check=True, env=env, capture_output=True, timeout=300
    ).stdout.decode()
    installed = {
        canonicalize_name(name): version
        for name, version in (line.split("==") for line in frozen.split() if "==" in line)
    }
    for name, (version, marker, _) in _pins().items():
        if not marker or Marker(marker).evaluate():
            assert installed.get(name) == version, name
    # A requirement that is not hashed is refused: nothing unpinned gets in.
    loose = tmp_path / "loose.txt"
    loose.write_text(REQUIREMENTS.read_text() + "six\n")
    refused = subprocess.run(
        [*install, "-r", str(loose)], env=env, capture_output=True, timeout=900, check=False
    )
    assert refused.returncode != 0
    assert b"hash" in refused.stderr.lower()


@pytest.mark.slow
def test_install_step_installs_from_the_action_checkout(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "config.py", f"TOKEN = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, install=True)
    assert run.statuses == {
        "Install aic-token-hygiene from the action's checkout": 0,
        "Scan": 0,
        "Verdict": 1,
    }


# --- findings where people look: annotations, the step summary, the args input -----------

ANNOTATION = re.compile(
    r"::(?P<level>error|warning) file=(?P<file>[^:,]+),line=(?P<line>\d+),col=(?P<col>\d+)"
    r"::aic-token-hygiene: (?P<message>.*)"
)
UNESCAPE = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def unescape(value: str) -> str:
    """A command's value as the runner reads it back."""
    return re.sub("|".join(UNESCAPE), lambda m: UNESCAPE[m.group()], value)


def annotations(run: Run) -> list[dict[str, str]]:
    """The findings' annotations the runner would make, values unescaped."""
    found = []
    for command in assert_commands_are_the_scripts(run):
        match = ANNOTATION.fullmatch(command)
        if match:
            found.append({k: unescape(v) for k, v in match.groupdict().items()})
    return found


def _json_findings(repo: Path, name: str) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = json.loads((repo / name).read_text())["findings"]
    return findings


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_each_finding_is_an_annotation_and_a_summary_row(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    (git_repo / "src").mkdir()
    _commit(git_repo, "src/a.py", f"\nA = '{guard.pat()}'\n", "one")
    _commit(git_repo, "b.md", f"Authorization: Bearer {guard.session_token()}\n", "two")
    run = run_action(git_repo, tmp_path / "runner", guard, format=fmt, output="r.out")
    assert run.statuses == {"Scan": 0, "Verdict": 1}
    # the same scan's json report says what each annotation must say
    args = ["scan", "--all-files", "--format", "json", "--output", "expected.json"]
    subprocess.run([console_script("hygiene"), *args], cwd=git_repo, check=False, timeout=300)
    expected = sorted(_json_findings(git_repo, "expected.json"), key=lambda f: f["path"])
    got = sorted(annotations(run), key=lambda a: a["file"])
    assert [(a["level"], a["file"], a["line"], a["col"]) for a in got] == [
        ("error", f["path"], str(f["line"]), str(f["column"])) for f in expected
    ]
    for annotation, f in zip(got, expected, strict=True):
        short = f["fingerprint"].split(":", 1)[1][:12]
        where = f"{f['path']}:{f['line']}:{f['column']}"
        assert annotation["message"] == f"{where}: {f['type']} {f['masked']} {short}"
        assert f"| {f['type'].replace('_', '&#95;')} |" in run.summary
        assert short in run.summary
    assert "src/a&#46;py | 2 |" in run.summary
    assert "2 finding(s)" in run.summary
    assert run.outputs["scan"]["findings"] == "2"


def test_without_code_scanning_the_findings_are_still_shown(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "config.py", f"TOKEN = '{guard.pat()}'\n", "leak")
    run = run_action(
        git_repo, tmp_path / "runner", guard, upload_sarif="false", fail_on_findings="false"
    )
    # (run_action does not evaluate `if`: the upload step's asks for upload-sarif true)
    [upload] = [s for s in STEPS if "uses" in s]
    assert "inputs.upload-sarif == 'true'" in upload["if"]
    [annotation] = annotations(run)
    assert (annotation["level"], annotation["file"]) == ("warning", "config.py")
    assert "| config&#46;py | 1 | aic-pat |" in run.summary
    assert run.statuses == {"Scan": 0, "Verdict": 0}


def test_at_most_50_annotations_and_a_count_of_the_rest(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    for index in range(57):
        (git_repo / f"leak{index:02}.py").write_text(f"T = '{guard.pat()}'\n")
    run = run_action(git_repo, tmp_path / "runner", guard, paths=".", format="json")
    assert run.outputs["scan"]["findings"] == "57"
    assert len(annotations(run)) == 50
    acted = assert_commands_are_the_scripts(run)
    assert "::error::aic-token-hygiene: 7 more finding(s) not annotated" in "\n".join(acted)
    assert run.summary.count("| aic-pat |") == 57  # the summary lists every one


def test_history_annotations_name_the_commit(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    leaked = _commit(git_repo, "c.txt", f"key={guard.pat()}\n", "leak")
    _commit(git_repo, "c.txt", "removed\n", "hide")
    run = run_action(git_repo, tmp_path / "runner", guard, mode="history")
    [annotation] = annotations(run)
    assert annotation["file"] == "c.txt"
    assert annotation["message"].startswith(f"{leaked[:12]}:c.txt:1:5: aic-pat ")
    assert f"| {leaked[:12]}&#58;c&#46;txt | 1 |" in run.summary


def test_text_format_keeps_the_report_in_the_log_without_annotations(
    git_repo: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    _commit(git_repo, "config.py", f"TOKEN = '{guard.pat()}'\n", "leak")
    run = run_action(git_repo, tmp_path / "runner", guard, format="text", output="r.txt")
    assert annotations(run) == []
    assert b"config.py:1:10: aic-pat " in run.logs[0]
    assert run.statuses == {"Scan": 0, "Verdict": 1}


@pytest.mark.parametrize(
    "args",
    [
        '--exclude "dir with space/*"',
        "--exclude 'dir with space/*'",
        "--exclude dir\\ with\\ space/*",
        '--exclude="dir with space/*"',
        '\n  --exclude\n  "dir with space/*"\n',
    ],
)
def test_args_keep_their_quoting(
    git_repo: Path, tmp_path: Path, guard: SecretGuard, args: str
) -> None:
    (git_repo / "dir with space").mkdir()
    (git_repo / "dir with space" / "a.py").write_text(f"T = '{guard.pat()}'\n")
    _commit(git_repo, "b.py", f"T = '{guard.pat()}'\n", "leaks")
    git(git_repo, "add", "dir with space/a.py")
    git(git_repo, "commit", "-qm", "space", "--no-verify")
    run = run_action(git_repo, tmp_path / "runner", guard, args=args, format="json")
    assert run.outputs["scan"]["exit-code"] == "1", run.logs
    assert [f["path"] for f in _json_findings(git_repo, "aic-token-hygiene.sarif")] == ["b.py"]
