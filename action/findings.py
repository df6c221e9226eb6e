"""The scan's findings where people look: annotations and the job's step summary.

Usage: findings.py REPORT LIMIT. REPORT is the scan's json or SARIF report. Prints the number
of findings, then the first LIMIT findings as four fields each (path, line, column, message),
every field followed by a NUL byte: action/annotations.sh turns them into `::error` commands
through lib.sh's escaping, after the scan's stop-commands bracket has ended. Appends a
Markdown table of the findings to $GITHUB_STEP_SUMMARY when it is set.

Everything shown comes from the report, which holds masked forms and fingerprints only. Paths
are the scanned repository's and hostile: the message and the summary show them with control
characters C-escaped, and every summary cell is HTML-escaped character by character, so no
path can end a cell, a row or the table, open a code span or write HTML.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import unquote_to_bytes

# A step summary is capped at 1 MiB by the runner; the rest of the rows is counted instead.
SUMMARY_ROWS = 500
# Kept as they are in a summary cell: nothing Markdown or HTML gives a meaning to.
PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /-")


def _short(fingerprint: str) -> str:
    # as hygiene.fingerprints.short_fingerprint: scrypt ones keep their prefix
    kind, _, digest = fingerprint.partition(":")
    return digest[:12] if kind == "sha256" else f"{kind}:{digest[:12]}"


def _shown(text: str) -> str:
    """Control characters (a newline in a file name) as escapes: one line, as written."""
    if all(ch.isprintable() for ch in text):
        return text
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _from_json(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "path": str(f.get("path", "")),
            "line": _number(f.get("line")),
            "column": _number(f.get("column")),
            "type": str(f.get("type", "")),
            "masked": str(f.get("masked", "")),
            "fingerprint": str(f.get("fingerprint", "")),
            "commit": str(f.get("commit") or ""),
        }
        for f in report["findings"]
    ]


def _from_sarif(report: dict[str, Any]) -> list[dict[str, Any]]:
    findings = []
    for run in report["runs"]:
        for result in run.get("results", []):
            location = result["locations"][0]["physicalLocation"]
            uri = str(location["artifactLocation"]["uri"])
            region = location.get("region", {})
            props = result.get("properties", {})
            findings.append(
                {
                    "path": unquote_to_bytes(uri).decode("utf-8", "backslashreplace"),
                    "line": _number(region.get("startLine")),
                    "column": _number(region.get("startColumn")),
                    "type": str(result.get("ruleId", "")),
                    "masked": str(props.get("masked", "")),
                    "fingerprint": str(
                        result.get("partialFingerprints", {}).get("secretFingerprint/v1", "")
                    ),
                    "commit": str(props.get("commit") or ""),
                }
            )
    return findings


def _message(f: dict[str, Any]) -> str:
    where = f"{f['commit'][:12]}:" if f["commit"] else ""
    what = f"{f['type']} {f['masked']} {_short(f['fingerprint'])}"
    return f"aic-token-hygiene: {where}{_shown(f['path'])}:{f['line']}:{f['column']}: {what}"


def _cell(text: str) -> str:
    return "".join(ch if ch in PLAIN else f"&#{ord(ch)};" for ch in _shown(text))


def _summary(findings: list[dict[str, Any]]) -> str:
    lines = [f"### aic-token-hygiene: {len(findings)} finding(s)", ""]
    if findings:
        lines += [
            "| Path | Line | Type | Masked | Fingerprint |",
            "| --- | --- | --- | --- | --- |",
        ]
    for f in findings[:SUMMARY_ROWS]:
        path = f"{f['commit'][:12]}:{f['path']}" if f["commit"] else f["path"]
        cells = [path, str(f["line"]), f["type"], f["masked"], _short(f["fingerprint"])]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if len(findings) > SUMMARY_ROWS:
        lines += ["", f"and {len(findings) - SUMMARY_ROWS} more (in the report)"]
    return "\n".join(lines) + "\n\n"


def main(argv: list[str]) -> int:
    report_path, limit = argv[1], int(argv[2])
    with open(report_path, encoding="utf-8") as handle:
        report = json.load(handle)
    findings = _from_sarif(report) if "runs" in report else _from_json(report)
    out = [str(len(findings))]
    for f in findings[:limit]:
        out += [f["path"], str(f["line"]), str(f["column"]), _message(f)]
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(_summary(findings))
    sys.stdout.buffer.write(
        b"".join(field.encode("utf-8", "backslashreplace") + b"\0" for field in out)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
