r"""Report formats: text (one line per finding), json and SARIF 2.1.0.

Every format is built from :class:`~hygiene.scan.findings.Finding` objects, which hold masked
forms and fingerprints only, so no format can carry a secret.

File names may hold any bytes. Paths reach us as ``str`` with undecodable bytes as surrogate
escapes (``os.fsdecode``). How each format shows them:

* text: a plain name as it is; a name with a space, a control character (tab, newline: it
  could forge a finding line), a character that does not print, a backslash, a double quote
  or a byte that is not UTF-8 is written in double quotes with C escapes, as git quotes paths:
  ``\\``, ``\"``, ``\t``, ``\n``, ``\r``, ``\xNN`` for a byte below 0x20 or any byte that
  is not UTF-8, ``\uXXXX`` / ``\UXXXXXXXX`` for other characters that do not print
  (:func:`hygiene.display.quote`, the rule every part shows untrusted text by);
* json: the name itself (JSON escapes control characters exactly), except a name that is not
  valid UTF-8 or that begins with a double quote: then the quoted text form above, so a json
  path beginning with ``"`` is always a quoted form; C1 controls, bidi and other characters
  that do not print are written as ``\uXXXX`` escapes in json and SARIF alike
  (:func:`hygiene.display.json_text`);
* SARIF: ``artifactLocation.uri`` is the name's bytes percent-encoded (RFC 3986), exact for
  any bytes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import hygiene
from hygiene import display
from hygiene.detection import TYPE_NAMES
from hygiene.display import json_path
from hygiene.fingerprints import short_fingerprint
from hygiene.scan.findings import Finding, ScanResult
from hygiene.scan.reports.suppressed import Suppressed

TOOL = "aic-token-hygiene"
FORMATS = ("text", "json", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def display_path(path: str) -> str:
    """The path as the text report prints it (see the module's docstring)."""
    return display.quote(path)


def sarif_uri(path: str) -> str:
    """The path's bytes percent-encoded as a relative URI reference (``/`` separators)."""
    text = (path.replace("\\", "/") if os.sep == "\\" else path).removeprefix("./")
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no byte escape
        raw = text.encode("utf-8", "backslashreplace")
    return quote(raw, safe="/!$&'()*+,;=@~")


def _dumps(doc: dict[str, Any]) -> str:
    import json  # here: a text report (a pre-commit run) never needs it

    return display.json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def render_text(findings: Sequence[Finding]) -> str:
    """``PATH:LINE:COLUMN: TYPE MASKED FINGERPRINT12`` per finding (commit-prefixed in history)."""
    lines = []
    for f in findings:
        shown = display_path(f.path)
        where = f"{f.commit[:12]}:{shown}" if f.commit else shown
        live = f" {f.live}" if f.live else ""
        digest = short_fingerprint(f.fingerprint)
        lines.append(f"{where}:{f.line}:{f.column}: {f.type} {f.masked} {digest}{live}")
    return "".join(line + "\n" for line in lines)


def _finding_json(f: Finding) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "path": json_path(f.path),
        "line": f.line,
        "column": f.column,
        "type": f.type,
        "masked": f.masked,
        "fingerprint": f.fingerprint,
        "commit": f.commit,
    }
    if f.commit is not None or f.present_at_head is not None:
        # History: who introduced it, when, and whether HEAD still holds it.
        doc.update(_history_fields(f))
    if f.member is not None:
        # Inside an archive: `path` is ARCHIVE!MEMBER, these name the two parts.
        doc["archive"] = json_path(f.path[: len(f.path) - len(f.member) - 1])
        doc["member"] = json_path(f.member)
    if f.live is not None:
        doc["live"] = f.live
    return doc


def _history_fields(f: Finding) -> dict[str, Any]:
    return {
        "author": f.author,
        "date": f.date,
        "present_at_head": f.present_at_head,
    }


def render_json(
    findings: Sequence[Finding], result: ScanResult, suppressed: Suppressed | None = None
) -> str:
    """The SPEC's json report, with what was suppressed and by what."""
    suppressed = suppressed or Suppressed()
    doc = {
        "tool": TOOL,
        "version": hygiene.__version__,
        "findings": [_finding_json(f) for f in findings],
        "stats": {
            "files": result.files,
            "bytes": result.bytes,
            "seconds": round(result.seconds, 3),
            "skipped": result.skipped,
        },
        "suppressed": suppressed.as_json(),
        "suppressed_by": suppressed.by_setting_json(),
    }
    return _dumps(doc)


def _rule(type_id: str) -> dict[str, Any]:
    name = TYPE_NAMES[type_id]
    return {
        "id": type_id,
        "name": "".join(w.capitalize() for w in type_id.split("-")),
        "shortDescription": {"text": f"Leaked {name}"},
        "fullDescription": {"text": f"A {name} was found. Revoke it, then remove it."},
        "help": {
            "text": "Revoke the credential (hygiene revoke-leaked), then remove it from "
            "the file and, if it was committed, from history."
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["security", "secret"]},
    }


def _sarif_result(f: Finding, rule_index: int) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": sarif_uri(f.path)},
            "region": {"startLine": f.line, "startColumn": f.column},
        }
    }
    result: dict[str, Any] = {
        "ruleId": f.type,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": f"{TYPE_NAMES[f.type]} {f.masked} (fingerprint {f.fingerprint})"},
        "locations": [location],
        # The token's fingerprint: the alert survives line moves and history rewrites.
        "partialFingerprints": {"secretFingerprint/v1": f.fingerprint},
    }
    props: dict[str, Any] = {"masked": f.masked}
    if f.commit:
        props["commit"] = f.commit
    if f.commit is not None or f.present_at_head is not None:
        props.update({k: v for k, v in _history_fields(f).items() if v is not None})
    if f.live is not None:
        props["live"] = f.live
    if f.member is not None:
        props["archive"] = json_path(f.path[: len(f.path) - len(f.member) - 1])
        props["member"] = json_path(f.member)
    result["properties"] = props
    return result


def _invocation(suppressed: Suppressed) -> dict[str, Any]:
    # A note on the run (tools that show notifications show it): counts only, never a value.
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if suppressed.total:
        note = f"{suppressed.phrase()} (not reported as results)"
        invocation["toolExecutionNotifications"] = [{"level": "note", "message": {"text": note}}]
    return invocation


def render_sarif(findings: Sequence[Finding], suppressed: Suppressed | None = None) -> str:
    """SARIF 2.1.0 for GitHub code scanning: one rule per type id, fingerprints, no secret.
    What was suppressed is counted in the run's ``properties`` (and noted on its invocation);
    suppressed findings are not results, so no alert is raised or closed for them."""
    suppressed = suppressed or Suppressed()
    type_ids = list(TYPE_NAMES)
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "version": hygiene.__version__,
                        "semanticVersion": hygiene.__version__,
                        "rules": [_rule(t) for t in type_ids],
                    }
                },
                "invocations": [_invocation(suppressed)],
                "results": [_sarif_result(f, type_ids.index(f.type)) for f in findings],
                "properties": suppressed.sarif_properties(),
            }
        ],
    }
    return _dumps(doc)


def render(
    fmt: str,
    findings: Sequence[Finding],
    result: ScanResult,
    suppressed: Suppressed | None = None,
) -> str:
    """The report in format ``fmt`` (one of :data:`FORMATS`); the text format's counts of
    what was suppressed are on the command's summary line."""
    if fmt == "json":
        return render_json(findings, result, suppressed)
    if fmt == "sarif":
        return render_sarif(findings, suppressed)
    return render_text(findings)
