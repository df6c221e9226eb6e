"""The examples of README.md and docs/ work as printed.

Every ``sh`` and ``python`` block runs here, in a temporary folder against this checkout, unless
the line before its fence marks it as an excerpt (``<!-- excerpt -->``, optionally with why:
``<!-- excerpt: needs a PostgreSQL server -->``). Shell blocks run under ``bash -e -o pipefail``
with the stand-in control plane's ``AIC_*`` settings and a fresh token inventory in the
environment; Python blocks run in a fresh interpreter as a module is imported (``runpy``, not
``__main__``: a block that starts a server does so under ``if __name__ == "__main__":``). Every
Python block, excerpt or not, defines what it uses, and every YAML and TOML block parses.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli on 3.10
    import tomli as tomllib

from hygiene.testing import ControlPlane
from tests.helpers import REPO_ROOT, SecretGuard, console_script, env_with_scripts

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
EXCERPT = re.compile(r"<!-- excerpt(?::[^>]*)? -->")
# tests/test_readme.py runs the README's walkthrough word for word, on a free port.
WALKTHROUGH = "## Five minutes: leak a token, find it, revoke it"
BLOCK_TIMEOUT = 120  # seconds; a block takes one or two on an idle machine


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    lang: str
    body: str
    excerpt: bool
    section: str  # the heading above it

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").split("\n")
    page = str(path.relative_to(REPO_ROOT))
    section, i = "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line
        fence = re.match(r"^```(\S*)", line)
        if not fence:
            i += 1
            continue
        end = lines.index("```", i + 1)  # a ValueError names an unclosed block
        excerpt = i > 0 and EXCERPT.fullmatch(lines[i - 1].strip()) is not None
        body = "\n".join(lines[i + 1 : end]) + "\n"
        yield Block(page, i + 1, fence.group(1), body, excerpt, section)
        i = end + 1


BLOCKS = [block for page in PAGES for block in _blocks(page)]
RUNNABLE = [
    b for b in BLOCKS if b.lang in ("sh", "python") and not b.excerpt and b.section != WALKTHROUGH
]


def test_the_pages_hold_the_examples() -> None:
    """Not an empty extraction: the pages' blocks, and a fair share of them run."""
    assert len(BLOCKS) >= 50
    assert len([b for b in RUNNABLE if b.lang == "sh"]) >= 8
    assert len([b for b in RUNNABLE if b.lang == "python"]) >= 12


def test_every_block_names_its_language() -> None:
    """A block without one would escape both the runs below and the excerpt rule."""
    assert [b.name for b in BLOCKS if not b.lang] == []


def test_excerpt_markers_stand_before_a_block() -> None:
    """A marker anywhere else (a blank line between, a typo in the fence) marks nothing."""
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").split("\n")
        for n, line in enumerate(lines):
            if line.startswith("<!-- excerpt"):
                assert EXCERPT.fullmatch(line.strip()), f"{page.name}:{n + 1}"
                assert lines[n + 1].startswith("```"), f"{page.name}:{n + 1}"


@pytest.fixture(scope="module")
def stand_in() -> Iterator[ControlPlane]:
    with ControlPlane() as plane:
        yield plane


def _env(tmp_path: Path, plane: ControlPlane) -> dict[str, str]:
    return env_with_scripts(
        {
            **plane.env(),
            "HOME": str(tmp_path),
            "HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3"),
            # The checkout's code, wherever the package was installed from.
            "PYTHONPATH": str(REPO_ROOT),
            "GIT_AUTHOR_NAME": "docs",
            "GIT_AUTHOR_EMAIL": "docs@example.invalid",
            "GIT_COMMITTER_NAME": "docs",
            "GIT_COMMITTER_EMAIL": "docs@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_every_unmarked_block_runs_as_printed(
    block: Block, tmp_path: Path, stand_in: ControlPlane, guard: SecretGuard
) -> None:
    guard.remember(stand_in.password)
    guard.remember("hunter2")  # the password the examples mask: never printed as it is
    if block.lang == "sh":
        argv = ["bash", "-e", "-o", "pipefail", "-c", block.body]
    else:
        script = tmp_path / "block.py"
        script.write_text(block.body, encoding="utf-8")
        argv = [sys.executable, "-c", _RUN_AS_MODULE, str(script)]
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        argv,
        cwd=work,
        env=_env(tmp_path, stand_in),
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=BLOCK_TIMEOUT,
        check=False,
    )
    # `tokens create` prints the new token once, by design; everything else must not.
    if "tokens create" not in block.body:
        guard.capture(proc.stdout, proc.stderr)
    assert proc.returncode == 0, (
        f"{block.name} exited {proc.returncode}:\n{proc.stdout.decode()}{proc.stderr.decode()}"
    )


_RUN_AS_MODULE = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='docs_block')"


def test_every_python_block_defines_what_it_uses(tmp_path: Path) -> None:
    """Excerpts too: a recipe that uses `sys`, `uvicorn` or a settings dict must import or
    define it (ruff's undefined-name and syntax checks, one run over every block)."""
    blocks = [b for b in BLOCKS if b.lang == "python"]
    for n, block in enumerate(blocks):
        (tmp_path / f"block_{n}.py").write_text(block.body, encoding="utf-8")
    proc = subprocess.run(
        [
            *(console_script("ruff"), "check", "--isolated", "--no-cache"),
            *("--select", "F821,E9", "--output-format", "concise", str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    named = re.sub(
        r"block_(\d+)\.py", lambda m: blocks[int(m.group(1))].name, proc.stdout + proc.stderr
    )
    assert proc.returncode == 0, named


def test_every_yaml_and_toml_block_parses() -> None:
    for block in BLOCKS:
        if block.lang == "yaml":
            assert yaml.safe_load(block.body) is not None, block.name
        elif block.lang == "toml":
            assert tomllib.loads(block.body), block.name


_APP_LOGS_A_TOKEN = """
import logging.config, sys
from hygiene.masking.recipes.uvicorn import log_config

if sys.argv[2] == "install":
    import hygiene.masking

    hygiene.masking.install()
logging.config.dictConfig(log_config())  # what `uvicorn --log-config FILE` does
try:
    raise RuntimeError("the service refused " + sys.argv[1])
except RuntimeError:
    logging.getLogger("app").exception("call failed")  # the app's own logger
"""


def test_the_uvicorn_page_is_right_that_log_config_alone_leaves_the_apps_logs_bare(
    guard: SecretGuard,
) -> None:
    """docs/masking.md warns that `--log-config` is not `install()`: the app's own records
    reach `logging.lastResort`, outside uvicorn's filtered handlers. Both halves, here."""
    token = guard.pat()

    def run(mode: str) -> bytes:
        proc = subprocess.run(
            [sys.executable, "-c", _APP_LOGS_A_TOKEN, token, mode],
            env={**env_with_scripts(), "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            timeout=BLOCK_TIMEOUT,
            check=True,
        )
        return proc.stderr

    assert token.encode() in run("log-config")  # the hazard the page names (not captured)
    masked = run("install")
    guard.capture(masked)
    assert b"call failed" in masked
    assert b"RuntimeError: the service refused pat_AIC_\xe2\x80\xa6" in masked


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """As .ci/run builds it: every page in the nav, every link and anchor resolving, offline."""
    proc = subprocess.run(
        [console_script("mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO_ROOT,
        env={**env_with_scripts(), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "masking" / "index.html").is_file()
