"""The real secretlint, from the npm registry, runs the exported ``.secretlintrc.json``.

The packages are installed once into pytest's cache folder (``.pytest_cache/d/``) and reused
while their pinned versions match; CI has registry access, so a failed install fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hygiene.rules import export
from tests.helpers import SecretGuard

SECRETLINT = "12.0.0"
PACKAGES = (f"secretlint@{SECRETLINT}", f"@secretlint/secretlint-rule-pattern@{SECRETLINT}")


def _installed_version(prefix: Path) -> str | None:
    manifest = prefix / "node_modules" / "@secretlint" / "secretlint-rule-pattern" / "package.json"
    if not (prefix / "node_modules" / ".bin" / "secretlint").exists() or not manifest.exists():
        return None
    return str(json.loads(manifest.read_text())["version"])


@pytest.fixture(scope="session")
def secretlint(pytestconfig: pytest.Config) -> Path:
    """Path of the secretlint executable, installed from the npm registry if needed."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is missing: apt-get install -y npm (the secretlint test needs it)")
    prefix = pytestconfig.cache.mkdir("secretlint-npm") if pytestconfig.cache else None
    assert prefix is not None, "pytest's cache provider is disabled (-p no:cacheprovider)"
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
