"""What to revoke, as the user gives it: scan reports, detect-secrets baselines, token ids.

Accepted report shapes (JSON):

* ``hygiene scan --format json``: ``{"findings": [{"fingerprint": "sha256:...", ...}]}``;
* a detect-secrets baseline: ``{"results": {path: [{"hashed_secret": sha1, "type": ...}]}}``.
  Entries of other secret types (AWS keys, ...) that no inventory entry matches are not this
  service's tokens and are skipped rather than reported ``unresolved``;
* a hygiene baseline: ``{"version": 1, "fingerprints": ["sha256:..."]}``;
* ``hygiene scan --format sarif`` (what the Action writes): each result's
  ``partialFingerprints["secretFingerprint/v1"]``, its ``ruleId``, first location and
  ``properties.masked``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hygiene import inventory
from hygiene.detection import AIC_PAT
from hygiene.errors import InputError
from hygiene.fingerprints import FINGERPRINT_PATTERN
from hygiene.safefile import read_input_text

DETECT_SECRETS_TYPE = "AIC Personal Access Token"
_FINGERPRINT = re.compile(FINGERPRINT_PATTERN)
_SHA1 = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class Leak:
    """A leaked secret named by a report, known by hash: ``key`` is a ``sha256:`` fingerprint or a SHA-1 hex."""

    key: str
    type: str
    where: str = ""
    masked: str = ""
    required: bool = True  # unresolved when no inventory entry matches


def _load_json(path: Path) -> Any:
    # A regular file of bounded size: a report swapped for /dev/zero, a FIFO or a huge file is
    # an exit-2 error naming it, never a hang or an exhausted memory.
    text = read_input_text(str(path), "report")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        # Nesting deeper than the parser's stack (a few thousand brackets), in no real report.
        raise InputError(f"{path}: nested too deeply to be a report") from None


def _scan_findings(path: Path, findings: list[Any]) -> list[Leak]:
    out = []
    for item in findings:
        fp = item.get("fingerprint") if isinstance(item, dict) else None
        if not isinstance(fp, str) or not _FINGERPRINT.fullmatch(fp):
            raise InputError(f"{path}: a finding without a valid sha256: or scrypt: fingerprint")
        where = f"{item.get('path', '')}:{item.get('line', '')}".strip(":")
        out.append(Leak(fp, str(item.get("type", AIC_PAT)), where, str(item.get("masked", ""))))
    return out


def _baseline_findings(path: Path, results: dict[str, Any]) -> list[Leak]:
    out = []
    for file, entries in results.items():
        if not isinstance(entries, list):
            raise InputError(f"{path}: baseline results for {file!r} are not a list")
        for number, item in enumerate(entries, 1):
            sha1 = item.get("hashed_secret") if isinstance(item, dict) else None
            kind = item.get("type") if isinstance(item, dict) else None
            if not isinstance(sha1, str) or not _SHA1.fullmatch(sha1):
                message = f"{path}: entry {number} of {file!r} has no valid hashed_secret"
                raise InputError(message)
            if not isinstance(kind, str):
                raise InputError(f"{path}: entry {number} of {file!r} has no secret type")
            where = f"{file}:{item.get('line_number', '')}".strip(":")
            out.append(Leak(sha1, kind, where, required=kind == DETECT_SECRETS_TYPE))
    return out


SARIF_FINGERPRINT = "secretFingerprint/v1"


def _sarif_where(result: dict[str, Any]) -> str:
    # Only what hygiene itself writes; anything else in a hostile report is left out.
    locations = result.get("locations")
    first = locations[0] if isinstance(locations, list) and locations else None
    physical = first.get("physicalLocation") if isinstance(first, dict) else None
    if not isinstance(physical, dict):
        return ""
    artifact, region = physical.get("artifactLocation"), physical.get("region")
    uri = artifact.get("uri") if isinstance(artifact, dict) else None
    line = region.get("startLine") if isinstance(region, dict) else None
    shown_line = str(line) if isinstance(line, int) and not isinstance(line, bool) else ""
    return f"{uri if isinstance(uri, str) else ''}:{shown_line}".strip(":")


def _sarif_findings(path: Path, runs: list[Any]) -> list[Leak]:
    out = []
    for run in runs:
        results = run.get("results") if isinstance(run, dict) else None
        if not isinstance(results, list):
            raise InputError(f"{path}: a SARIF run without a results list")
        for number, item in enumerate(results, 1):
            item = item if isinstance(item, dict) else {}
            prints = item.get("partialFingerprints")
            fp = prints.get(SARIF_FINGERPRINT) if isinstance(prints, dict) else None
            if not isinstance(fp, str) or not _FINGERPRINT.fullmatch(fp):
                message = f"{path}: SARIF result {number} has no valid {SARIF_FINGERPRINT}"
                raise InputError(message)
            rule, props = item.get("ruleId"), item.get("properties")
            masked = props.get("masked") if isinstance(props, dict) else None
            kind = rule if isinstance(rule, str) else AIC_PAT
            shown = masked if isinstance(masked, str) else ""
            out.append(Leak(fp, kind, _sarif_where(item), shown))
    return out


def load_report(path: Path) -> list[Leak]:
    """The findings of one report or baseline file; InputError for anything else."""
    data = _load_json(path)
    if isinstance(data, dict) and isinstance(data.get("runs"), list):
        return _sarif_findings(path, data["runs"])
    if isinstance(data, dict) and isinstance(data.get("findings"), list):
        return _scan_findings(path, data["findings"])
    if isinstance(data, dict) and isinstance(data.get("results"), dict):
        return _baseline_findings(path, data["results"])
    if isinstance(data, dict) and isinstance(data.get("fingerprints"), list):
        return _scan_findings(path, [{"fingerprint": fp} for fp in data["fingerprints"]])
    raise InputError(
        f"{path}: neither a `hygiene scan --format json` or `--format sarif` report nor a "
        "detect-secrets baseline"
    )


def read_ids(path: str) -> list[str]:
    """The token ids listed in the file at ``path`` (``--ids-from FILE``), read as a bounded
    regular file (:func:`~hygiene.safefile.read_input`)."""
    try:
        text = read_input_text(path, "{ids_from}")
    except InputError as exc:
        raise InputError(exc.template, options=("ids_from",)) from None
    return parse_ids(text.splitlines(), path)


def parse_ids(lines: Iterable[str], origin: str) -> list[str]:
    """Token ids, one per line; blank lines and ``#`` comments are skipped."""
    ids = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        check_token_id(text, f"{origin}:{number}")
        ids.append(text)
    return ids


def check_token_id(token_id: str, origin: str = "{token_ids}") -> str:
    """The inventory's one token-id rule (:func:`hygiene.inventory.check_token_id`), with the
    origin named as a field (``{token_ids}``: ``--token-id`` on the command line)."""
    try:
        return inventory.check_token_id(token_id, origin)
    except InputError as exc:
        raise InputError(exc.template, options=("token_ids",)) from None


__all__ = ["Leak", "check_token_id", "load_report", "parse_ids", "read_ids"]
