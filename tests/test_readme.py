"""Docs stay honest: the README's opening commands and length, hook ids, every option and command
line (README and docs/), where the package is installed from, and the changelog format. The
examples themselves run in tests/test_docs.py."""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import os
import re
import shlex
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import click
import yaml  # pre-commit depends on PyYAML, so the test extra has it

from hygiene.cli import cli
from hygiene.scan.sources.runner import PARALLEL_THRESHOLD
from tests.helpers import SecretGuard, env_with_scripts

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The README and the docs site, as one text: what moved to docs/ is still documented.
DOCS = "\n".join(
    [README, *(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))]
)


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.DOTALL)


def test_readme_opens_with_install_and_scan_then_install_and_test() -> None:
    first, second = _code_blocks(README)[:2]
    assert "pip install" in first
    assert "hygiene scan" in first
    assert "pip install" in second
    assert "pytest" in second


def test_the_readme_is_a_front_page() -> None:
    """Under 250 lines; its first screen says the Python version, that no package index has
    it, and how to add it to a project of one's own."""
    assert len(README.splitlines()) < 250
    first_screen = "\n".join(README.splitlines()[:30])
    requires = re.search(r'requires-python = ">=([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert requires
    assert f"Python {requires.group(1)} or later" in first_screen
    assert "on no package index" in first_screen
    assert "In your own project" in first_screen


def test_every_docs_page_is_in_the_site() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(re.findall(r": (\S+\.md)$", nav, flags=re.MULTILINE))


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


def _tags() -> set[str]:
    proc = subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True)
    return set(proc.stdout.split())


def test_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    assert "## [Unreleased]" in text
    # A release heading is a release that exists: its tag is in the repository.
    released = re.findall(r"^## \[(\d[^\]]*)\]", text, flags=re.MULTILINE)
    assert {f"v{v}" for v in released} <= _tags()
    # Entries are short and user-facing; the details are in the docs.
    entries = re.findall(r"^- (.*(?:\n  .*)*)", text, flags=re.MULTILINE)
    lengths = sorted(len(" ".join(e.split())) for e in entries)
    assert len(lengths) >= 20
    assert lengths[len(lengths) // 2] < 120
    assert lengths[-1] < 300


def _commands(cmd: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, click.Command]]:
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            assert sub is not None
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path), cmd


def test_every_option_of_every_command_is_in_the_readme() -> None:
    missing = [
        f"{name} {opt}"
        for name, cmd in _commands(cli, ("hygiene",))
        for param in cmd.params
        if isinstance(param, click.Option)
        for opt in param.opts
        if opt.startswith("--") and opt != "--help" and opt not in DOCS
    ]
    assert missing == []


def _readme_command_lines() -> Iterator[str]:
    """Each `hygiene ...` / `revoke-leaked ...` invocation in the shell blocks of the README and
    docs/."""
    for block in re.findall(r"```sh\n(.*?)```", DOCS, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"(^|\s)#.*", "", line).strip()
            for part in re.split(r"\|\||&&|\|", line):
                # Redirections and `&` are the shell's: `< token.txt`, `>> app.log`.
                words = re.sub(r"\s[0-9]?(?:<|>>?)\s*\S+|&\s*$", "", part).strip()
                if words.startswith(("hygiene ", "revoke-leaked ")) or words in ("hygiene",):
                    yield words


def _parse(args: list[str]) -> None:
    """Parse ``args`` as the CLI would, down to the leaf command (raises click errors). The
    groups take no options of their own but --help and --version."""
    cmd: click.Command = cli
    ctx = click.Context(cli, info_name="hygiene")
    while isinstance(cmd, click.Group) and args and not args[0].startswith("-"):
        name, sub, args = cmd.resolve_command(ctx, args)
        assert sub is not None
        cmd, ctx = sub, click.Context(sub, info_name=name, parent=ctx)
    cmd.parse_args(ctx, args)


def test_every_command_line_in_the_docs_parses() -> None:
    lines = list(_readme_command_lines())
    assert len(lines) >= 25  # the README's examples, not an empty extraction
    bad = []
    for line in lines:
        args = shlex.split(line)
        # `revoke-leaked` is also `hygiene revoke-leaked`; a `hygiene` line drops its name.
        args = args if args[0] == "revoke-leaked" else args[1:]
        try:
            _parse(args)
        except click.exceptions.Exit:
            pass
        except click.ClickException as exc:
            bad.append(f"{line}: {exc.format_message()}")
    assert bad == []


