"""Docs stay honest: the README's opening commands, hook ids, and the changelog format."""

from __future__ import annotations

import re
from pathlib import Path

import yaml  # pre-commit depends on PyYAML, so the test extra has it

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.DOTALL)


def test_readme_opens_with_install_and_scan_then_install_and_test() -> None:
    first, second = _code_blocks(README)[:2]
    assert "pip install" in first
    assert "hygiene scan" in first
    assert "pip install" in second
    assert "pytest" in second


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _code_blocks(README)[1].strip().split("&&")[-1].strip()
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_hook_id_appears_in_the_readme_config_snippet() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    ids = {hook["id"] for hook in hooks}
    assert ids >= {"aic-token-scan", "aic-detect-secrets"}
    snippets = [b for b in _code_blocks(README) if "repos:" in b]
    assert snippets, "README has no .pre-commit-config.yaml snippet"
    config = yaml.safe_load(snippets[0])
    listed = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert ids <= listed


def test_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    assert "## [Unreleased]" in text
