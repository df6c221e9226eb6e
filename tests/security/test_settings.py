"""What a scanned repository's own settings may suppress, and that every report says so.

The settings file (``.hygiene.toml``, ``[tool.hygiene]`` in ``pyproject.toml``) is the scanned
repository's: an attacker who can commit can write it. Each attack here asserts the safe
outcome (a count of what was hidden in every format, no settings from a repository owned by
another user, linear-time patterns, hostile patterns refused in one line) and, through the
guard, that no secret reaches any output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from hygiene.detection import fingerprint
from hygiene.scan.settings import discover
from tests.helpers import SARIF_SCHEMA, SecretGuard, git, run_hygiene

NOBODY = 65534  # another uid than the test's (tests run as root: chown works)


def _plant(root: Path, guard: SecretGuard) -> dict[str, str]:
    """A PAT in src/app.py and in vendor/lib/x.js, a session token in logs/h.log."""
    planted = {
        "src/app.py": guard.pat(),
        "vendor/lib/x.js": guard.pat(),
        "logs/h.log": guard.session_token(),
    }
    for rel, secret in planted.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".log"):
            path.write_text(f"GET / Authorization: Bearer {secret}\n")
        else:
            path.write_text(f"k = '{secret}'  # a deploy token\n")
    return planted


def _json(proc: object) -> dict[str, object]:
    doc = json.loads(proc.stdout)  # type: ignore[attr-defined]
    assert isinstance(doc, dict)
    return doc


# Each hostile setting, what it hides of _plant's three findings, and the key it is counted
# under. The planted fingerprint is only known at run time: a callable builds the text.
HOSTILE: dict[str, tuple[Callable[[dict[str, str]], str], int, str]] = {
    "exclude everything": (lambda _: 'exclude = ["*"]', 3, "exclude"),
    "exclude a folder": (lambda _: 'exclude = ["vendor/"]', 1, "exclude"),
    "exclude by a basename": (lambda _: 'exclude = ["lib"]', 1, "exclude"),
    "types": (lambda _: 'types = ["bearer-token"]', 2, "types"),
    "allow-lines on a word": (lambda _: "allow-lines = ['token']", 2, "allow-lines"),
    "allow-lines everything": (lambda _: "allow-lines = ['']", 3, "allow-lines"),
    "allow-paths everything": (lambda _: "allow-paths = ['.']", 3, "allow-paths"),
    "[[allow]] a fingerprint": (
        lambda p: f'[[allow]]\nfingerprint = "{fingerprint(p["src/app.py"])}"\nreason = "trust me"',
        1,
        "allow",
    ),
}


def _write_settings(root: Path, where: str, text: str) -> None:
    if where == ".hygiene.toml":
        (root / ".hygiene.toml").write_text(text + "\n")
        return
    table = text.replace("[[allow]]", "[[tool.hygiene.allow]]")
    (root / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.hygiene]\n{table}\n")


@pytest.mark.parametrize("where", [".hygiene.toml", "pyproject.toml"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_each_hostile_setting_is_counted_in_json_text_and_sarif(
    git_repo: Path, guard: SecretGuard, name: str, where: str
) -> None:
    make, hidden, key = HOSTILE[name]
    _write_settings(git_repo, where, make(_plant(git_repo, guard)))
    doc = _json(run_hygiene(guard, "scan", "--format", "json", cwd=git_repo))
    assert len(doc["findings"]) == 3 - hidden  # type: ignore[arg-type]
    assert doc["suppressed"] == {"settings": hidden, "baseline": 0, "inline": 0}
    assert doc["suppressed_by"][key] == hidden  # type: ignore[index]
    assert sum(doc["suppressed_by"].values()) == hidden  # type: ignore[attr-defined]

    text = run_hygiene(guard, "scan", cwd=git_repo)
    summary = text.stderr.decode().splitlines()[-1]
    assert f"({hidden} suppressed: {hidden} by settings {key})" in summary, summary
    assert text.returncode == (0 if hidden == 3 else 1)

    sarif = json.loads(run_hygiene(guard, "scan", "--format", "sarif", cwd=git_repo).stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    run = sarif["runs"][0]
    assert run["properties"]["suppressed"]["settings"] == hidden
    assert run["properties"]["suppressed_by"][key] == hidden
    note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert f"by settings {key}" in note
    assert len(run["results"]) == 3 - hidden


def test_no_config_and_config_file_choose_the_settings(git_repo: Path, guard: SecretGuard) -> None:
    _plant(git_repo, guard)
    (git_repo / ".hygiene.toml").write_text('exclude = ["*"]\n')
    ignored = _json(run_hygiene(guard, "scan", "--no-config", "--format", "json", cwd=git_repo))
    assert (len(ignored["findings"]), ignored["suppressed"]["settings"]) == (3, 0)  # type: ignore[arg-type, index]
    team = git_repo.parent / "team.toml"
    team.write_text('types = ["aic-pat"]\n')
    chosen = _json(
        run_hygiene(guard, "scan", "--config", str(team), "--format", "json", cwd=git_repo)
    )
    assert chosen["suppressed_by"]["types"] == 1  # type: ignore[index]
    assert chosen["suppressed_by"]["exclude"] == 0  # type: ignore[index]


def test_command_line_excludes_are_the_callers_and_not_counted(
    git_repo: Path, guard: SecretGuard
) -> None:
    _plant(git_repo, guard)
    doc = _json(run_hygiene(guard, "scan", "--exclude", "vendor", "--format", "json", cwd=git_repo))
    assert len(doc["findings"]) == 2  # type: ignore[arg-type]
    assert doc["suppressed"] == {"settings": 0, "baseline": 0, "inline": 0}


def test_settings_excludes_are_counted_in_staged_all_files_and_history(
    git_repo: Path, guard: SecretGuard
) -> None:
    _plant(git_repo, guard)
    (git_repo / ".hygiene.toml").write_text('exclude = ["vendor", "logs/"]\n')
    git(git_repo, "add", "-A")
    staged = _json(run_hygiene(guard, "scan", "--staged", "--format", "json", cwd=git_repo))
    assert (len(staged["findings"]), staged["suppressed_by"]["exclude"]) == (1, 2)  # type: ignore[arg-type, index]
    git(git_repo, "commit", "-qm", "x")
    for source in ("--all-files", "--history"):
        doc = _json(run_hygiene(guard, "scan", source, "--format", "json", cwd=git_repo))
        assert (len(doc["findings"]), doc["suppressed_by"]["exclude"]) == (1, 2), source  # type: ignore[arg-type, index]


def test_an_excluded_archive_member_and_a_walked_subfolder_are_counted(
    git_repo: Path, guard: SecretGuard
) -> None:
    import zipfile

    with zipfile.ZipFile(git_repo / "bundle.zip", "w") as archive:
        archive.writestr("inner/conf.yml", f"token: {guard.pat()}\n")
    (git_repo / "src").mkdir()
    (git_repo / "src" / "gen").mkdir()
    (git_repo / "src" / "gen" / "a.py").write_text(f"k = '{guard.pat()}'\n")
    (git_repo / ".hygiene.toml").write_text('exclude = ["*.zip", "gen"]\n')
    doc = _json(run_hygiene(guard, "scan", "--format", "json", cwd=git_repo))
    assert (doc["findings"], doc["suppressed_by"]["exclude"]) == ([], 2)  # type: ignore[index]
    inside = _json(run_hygiene(guard, "scan", "src", "--format", "json", cwd=git_repo))
    assert (inside["findings"], inside["suppressed_by"]["exclude"]) == ([], 1)  # type: ignore[index]


# A repository owned by another user: its settings are not used.


def _chowned(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another uid needs root")
    os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


@pytest.mark.parametrize("owned_by_other", ["root folder", ".git", "settings file"])
def test_a_repository_owned_by_another_user_gives_no_settings(
    tmp_path: Path, guard: SecretGuard, owned_by_other: str
) -> None:
    repo = tmp_path / "shared"
    (repo / "deep" / "er").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "deep" / "er" / "a.py").write_text(f"k = '{guard.pat()}'\n")
    (repo / ".hygiene.toml").write_text('exclude = ["*"]\nallow-lines = [""]\n')
    target = {"root folder": repo, ".git": repo / ".git", "settings file": repo / ".hygiene.toml"}
    _chowned(target[owned_by_other])
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=repo / "deep" / "er")
    assert proc.returncode == 1, proc.stderr
    assert len(_json(proc)["findings"]) == 1  # type: ignore[arg-type]
    notes = [line for line in proc.stderr.decode().splitlines() if "another user" in line]
    assert len(notes) == 1, proc.stderr
    assert ".hygiene.toml" in notes[0]
    assert f"uid {NOBODY}" in notes[0]
    assert "--config" in notes[0]
    named = run_hygiene(guard, "scan", "--config", str(repo / ".hygiene.toml"), cwd=repo)
    assert named.returncode == 0, named.stderr  # named by the caller: trusted
    assert b"another user" not in named.stderr


def test_the_walk_stops_at_the_untrusted_repository(tmp_path: Path, guard: SecretGuard) -> None:
    outer = tmp_path / "outer"
    inner = outer / "vendored"
    inner.mkdir(parents=True)
    git(outer, "init", "-q")
    git(inner, "init", "-q")
    (outer / ".hygiene.toml").write_text('types = ["bearer-token"]\n')
    (inner / ".hygiene.toml").write_text('exclude = ["*"]\n')
    (inner / "a.py").write_text(f"k = '{guard.pat()}'\n")
    _chowned(inner)
    proc = run_hygiene(guard, "scan", "--format", "json", cwd=inner)
    doc = _json(proc)
    assert len(doc["findings"]) == 1  # type: ignore[arg-type]
    assert doc["suppressed"]["settings"] == 0  # type: ignore[index]


def test_discovery_compares_owners_with_the_given_uid(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".hygiene.toml").write_text("types = ['aic-pat']\n")
    mine = os.stat(repo).st_uid
    assert discover(repo, uid=mine).file == repo / ".hygiene.toml"
    other = discover(repo, uid=mine + 1)
    assert (other.file, other.refused, other.owner) == (None, repo / ".hygiene.toml", mine)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert discover(plain, uid=mine + 1).refused is None  # no settings file: nothing to say


def test_a_folder_without_git_owned_by_another_user_gives_no_settings(
    tmp_path: Path, guard: SecretGuard
) -> None:
    # A name that would forge a summary line if printed raw.
    folder = tmp_path / "drop\nhygiene scan: 0 findings in 1 file"
    folder.mkdir()
    (folder / "a.py").write_text(f"k = '{guard.pat()}'\n")
    (folder / ".hygiene.toml").write_text('types = ["bearer-token"]\n')
    _chowned(folder)
    proc = run_hygiene(guard, "scan", cwd=folder)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 2, lines  # the notice, on one line, then the summary
    assert "another user" in lines[0]
    assert lines[1].startswith("hygiene scan: 1 finding")
