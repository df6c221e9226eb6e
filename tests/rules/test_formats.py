"""Every export parses, every regex in it compiles in its target's engine, and run with the
target's semantics the rules find generated tokens and pass over placeholders."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
import re2  # type: ignore[import-untyped]
import yaml
from hypothesis import given

from hygiene import detection
from hygiene.rules import FORMATS, export, export_rules
from hygiene.rules.github import sample_lines
from hygiene.rules.model import NOT_EXPORTED
from tests import strategies as sts
from tests.helpers import SecretGuard, run_hygiene
from tests.rules import emulate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PARSERS = {
    "gitleaks": tomllib.loads,
    "betterleaks": tomllib.loads,
    "kingfisher": yaml.safe_load,
    "trufflehog": yaml.safe_load,
    "secretlint": json.loads,
    "github": yaml.safe_load,
    "vector": yaml.safe_load,
    "otel": yaml.safe_load,
}
CONFIG = {fmt: PARSERS[fmt](export(fmt)) for fmt in FORMATS}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_cli_prints_the_export_and_says_what_the_target_cannot_express(fmt: str) -> None:
    proc = run_hygiene(None, "rules", "export", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    assert text == export(fmt)
    assert "cannot express" in text
    assert PARSERS[fmt](text)


def test_unknown_format_is_a_usage_error() -> None:
    proc = run_hygiene(None, "rules", "export", "--format", "nope")
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr


def test_rules_are_cut_from_the_core_patterns() -> None:
    rules = export_rules()
    exported = [core for core in detection.RULES if core.text.pattern not in NOT_EXPORTED]
    assert len(exported) == len(detection.RULES) - 2  # the two name/value pair rules
    for rule, core in zip(rules, exported, strict=True):
        assert rule.lead + f"(?P<cred>{rule.body})" + rule.tail == core.text.pattern


def re2_regexes() -> list[str]:
    """Every regex of the exports whose targets run RE2 or Go's regexp."""
    out = []
    for rule in CONFIG["gitleaks"]["rules"]:
        out += [rule["regex"], *(r for a in rule["allowlists"] for r in a["regexes"])]
    for d in CONFIG["trufflehog"]["detectors"]:
        out += [*d["regex"].values(), *d["exclude_regexes_capture"]]
    out += CONFIG["otel"]["processors"]["redaction/aic_token_hygiene"]["blocked_values"]
    out += [r for r, _ in emulate.otel_statements(CONFIG["otel"])]
    out += [r for r, _ in emulate.vector_regexes(CONFIG["vector"])]
    for p in CONFIG["github"]["patterns"]:
        out += [p["secret_format"], p["before_secret"], p["after_secret"]]
        out += p["additional_secret_requirements"]["must_not_match"]
    return out


def test_every_exported_regex_compiles_under_re2() -> None:
    regexes = re2_regexes()
    assert len(regexes) > 40
    for regex in regexes:
        re2.compile(regex.replace("$$", "$"))  # raises re2.error on anything RE2 lacks


def test_github_fields_compile_under_hyperscan() -> None:
    # Hyperscan (GitHub's engine) is a dependency only where its wheels exist.
    hyperscan = pytest.importorskip("hyperscan")
    fields = []
    for p in CONFIG["github"]["patterns"]:
        fields += [p["secret_format"], p["before_secret"], p["after_secret"]]
        fields += p["additional_secret_requirements"]["must_not_match"]
    db = hyperscan.Database()
    db.compile(
        expressions=[f.encode() for f in fields],
        ids=list(range(len(fields))),
        flags=[hyperscan.HS_FLAG_ALLOWEMPTY | hyperscan.HS_FLAG_UTF8] * len(fields),
    )


def test_github_test_lines_agree_with_the_core() -> None:
    for rule, pattern in zip(export_rules(), CONFIG["github"]["patterns"], strict=True):
        for line in pattern["test_string"]["must_match"]:
            [secret] = detection.find_secrets(line)
            assert emulate.github({"patterns": [pattern]}, line) == [
                line[secret.start : secret.end]
            ]
        assert pattern["test_string"]["must_match"] == sample_lines(rule)
        for line in pattern["test_string"]["must_not_match"]:
            assert detection.find_secrets(line) == []
            assert emulate.github(CONFIG["github"], line) == []


DETECTORS = {
    "gitleaks": emulate.gitleaks,
    "trufflehog": emulate.trufflehog,
    "github": emulate.github,
}


def _report(fmt: str, text: str) -> list[str]:
    return DETECTORS[fmt](CONFIG[fmt], text)


@pytest.mark.parametrize("fmt", sorted(DETECTORS))
@given(before=sts.text_before, pat=sts.pats, after=sts.text_after)
def test_detectors_find_a_generated_pat(fmt: str, before: str, pat: str, after: str) -> None:
    text = f"{before} {pat} {after}"
    assert pat in _report(fmt, text)


@pytest.mark.parametrize("fmt", sorted(DETECTORS))
@pytest.mark.parametrize(
    "shape", ["Authorization: Bearer {}", '{{"access_token": "{}"}}', "curl -H 'authorization: {}'"]
)
@given(cred=sts.bearer_credentials)
def test_detectors_find_a_keyword_credential(fmt: str, shape: str, cred: str) -> None:
    assert _report(fmt, shape.format(cred)) == [cred]


@pytest.mark.parametrize("fmt", sorted(DETECTORS))
@given(pat=sts.placeholder_pats)
def test_detectors_pass_over_placeholder_pats(fmt: str, pat: str) -> None:
    assert _report(fmt, f"AIC_TOKEN={pat}") == []


@pytest.mark.parametrize("fmt", sorted(DETECTORS))
@given(cred=sts.placeholder_credentials)
def test_detectors_pass_over_placeholder_credentials(fmt: str, cred: str) -> None:
    assert _report(fmt, f"Authorization: Bearer {cred}") == []
    assert _report(fmt, f"access_token={cred}") == []


def test_gitleaks_honours_the_allowlist_markers(guard: SecretGuard) -> None:
    for marker in detection.ALLOW_MARKERS:
        assert _report("gitleaks", f"x = '{guard.pat()}'  # {marker}") == []


def test_gitleaks_rules_extend_the_defaults_and_carry_keywords() -> None:
    config: dict[str, Any] = CONFIG["gitleaks"]
    assert config["extend"] == {"useDefault": True}
    for rule in config["rules"]:
        assert rule["keywords"]
        assert all(k == k.lower() for k in rule["keywords"])
        assert {a["regexTarget"] for a in rule["allowlists"]} == {"secret", "line"}


REDACTORS = {
    "vector": emulate.vector_regexes(CONFIG["vector"]),
    # A log record's body goes through the body statements; attributes through the others.
    "otel": emulate.otel_statements(CONFIG["otel"], only="replace_pattern(body"),
}


@pytest.mark.parametrize("fmt", sorted(REDACTORS))
@given(pat=sts.pats, cred=sts.bearer_credentials)
def test_redaction_masks_tokens_and_keeps_the_keyword(fmt: str, pat: str, cred: str) -> None:
    shape = 'GET /x?t={} {{"authorization": "Bearer {}", "access_token": "{}"}}'
    masked = emulate.redact(REDACTORS[fmt], shape.format(pat, cred, cred))
    ellipsis = detection.ELLIPSIS
    assert masked == shape.format(detection.PAT_PREFIX + ellipsis, ellipsis, ellipsis)
