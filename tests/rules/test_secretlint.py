"""The real secretlint, from the npm registry, runs the exported ``.secretlintrc.json``.

The packages are installed once into pytest's cache folder (``.pytest_cache/d/``) and reused
while their pinned versions match (without the cache provider, once per session); CI has
registry access, so a failed install fails.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hygiene.detection import PAT_PREFIX, find_secrets
from hygiene.rules import export
from tests.helpers import SecretGuard

# The real secretlint, installed from the npm registry: the fast selection leaves it to CI.
pytestmark = pytest.mark.slow

SECRETLINT = "12.0.0"
PACKAGES = (f"secretlint@{SECRETLINT}", f"@secretlint/secretlint-rule-pattern@{SECRETLINT}")


def _installed_version(prefix: Path) -> str | None:
    manifest = prefix / "node_modules" / "@secretlint" / "secretlint-rule-pattern" / "package.json"
    if not (prefix / "node_modules" / ".bin" / "secretlint").exists() or not manifest.exists():
        return None
    return str(json.loads(manifest.read_text())["version"])


@pytest.fixture(scope="session")
def secretlint(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of the secretlint executable, installed from the npm registry if needed (into
    pytest's cache, or this session's temporary folder under ``-p no:cacheprovider``)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is missing: apt-get install -y npm (the secretlint test needs it)")
    cache = getattr(pytestconfig, "cache", None)
    if cache is not None:
        prefix = cache.mkdir("secretlint-npm")
    else:
        prefix = tmp_path_factory.mktemp("secretlint-npm")
    # Two test runs of one checkout share the cache's folder: one installs, the other waits for
    # it (npm writing one node_modules twice at once leaves it broken).
    with (prefix / ".install-lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed_version(prefix) != SECRETLINT:
            proc = subprocess.run(
                [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", *PACKAGES],
                capture_output=True,
                timeout=600,
                check=False,
            )
            assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return prefix / "node_modules" / ".bin" / "secretlint"


def _run(secretlint: Path, tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    (tmp_path / ".secretlintrc.json").write_text(export("secretlint"))
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run(
        [str(secretlint), "--format", "json", "--maskSecrets", *files],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()[-2000:]
    results = json.loads(proc.stdout)
    # secretlint's json holds each file's content; only the locations leave this function.
    return sorted(
        (Path(r["filePath"]).name, m["loc"]["start"]["line"])
        for r in results
        for m in r["messages"]
    )


def test_secretlint_finds_a_planted_pat_and_passes_placeholders(
    secretlint: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    files = {
        "settings.py": "\n".join(
            [
                "DEBUG = True",
                f'AIC_TOKEN = "{guard.pat()}"',
                'EXAMPLE = "pat_AIC_xxxxxxxxxxxx"',
                f'OTHER = "{guard.pat()}"  # pragma: allowlist secret',
                f'headers = {{"Authorization": "Bearer {guard.session_token()}"}}',
                'template = {"Authorization": "Bearer ${AIC_TOKEN}"}',
                f"url = 'https://x.invalid/?access_token={guard.session_token()}&a=1'",
                "",
            ]
        ),
        "clean.txt": "Authorization: Basic\naccess_token = get_token()\n",
    }
    found = _run(secretlint, tmp_path, files)
    assert found == [
        ("settings.py", 2),  # the PAT
        ("settings.py", 5),  # the bearer credential
        ("settings.py", 7),  # the access_token value
    ]


# secretlint's matching (``@textlint/regexp-string-matcher``: flags "ug" added to each
# `/source/flags`, the rule's `allows` tested on each match), run by node on many lines at once.
NODE_MATCHER = r"""
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const compile = (s) => { const m = s.match(/^\/(.+)\/([guimysd]*)$/);
  return new RegExp(m[1], [...new Set((m[2] + "ug").split(""))].join("")); };
const patterns = input.patterns.map(compile), allows = input.allows.map(compile);
const out = input.lines.map((line) => patterns.flatMap((p) => [...line.matchAll(p)]
  .map((m) => m[0]).filter((s) => !allows.some((a) => { a.lastIndex = 0; return a.test(s); }))));
process.stdout.write(JSON.stringify(out));
"""


def _node_matches(lines: list[str]) -> list[list[str]]:
    node = shutil.which("node")
    assert node is not None, "node is missing: apt-get install -y npm (it brings node)"
    options = json.loads(export("secretlint"))["rules"][0]["options"]
    patterns = [p for entry in options["patterns"] for p in entry["patterns"]]
    payload = json.dumps({"patterns": patterns, "allows": options["allows"], "lines": lines})
    proc = subprocess.run(
        [node, "-e", NODE_MATCHER], input=payload.encode(), capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return list(json.loads(proc.stdout))


def test_exported_javascript_patterns_agree_with_the_core(guard: SecretGuard) -> None:
    shapes = ("x = '{}'", "Authorization: Bearer {}", '{{"access_token": "{}"}}', "{} ok")
    lines = [f"key={guard.pat()}" for _ in range(40)]
    lines += [shape.format(guard.session_token()) for shape in shapes[1:3] for _ in range(30)]
    placeholders = ["x" * 12, "X" * 9 + "x", "Q" * 10, "your_token_here", "EXAMPLE12345678"]
    lines += [shape.format(PAT_PREFIX + p) for shape in shapes for p in placeholders]
    lines += ["Authorization: Bearer ${AIC_TOKEN}", "Authorization: Basic", "access_token=%s"]
    lines += ["access_token = get_token()", "Authorization: Bearer <token>"]
    for line, found in zip(lines, _node_matches(lines), strict=True):
        core = [s.token.removeprefix(PAT_PREFIX) for s in find_secrets(line)]
        assert found == core, "the JavaScript patterns and the core disagree on a line"
