"""What went wrong in the exports on main, each pinned: a flag leaking across joined
allowlist regexes, a schema the target refuses, constants written out again, and a base
address that could rewrite the kingfisher rules or template the request."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hygiene.detection import MAX_TOKEN_LENGTH
from hygiene.rules import FORMATS, RuleTranslationError, export
from hygiene.rules.dialects import RE2_MAX_REPEAT
from hygiene.rules.kingfisher import MEMBERSHIPS_PATH
from tests.helpers import run_hygiene
from tests.rules.test_real_tools import binary

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# A flag group that is not scoped: `(?i)`, `(?is)`; `(?i:...)` is scoped and safe.
UNSCOPED_FLAG = re.compile(r"\(\?[a-zA-Z]+\)")


def _filter_regexes(program: str) -> list[str]:
    return re.findall(r"`([^`]*)`", program)


def allowlist_regexes() -> dict[str, list[str]]:
    """Every regex a target joins or runs as a filter, by target."""
    gitleaks = tomllib.loads(export("gitleaks"))
    betterleaks = tomllib.loads(export("betterleaks"))
    trufflehog = yaml.safe_load(export("trufflehog"))
    github = yaml.safe_load(export("github"))
    return {
        "gitleaks": [
            r for rule in gitleaks["rules"] for a in rule["allowlists"] for r in a["regexes"]
        ],
        "betterleaks": [
            r for rule in betterleaks["rules"] for r in _filter_regexes(rule["filter"])
        ],
        "trufflehog": [r for d in trufflehog["detectors"] for r in d["exclude_regexes_capture"]],
        "github": [
            r
            for p in github["patterns"]
            for r in p["additional_secret_requirements"]["must_not_match"]
        ],
    }


@pytest.mark.parametrize("target", ["gitleaks", "betterleaks", "trufflehog", "github"])
def test_no_filter_regex_sets_a_flag_for_the_regexes_after_it(target: str) -> None:
    regexes = allowlist_regexes()[target]
    assert len(regexes) > 10
    assert [r for r in regexes if UNSCOPED_FLAG.search(r)] == []


@pytest.mark.parametrize("target", ["gitleaks", "betterleaks", "trufflehog", "github"])
def test_joined_as_gitleaks_joins_them_the_filters_keep_their_case(target: str) -> None:
    # gitleaks 8.30 joins a rule's allowlist regexes with `|`: joined, a value of one letter
    # case and no digit is still "not a credential", and a random credential still is one.
    import re2  # type: ignore[import-untyped]

    joined = re2.compile("|".join(allowlist_regexes()[target]))
    assert joined.search("tokenvalueforthedemo")
    assert not joined.search("Zq3xV9pLm2Tb7Kw")


def test_numbers_in_the_comments_come_from_the_core() -> None:
    for fmt in ("gitleaks", "betterleaks", "trufflehog", "kingfisher"):
        text = export(fmt)
        assert f"caps a credential at {MAX_TOKEN_LENGTH} characters" in text
        assert f"stop at {RE2_MAX_REPEAT}" in text
    for fmt in FORMATS:
        comments = [line for line in export(fmt).splitlines() if line.lstrip().startswith("#")]
        numbers = {int(n) for line in comments for n in re.findall(r"(?<![-\w])\d{3,}\b", line)}
        # Beside the core's bounds, only the HTTP statuses the API document names.
        assert numbers <= {MAX_TOKEN_LENGTH, RE2_MAX_REPEAT, 200, 401, 500}, fmt


def test_betterleaks_accepts_its_export_and_refuses_the_gitleaks_schema(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours.toml", tmp_path / "gitleaks.toml"
    ours.write_text(export("betterleaks"))
    theirs.write_text(export("gitleaks"))
    exe = str(binary("betterleaks"))
    ok = subprocess.run([exe, "config", "check", "-c", str(ours)], capture_output=True, timeout=120)
    assert ok.returncode == 0, ok.stderr.decode(errors="replace")[-1000:]
    refused = subprocess.run(
        [exe, "config", "check", "-c", str(theirs)], capture_output=True, timeout=120
    )
    assert refused.returncode != 0
    assert b"unknown configuration fields" in refused.stdout + refused.stderr


HOSTILE_URLS = [
    'https://pam.example.test/"\n  - name: injected\n    pattern: "."',
    "https://pam.example.test/#\n    validation: null",
    "https://pam.example.test/'x'",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_a_hostile_base_address_stays_one_url_string(url: str) -> None:
    rules = yaml.safe_load(export("kingfisher", base_url=url))["rules"]
    assert [r["id"] for r in rules] == [
        "aic.aic-pat",
        "aic.aic-pat-urlencoded",
        "aic.aic-bearer-authorization",
        "aic.aic-access-token",
    ]
    urls = [r["validation"]["content"]["request"]["url"] for r in rules if "validation" in r]
    assert urls == [url.rstrip("/") + MEMBERSHIPS_PATH] * 2


@pytest.mark.parametrize("url", ["https://x.test/{{ TOKEN }}", "https://x.test/{% raw %}"])
def test_template_syntax_in_the_base_address_is_refused(url: str) -> None:
    with pytest.raises(RuleTranslationError):
        export("kingfisher", base_url=url)
    proc = run_hygiene(None, "rules", "export", "--format", "kingfisher", env={"AIC_BASE_URL": url})
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.count(b"\n") == 1
    assert b"Traceback" not in proc.stderr
