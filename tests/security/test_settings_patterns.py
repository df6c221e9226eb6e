"""The settings file's patterns and globs are hostile input: matching takes linear time, and a
pattern RE2 cannot run is refused in one line naming the setting, never echoing a token.

Completion is asserted under run_hygiene's generous subprocess timeout (120 s), and the work is
sized so that a backtracking engine could never finish it: Python's ``re`` on ``(a|aa)*#``
over 512 bytes of ``a`` explores about 10**107 paths.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.scan.matcher.allowlines import REACH, GlobSet, compile_pattern, glob_pattern
from hygiene.scan.settings import MAX_ENTRIES, MAX_ENTRY_LENGTH
from tests.helpers import SecretGuard, run_hygiene

# Patterns whose backtracking explodes on a run of one character (Python's re never ends).
CATASTROPHIC = [
    "(a|aa)*#",
    "(a+)+!",
    "(a|a)*!",
    "^(a|a?)+$",
    r"(\w|\d)*!",
    "(?:a*)*%",
    "(a{1,2}){1,400}#",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_catastrophic_line_pattern_finishes_and_the_finding_stays(
    tmp_path: Path, guard: SecretGuard, pattern: str
) -> None:
    pat = guard.pat()
    run = "a" * (REACH * 4)
    # The run of `a` on both sides of the token, inside the window a line pattern searches.
    (tmp_path / "app.py").write_text(f"{run} = '{pat}' {run}\n" * 3)
    (tmp_path / ".hygiene.toml").write_text(f"allow-lines = ['{pattern}']\n")
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert len(doc["findings"]) == 3
    assert doc["suppressed"]["settings"] == 0


@pytest.mark.parametrize("pattern", ["(a|aa)*#", "(a+)+!", "^(a|a?)+#"])
def test_a_catastrophic_path_pattern_finishes_on_a_long_name(
    tmp_path: Path, guard: SecretGuard, pattern: str
) -> None:
    deep = tmp_path / ("a" * 200) / ("a" * 200)
    deep.mkdir(parents=True)
    (deep / ("a" * 200)).write_text(f"k = '{guard.pat()}'\n")
    (tmp_path / ".hygiene.toml").write_text(f"allow-paths = ['{pattern}']\n")
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert len(json.loads(proc.stdout)["findings"]) == 1


def test_a_pattern_that_matches_still_hides_and_is_counted(
    tmp_path: Path, guard: SecretGuard
) -> None:
    (tmp_path / "app.py").write_text(f"k = '{guard.pat()}'  # aaaa#\n")
    (tmp_path / ".hygiene.toml").write_text("allow-lines = ['(a|aa)*#']\n")
    doc = json.loads(run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path).stdout)
    assert (doc["findings"], doc["suppressed_by"]["allow-lines"]) == ([], 1)


@pytest.mark.parametrize(
    "glob",
    [
        "*a*a*a*a*a*a*a*a*a*a*a*a*b",
        "*" + "a*" * 40 + "b",
        "*a" * 120 + "b",  # fnmatch on Python 3.10: about 10 ms a name
        "[!/]" * 60 + "*",
    ],
)
def test_hostile_exclude_globs_finish_on_long_names(
    tmp_path: Path, guard: SecretGuard, glob: str
) -> None:
    deep = tmp_path / ("a" * 250) / ("a" * 250)
    deep.mkdir(parents=True)
    for n in range(20):
        (deep / ("a" * 240 + str(n))).write_text(f"k = '{guard.pat()}'\n" if n == 0 else "x\n")
    (tmp_path / ".hygiene.toml").write_text(f"exclude = ['{glob}']\n")
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    assert len(doc["findings"]) + doc["suppressed"]["settings"] == 1


@pytest.mark.parametrize(
    ("key", "pattern"),
    [
        ("allow-lines", r"(a)\1"),
        ("allow-lines", "(?=x)y"),
        ("allow-paths", "(?<=src/)x"),
        ("allow-paths", "(?<!a)b"),
        ("allow-lines", "a{1001}"),
        ("allow-lines", "(unclosed"),
        ("allow-paths", "x**"),
    ],
)
def test_a_pattern_re2_cannot_compile_is_one_line_exit_2_naming_the_setting(
    tmp_path: Path, guard: SecretGuard, key: str, pattern: str
) -> None:
    (tmp_path / "app.py").write_text(f"k = '{guard.pat()}'\n")
    (tmp_path / ".hygiene.toml").write_text(f"{key} = ['ok', '{pattern}']\n")
    proc = run_hygiene(guard, "scan", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, b"")
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert f".hygiene.toml: {key}: pattern 2: RE2 cannot compile it" in lines[0]
    assert "Traceback" not in lines[0]


def test_a_refused_pattern_holding_a_token_is_shown_masked(
    tmp_path: Path, guard: SecretGuard
) -> None:
    pat = guard.pat()
    (tmp_path / ".hygiene.toml").write_text(f"allow-lines = ['({pat}']\n")
    proc = run_hygiene(guard, "scan", cwd=tmp_path)
    assert proc.returncode == 2
    assert "RE2 cannot compile it" in proc.stderr.decode()
    assert "pat_AIC_…" in proc.stderr.decode()  # the masked form; the guard checks the rest


@pytest.mark.parametrize("key", ["exclude", "allow-paths", "allow-lines"])
def test_too_many_or_too_long_entries_are_refused_in_one_line(
    tmp_path: Path, guard: SecretGuard, key: str
) -> None:
    (tmp_path / "app.py").write_text(f"k = '{guard.pat()}'\n")
    many = ", ".join(f"'x{n}'" for n in range(MAX_ENTRIES + 1))
    long = "'" + "a" * (MAX_ENTRY_LENGTH + 1) + "'"
    for entries, says in ((many, "more than"), (long, "longer than")):
        (tmp_path / ".hygiene.toml").write_text(f"{key} = [{entries}]\n")
        proc = run_hygiene(guard, "scan", cwd=tmp_path)
        assert (proc.returncode, proc.stdout) == (2, b"")
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert f".hygiene.toml: {key}: " in lines[0]
        assert says in lines[0]


def test_the_most_globs_allowed_against_many_findings_finish(
    tmp_path: Path, guard: SecretGuard
) -> None:
    deep = tmp_path / ("b" * 120) / ("b" * 120)
    deep.mkdir(parents=True)
    (deep / "many.txt").write_text("".join(f"k = '{guard.pat()}'\n" for _ in range(300)))
    globs = ", ".join(f"'*a*a*a*a*{n}*b'" for n in range(MAX_ENTRIES))
    (tmp_path / ".hygiene.toml").write_text(f"exclude = [{globs}]\n")
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert len(json.loads(proc.stdout)["findings"]) == 300


@given(
    st.text(alphabet="ab*?[]!-/.^\\$(){}|+", max_size=10),
    st.text(alphabet="ab/.-![]^\\$", max_size=10),
)
def test_a_glob_matches_in_re2_exactly_as_in_fnmatch(glob: str, name: str) -> None:
    compiled = compile_pattern(glob_pattern(glob))
    assert (compiled.search(name) is not None) == fnmatch.fnmatchcase(name, glob)


def test_settings_globs_exclude_as_the_walk_does() -> None:
    globs = GlobSet(["vendor/", "./build", "*.min.js", "/docs"])
    for path in ("vendor", "vendor/x.js", "build/out", "a/b/app.min.js", "docs"):
        assert globs.excludes(path), path
    assert not globs.excludes("src/app.js")
    assert GlobSet(["", "/"]).globs == ()
