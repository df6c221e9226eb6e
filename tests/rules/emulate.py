"""Each target's matching semantics, run on an exported configuration with RE2.

gitleaks, trufflehog, the Collector and Vector are Go or Rust programs; what they do with a
rule (find the regex, take the secret group, drop what an allowlist or exclusion matches,
replace with groups) is emulated here with RE2, the engine family they use.
"""

from __future__ import annotations

import json
import re
from typing import Any

import re2  # type: ignore[import-untyped]


def _allowed(secret: str, regexes: list[str]) -> bool:
    return any(re2.search(r, secret) for r in regexes)


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : None if end < 0 else end]


def gitleaks(config: dict[str, Any], text: str) -> list[str]:
    """The secrets gitleaks reports in ``text`` with ``config``'s rules."""
    found = []
    for rule in config["rules"]:
        if not any(k in text.lower() for k in rule["keywords"]):
            continue
        lists = rule.get("allowlists", [])
        on_secret = [r for a in lists if a["regexTarget"] == "secret" for r in a["regexes"]]
        on_line = [r for a in lists if a["regexTarget"] == "line" for r in a["regexes"]]
        for m in re2.compile(rule["regex"]).finditer(text):
            secret = m.group(rule["secretGroup"])
            if not _allowed(secret, on_secret) and not _allowed(_line_of(text, m.start()), on_line):
                found.append(secret)
    return found


def trufflehog(config: dict[str, Any], text: str) -> list[str]:
    """The secrets trufflehog's custom detectors report in ``text``."""
    found = []
    for detector in config["detectors"]:
        if not any(k in text.lower() for k in detector["keywords"]):
            continue
        for regex in detector["regex"].values():
            for m in re2.compile(regex).finditer(text):
                secret = m.group(1)
                if not _allowed(secret, detector.get("exclude_regexes_capture", [])):
                    found.append(secret)
    return found


def github(config: dict[str, Any], text: str) -> list[str]:
    """The secrets GitHub's custom patterns report in ``text`` (before/secret/after)."""
    found = []
    for p in config["patterns"]:
        regex = f"(?:{p['before_secret']})(?P<s>{p['secret_format']})(?:{p['after_secret']})"
        excluded = p["additional_secret_requirements"]["must_not_match"]
        for m in re2.compile(regex).finditer(text):
            if not _allowed(m.group("s"), excluded):
                found.append(m.group("s"))
    return found


def go_replacement(template: str) -> str:
    """A Go/Rust ``${name}`` replacement as Python's ``\\g<name>``."""
    return re.sub(r"\$\{(\w+)\}", r"\\g<\1>", template)


VRL_CALL = re.compile(r"= (redact|replace)\(string!\(\.message\), (.*)\)$")
VRL_REGEX = re.compile(r"r'((?:\\.|[^'])*)'")
STRING = re.compile(r'"((?:\\.|[^"\\])*)"')


def vector_regexes(config: dict[str, Any]) -> list[tuple[str, str]]:
    """(regex, Go-style replacement) of every statement of the exported remap program."""
    source = config["transforms"]["aic_token_hygiene_redact"]["source"].replace("$$", "$")
    pairs = []
    for line in source.splitlines():
        call = VRL_CALL.search(line)
        if call is None:
            continue
        regex = VRL_REGEX.search(call.group(2))
        assert regex is not None
        strings = [json.loads(f'"{s}"') for s in STRING.findall(call.group(2)[regex.end() :])]
        pairs.append((regex.group(1), strings[-1]))
    return pairs


def otel_statements(config: dict[str, Any], only: str = "") -> list[tuple[str, str]]:
    """(regex, replacement) of the OTTL statements (those starting with ``only``)."""
    transform = config["processors"]["transform/aic_token_hygiene"]
    pairs = []
    for key in ("log_statements", "trace_statements"):
        for group in transform[key]:
            for statement in group["statements"]:
                if not statement.startswith(only):
                    continue
                literals = [
                    json.loads(f'"{s}"') for s in STRING.findall(statement.replace("$$", "$"))
                ]
                pairs.append((literals[-2], literals[-1]))
    return pairs


def redact(pairs: list[tuple[str, str]], text: str) -> str:
    """``text`` after every (regex, replacement), applied in order as the pipeline does."""
    for regex, replacement in pairs:
        text = re.sub(regex, go_replacement(replacement), text)
    return text
