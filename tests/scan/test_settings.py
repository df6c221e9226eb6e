"""The settings file: every key read, every broken file one error naming file and key."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hygiene.errors import UsageError
from hygiene.scan.findings import Finding
from hygiene.scan.limits import DecodeLimits
from hygiene.scan.matcher.allowlines import REACH, check_pattern, line_allowed
from hygiene.scan.matcher.engine import scan_bytes
from hygiene.scan.settings import keeps, load_settings, repository_root, settings_file
from tests.helpers import git, new_pat

FP = "sha256:" + "ab" * 32

FULL = f"""
exclude = ["vendor/", "*.min.js"]
types = ["aic-pat"]
allow-paths = ['^tests/fixtures/']
allow-lines = ['EXAMPLE_ONLY']

[[allow]]
fingerprint = "{FP}"
reason = "revoked on 2026-01-04, kept as a fixture"

[decoders]
max_depth = 2
max_bytes = 1000000
max_ratio = 50
"""


def _write(tmp_path: Path, text: str, name: str = ".hygiene.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_key_is_read(tmp_path: Path) -> None:
    settings = load_settings(_write(tmp_path, FULL))
    assert settings.excludes == ("vendor/", "*.min.js")
    assert settings.types == frozenset({"aic-pat"})
    assert settings.allowed == {FP: "revoked on 2026-01-04, kept as a fixture"}
    assert [p.pattern for p in settings.allow_paths] == ["^tests/fixtures/"]
    assert [p.pattern for p in settings.allow_lines] == [b"EXAMPLE_ONLY"]
    assert settings.limits == DecodeLimits(max_depth=2, max_bytes=1_000_000, max_ratio=50)


def test_pyproject_holds_the_same_keys_under_tool_hygiene(tmp_path: Path) -> None:
    text = FULL.replace("[[allow]]", "[[tool.hygiene.allow]]").replace(
        "[decoders]", "[tool.hygiene.decoders]"
    )
    path = _write(tmp_path, "[project]\nname = 'x'\n[tool.hygiene]\n" + text, "pyproject.toml")
    dedicated = _write(tmp_path, FULL)
    assert replace(load_settings(path), source=None) == replace(
        load_settings(dedicated), source=None
    )


def test_the_dedicated_file_wins_and_pyproject_without_the_table_is_none(tmp_path: Path) -> None:
    _write(tmp_path, "[project]\nname = 'x'\n", "pyproject.toml")
    assert settings_file(tmp_path) is None
    _write(tmp_path, "[tool.hygiene]\ntypes = ['aic-pat']\n", "pyproject.toml")
    assert settings_file(tmp_path) == tmp_path / "pyproject.toml"
    _write(tmp_path, "types = ['bearer-token']\n")
    assert settings_file(tmp_path) == tmp_path / ".hygiene.toml"


def test_repository_root_is_the_work_tree_top_else_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    git(repo, "init", "-q")
    assert repository_root(repo / "a" / "b") == repo
    plain = tmp_path / "plain"
    plain.mkdir()
    assert repository_root(plain) in (plain, tmp_path)  # tmp_path may sit in a repo


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("exclude = 'vendor'", "exclude"),
        ("types = ['aws-key']", "types"),
        ("types = []", "types"),
        ("allow-paths = ['(unclosed']", "allow-paths"),
        ("allow-lines = ['(a)\\1']", "allow-lines"),
        ("allow-paths = ['(?<=x)y']", "allow-paths"),
        ("allow-lines = ['a{1001}']", "allow-lines"),
        ("[[allow]]\nfingerprint = 'sha256:abc'\nreason = 'r'", "allow.fingerprint"),
        (f"[[allow]]\nfingerprint = '{FP}'", "allow.reason"),
        (f"[[allow]]\nfingerprint = '{FP}'\nreason = '  '", "allow.reason"),
        (f"[[allow]]\nfingerprint = '{FP}'\nreason = 'r'\nwhy = 1", "allow"),
        ("allow = 3", "allow"),
        ("[decoders]\nmax_depth = 0", "decoders.max_depth"),
        ("[decoders]\nmax_bytes = '1G'", "decoders.max_bytes"),
        ("[decoders]\nmax_ratio = true", "decoders.max_ratio"),
        ("[decoders]\ndepth = 3", "decoders.depth"),
        ("exlcude = ['x']", "exlcude"),
    ],
)
def test_a_broken_key_is_one_error_naming_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    path = _write(tmp_path, text + "\n")
    with pytest.raises(UsageError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}: ")
    assert "\n" not in message


def test_pyproject_errors_name_the_full_key(tmp_path: Path) -> None:
    path = _write(tmp_path, "[tool.hygiene]\ntypes = 'aic-pat'\n", "pyproject.toml")
    with pytest.raises(UsageError, match=r"pyproject.toml: tool.hygiene.types: "):
        load_settings(path)


def test_bad_toml_is_one_error_naming_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "types = [\n")
    with pytest.raises(UsageError, match=r"\.hygiene\.toml: not valid TOML"):
        load_settings(path)


def test_keeps_applies_types_fingerprints_and_paths(tmp_path: Path) -> None:
    settings = load_settings(_write(tmp_path, FULL))

    def finding(path: str, type_: str = "aic-pat", fp: str = "sha256:" + "cd" * 32) -> Finding:
        return Finding(path, 1, 1, type_, "m", fp)

    assert keeps(settings, finding("src/a.py"))
    assert not keeps(settings, finding("src/a.py", type_="bearer-token"))
    assert not keeps(settings, finding("src/a.py", fp=FP))
    assert not keeps(settings, finding("tests/fixtures/x.json"))


def test_line_patterns_apply_near_findings_only(tmp_path: Path) -> None:
    settings = load_settings(_write(tmp_path, "allow-lines = ['EXAMPLE_ONLY']\n"))
    pat, other = new_pat(), new_pat()
    data = f"k = {pat}  # EXAMPLE_ONLY\nk = {other}\n".encode()
    hits = scan_bytes(data, allow_lines=settings.allow_lines)
    assert [h.secret.token for h in hits] == [other]
    far = f"k = {pat} {'x' * (REACH + 10)} EXAMPLE_ONLY\n".encode()
    assert len(scan_bytes(far, allow_lines=settings.allow_lines)) == 1


def test_patterns_re2_cannot_compile_are_refused_and_nested_quantifiers_kept() -> None:
    # RE2 matches in linear time, nested quantifiers included; what it cannot do is refused.
    for bad in [r"(a)\1", "(?<=a)b", "(?!x)y", "(unclosed", "a{1001}"]:
        assert check_pattern(bad), bad
    for good in ["(a+)+", "(a*)*b", "a+b*", "(ab)+", r"\(a+\)+", "[(a+)]+", "^tests/.*\\.json$"]:
        assert check_pattern(good) is None, good


class _CountingSearcher:
    """A pattern that counts the bytes it is asked to search: the work, whatever the clock."""

    def __init__(self, pattern: bytes) -> None:
        import re

        self._compiled = re.compile(pattern)
        self.pattern = pattern
        self.searched: list[int] = []

    def search(self, text: bytes, /) -> object | None:
        self.searched.append(len(text))
        return self._compiled.search(text)


def test_a_line_pattern_costs_bounded_time_on_a_huge_line() -> None:
    # quadratic when searched over a long run of x: only the finding's reach may be searched
    pattern = _CountingSearcher(rb"x*y")
    line = b"x" * 5_000_000
    assert not line_allowed(line, 2_500_000, 2_500_040, [pattern])
    assert sum(pattern.searched) <= 2 * REACH + 40
    assert line_allowed(line[:2_500_100] + b"y", 2_500_000, 2_500_040, [pattern])