def test_installs_come_from_the_repository_and_pin_nothing_that_does_not_exist() -> None:
    """No package index has the package: every install names the repository. A ref is the
    default branch, a commit id the reader fills in, or a tag that exists; the first release's
    tag is named only as what a release will create."""
    texts = {
        "README.md": README,
        "action.yml": (ROOT / "action.yml").read_text(encoding="utf-8"),
        "mkdocs.yml": (ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
        **{
            str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for p in [*(ROOT / "examples").rglob("*.yml"), *(ROOT / "docs").glob("*.md")]
        },
    }
    allowed = {"main", "<commit id>"} | _tags()
    for name, text in texts.items():
        for spec in re.findall(r"pip install[^\n`]*aic-token-hygiene[^\n`]*", text):
            assert "@ git+https://github.com/your-org/aic-token-hygiene" in spec, name
        for ref in re.findall(r"aic-token-hygiene@(<commit id>|[\w.-]+)", text):
            assert ref in allowed, f"{name}: {ref}"
        for pin in re.findall(r"\brev:\s*(v\d[\w.-]*)", text):
            assert pin in allowed, f"{name}: rev: {pin}"
        assert "<org>" not in text, name
        assert "<rev>" not in text, name


def test_the_readme_worker_threshold_is_the_codes() -> None:
    megabytes = PARALLEL_THRESHOLD >> 20
    thresholds = set(re.findall(r"over (\d+) MB\)? use", DOCS))
    assert thresholds == {str(megabytes)}


def _walkthrough() -> str:
    section = README.split("## Five minutes: leak a token, find it, revoke it\n", 1)[1]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)[0]


def test_the_five_minute_walkthrough_runs_word_for_word(tmp_path: Path, guard: SecretGuard) -> None:
    with socket.socket() as s:  # a free port, for the README's 8765
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    script = _walkthrough().replace("8765", port)
    proc = subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=tmp_path,
        env=env_with_scripts({"HOME": str(tmp_path)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the stand-in is killed with the group, whatever happens
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):  # `kill %1` may have ended them all
            os.killpg(proc.pid, signal.SIGKILL)
    [token] = (tmp_path / "app.log").read_text().split()
    guard.remember(token)
    guard.remember((tmp_path / "demo-password").read_text().strip())
    guard.capture(out, err, (tmp_path / "leaks.json").read_text())
    text = out.decode()
    assert proc.returncode == 0, err.decode()
    assert "app.log:1:1: aic-pat pat_AIC_…" in text
    assert "exit status 1: a leak" in text
    first, second = re.findall(r"^(revoked|not_found)\s+tok_", text, flags=re.MULTILINE)
    assert (first, second) == ("revoked", "not_found")
    assert re.search(r"^tok_\S+\s+revoked\s", text, flags=re.MULTILINE)


def test_the_walkthrough_stops_at_once_when_the_stand_in_cannot_start(tmp_path: Path) -> None:
    """A taken port: the stand-in never writes its password file, and the wait for it ends
    when the stand-in is gone (it once waited forever)."""
    with socket.socket() as holder:  # bound, not listening: the stand-in cannot bind it
        holder.bind(("127.0.0.1", 0))
        script = _walkthrough().replace("8765", str(holder.getsockname()[1]))
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=tmp_path,
            env=env_with_scripts({"HOME": str(tmp_path)}),
            capture_output=True,
            timeout=60,
            start_new_session=True,
        )
    assert proc.returncode != 0
    assert b"cannot listen on 127.0.0.1:" in proc.stderr
    assert not (tmp_path / "leaks.json").exists()


def test_every_python_snippet_compiles_and_imports_what_exists() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS, flags=re.DOTALL)
    assert len(blocks) >= 10
    missing = []
    for block in blocks:
        tree = ast.parse(block)  # a SyntaxError names the snippet's line
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hygiene"):
                module = importlib.import_module(node.module or "")
                for alias in node.names:
                    if not hasattr(module, alias.name) and not importlib.util.find_spec(
                        f"{node.module}.{alias.name}"
                    ):
                        missing.append(f"{node.module}.{alias.name}")
    assert missing == []
