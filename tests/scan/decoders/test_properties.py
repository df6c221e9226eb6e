"""Properties over the decoders: a random credential in a random real format, wrapped in
random containers (compressions, archives, nested), is found with its exact fingerprint; words,
identifiers, placeholders and truncated examples stay quiet inside the same containers."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import fingerprint, is_reportable_credential
from hygiene.scan import ScanRequest, run_scan
from hygiene.scan.limits import DecodeLimits
from tests.scan.decoders.containers import (
    b64,
    bzipped,
    gzipped,
    tarred,
    utf16,
    xzipped,
    zipped,
)
from tests.scan.decoders.formats import FORMATS, Format
from tests.strategies import holds_no_keyword, pats

Wrap = Callable[[str, bytes], tuple[str, bytes]]

WRAPPERS: dict[str, Wrap] = {
    "gzip": lambda n, d: (n + ".gz", gzipped(d)),
    "gzip, no suffix": lambda n, d: ("blob", gzipped(d)),
    "bzip2": lambda n, d: (n + ".bz2", bzipped(d)),
    "xz": lambda n, d: (n + ".xz", xzipped(d)),
    "zip": lambda n, d: ("w.zip", zipped({f"in/{n}": d})),
    "zip, stored": lambda n, d: ("s.zip", zipped({n: d}, stored=True)),
    "jar": lambda n, d: ("w.jar", zipped({"META-INF/MANIFEST.MF": b"x\n", n: d})),
    "tar": lambda n, d: ("w.tar", tarred({n: d})),
    "tgz": lambda n, d: ("w.tgz", tarred({n: d}, "w:gz")),
    "tar.xz": lambda n, d: ("w.tar.xz", tarred({n: d}, "w:xz")),
}


def _text_wrappers(kind: str) -> dict[str, Wrap]:
    """Encodings that apply to text only (not to an archive's bytes)."""
    wraps: dict[str, Wrap] = {
        "utf-16le": lambda n, d: (n, utf16(d.decode())),
        "utf-16be, no bom": lambda n, d: (n, utf16(d.decode(), "be", bom=False)),
    }
    if kind == "pat":  # base64 is decoded where it carries a PAT
        wraps["k8s secret"] = lambda n, d: ("s.yaml", f"data:\n  f: {b64(d.decode())}\n".encode())
    return wraps


# Reportable ones: values that read as words are not reported, by the scanner's rule (shrinking
# drives toward `eyJ0000ABABA000.0000AABA`, which does; how rarely random values do is pinned
# in tests/test_detection_precision.py).
session_tokens = st.builds(
    lambda head, tail: f"eyJ{head}.{tail}",
    st.text(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", min_size=12, max_size=60
    ),
    st.text(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", min_size=8, max_size=30
    ),
).filter(lambda c: is_reportable_credential(c) and holds_no_keyword(c))

LIMITS = DecodeLimits(max_depth=10)


# A Basic header is a credential whatever the password (user:password, base64): not a place
# where a value can be quiet.
_QUIET_FORMATS = [f for f in FORMATS if "basic auth" not in f.name]


@st.composite
def planted(draw: st.DrawFn, quiet: st.SearchStrategy[str] | None = None) -> tuple[str, bytes, str]:
    fmt: Format = draw(st.sampled_from(FORMATS if quiet is None else _QUIET_FORMATS))
    real = pats if fmt.kind == "pat" else session_tokens
    cred = draw(real if quiet is None else quiet)
    name, data = fmt.build(cred)
    # (Base64 of an e-mail whose own base64 splits the PAT's needle at a line break would
    # carry no needle at all: e-mail is wrapped in archives here, not encoded again.)
    encodable = b"\x00" not in data and data.isascii() and not fmt.name.startswith("email")
    if encodable and draw(st.booleans()):
        wraps = _text_wrappers(fmt.kind)
        name, data = wraps[draw(st.sampled_from(sorted(wraps)))](name, data)
    for label in draw(st.lists(st.sampled_from(sorted(WRAPPERS)), max_size=3)):
        name, data = WRAPPERS[label](name, data)
    return name, data, cred


def _scan(tmp: Path, name: str, data: bytes) -> list[tuple[str, str]]:
    folder = tmp / secrets.token_hex(4)
    folder.mkdir()
    (folder / name).write_bytes(data)
    result = run_scan(ScanRequest(paths=(str(folder),), keep_secrets=True, limits=LIMITS))
    assert result.errors == []
    return [(d.finding.fingerprint, d.secret.token) for d in result.detections]


@given(case=planted())
def test_a_credential_in_any_container_is_found_exactly(
    tmp_path_factory: object, case: tuple[str, bytes, str]
) -> None:
    name, data, cred = case
    found = _scan(_tmp(tmp_path_factory), name, data)
    assert found == [(fingerprint(cred), cred)]


_WORDS = st.from_regex(r"\A[a-z]{3,9}(?:_[a-z]{3,9}){0,2}\Z") | st.from_regex(
    r"\A[A-Z]{3,9}(?:_[A-Z]{3,9}){0,2}\Z"
)
_PLACEHOLDERS = st.sampled_from(
    [
        "${AIC_TOKEN}",
        "{{ aic_token }}",
        "<your-token>",
        "your_token_here",
        "pat_AIC_xxxxxxxxxxxx",
        "pat_AIC_" + "X" * 16,
        "pat_AIC_EXAMPLE_TOKEN",
        "REDACTED",
        "changeme",
        "pat_AIC_",
    ]
)
_TRUNCATED = st.builds(
    lambda body, tail: f"pat_AIC_{body}{tail}",
    st.text("abcdef0123456789", min_size=1, max_size=7),
    st.sampled_from(["...", "…", ""]),
)
quiet_values = _WORDS | _PLACEHOLDERS | _TRUNCATED


@given(case=planted(quiet_values))
def test_words_identifiers_and_examples_stay_quiet_in_any_container(
    tmp_path_factory: object, case: tuple[str, bytes, str]
) -> None:
    name, data, _ = case
    assert _scan(_tmp(tmp_path_factory), name, data) == []


def _tmp(factory: object) -> Path:
    return factory.mktemp("p")  # type: ignore[attr-defined, no-any-return]
