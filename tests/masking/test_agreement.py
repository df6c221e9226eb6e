"""The scanner and the masker agree: nothing the scanner reports survives a mask.

The scanner may stay more precise than the masker (masking errs toward hiding), never the
other way round. In process: every span the core's ``find_secrets`` reports, and every
encoded PAT the scanner's decoders report, lies inside a span ``mask()`` hides, and
``mask()`` is idempotent. End to end: every file of the recall battery through the real
``hygiene mask``, then the real ``hygiene scan``, finds nothing.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene.detection import PAT_PREFIX, find_secrets, fingerprint
from hygiene.masking import mask
from hygiene.masking.text import secret_spans
from hygiene.scan.decoders.embedded import embedded_secrets
from tests.helpers import SecretGuard, examples, run_hygiene
from tests.scan.decoders.formats import FORMATS, Format
from tests.strategies import bearer_credentials, format_texts, pats

# Archives cannot be masked in place: `hygiene mask` refuses them (exit 2, nothing written).
_ARCHIVES = frozenset(
    [
        *("zip (deflated)", "zip (stored)", "jar", "wheel", "docx", "xlsx", "apk"),
        *("tgz", "tar.gz", "tar.bz2", "tar.xz", "plain tar", "zip inside a tar.gz"),
        *("jar inside a zip", "base64 secret inside a helm chart tgz", "utf-16 file inside a zip"),
    ]
)


def _is_archive(fmt: Format) -> bool:
    return fmt.name in _ARCHIVES


def _reported(text: str) -> list[tuple[int, int]]:
    """What the scanner reports in ``text``: the rules' secrets and the decoders' (offsets in
    characters: the decoders read one byte per character here, as mask() does)."""
    found = [(s.start, s.end) for s in find_secrets(text)]
    data = text.encode("ascii", "replace")
    return found + [(s.start, s.end) for s in embedded_secrets(data)]


def _assert_agree(text: str) -> None:
    hidden = secret_spans(text)
    for start, end in _reported(text):
        assert any(a <= start and end <= b for a, b, _ in hidden), (start, end)
    once = mask(text)
    assert mask(once) == once
    assert find_secrets(once) == []
    assert embedded_secrets(once.encode("ascii", "replace")) == []


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(format_texts)
def test_every_reported_span_is_hidden_in_the_battery_formats(text: str) -> None:
    _assert_agree(text)


def _b64(text: str, urlsafe: bool) -> str:
    raw = text.encode()
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()


# How a credential is wrapped on its way into a log: the encodings the scanner decodes.
_WRAPS = st.sampled_from(
    [
        lambda c, u: c,
        lambda c, u: c + "...",  # a complete token cut off by an ellipsis, as logs print one
        lambda c, u: "data:\n  token: " + _b64(c, u) + "\n",
        lambda c, u: '{"auths": {"r": {"auth": "' + _b64("ci:" + c, u) + '"}}}',
        lambda c, u: _b64('{"auths": {"r": {"auth": "' + _b64("u:" + c, False) + '"}}}', u),
        lambda c, u: (
            "-EncodedCommand " + base64.b64encode(("$t='" + c + "'").encode("utf-16-le")).decode()
        ),
        lambda c, u: ("token=" + c + "\n").encode("utf-16-le").decode("latin-1"),
        lambda c, u: '{"key": "token", "value": "' + c + '"}',
        lambda c, u: '[{"name": "Authorization",\n  "value": "Bearer ' + c + '"}]',
    ]
)
_AROUND = st.sampled_from(["", " ", "\n", "INFO ", "x=1 ", "é ", '"', "\t"])


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_AROUND, _WRAPS, st.one_of(pats, bearer_credentials), st.booleans(), _AROUND),
        min_size=1,
        max_size=4,
    )
)
def test_every_reported_span_is_hidden_in_wrapped_credentials(
    parts: list[tuple[str, object, str, bool, str]],
) -> None:
    text = "".join(
        before + wrap(cred, urlsafe) + after for before, wrap, cred, urlsafe, after in parts
    )  # type: ignore[operator]
    _assert_agree(text)


@settings(max_examples=examples(100))
@given(st.sampled_from(["Ab3", "k3", "Xy9z", "a1B"]), st.integers(4, 12))
def test_periodic_pat_bodies_are_masked(unit: str, times: int) -> None:
    token = PAT_PREFIX + unit * times
    assert token not in mask(f"token {token} sent")


@pytest.mark.parametrize(
    "placeholder",
    ["xxxxxxxxxxxx", "${AIC_TOKEN}", "EXAMPLE_TOKEN", "your_token_here", "aaaaaaaaaa"],
)
def test_explicit_placeholders_stay(placeholder: str) -> None:
    text = f"docs show {PAT_PREFIX}{placeholder} here"
    assert mask(text) == text


def test_a_complete_pat_before_an_ellipsis_is_found_and_masked(guard: SecretGuard) -> None:
    pat = guard.pat()
    for text in (f"token {pat}...", f"token {pat}… (cut)", f'"{pat}..."'):
        (secret,) = find_secrets(text)
        assert secret.token == pat
        assert pat not in mask(text)
    # An example cut short stays what it was: no finding.
    assert find_secrets(f"token {pat[:20]}...") == []


def test_the_battery_through_mask_then_scan_finds_nothing(
    guard: SecretGuard, tmp_path: Path
) -> None:
    """Every recall-battery file through the real `hygiene mask`, the output through the real
    `hygiene scan`: nothing found. An archive is refused, with nothing written."""
    masked_dir = tmp_path / "masked"
    masked_dir.mkdir()
    changed = []
    for index, fmt in enumerate(FORMATS):
        path, _cred = fmt.plant(guard, tmp_path / "in" / str(index))
        proc = run_hygiene(guard, "mask", str(path))
        if _is_archive(fmt):
            assert (proc.returncode, proc.stdout) == (2, b""), fmt.name
            assert proc.stderr.decode().count("\n") == 1, fmt.name
            assert "cannot be masked" in proc.stderr.decode(), fmt.name
            continue
        assert proc.returncode == 0, (fmt.name, proc.stderr.decode())
        (masked_dir / f"{index}-{path.name}").write_bytes(proc.stdout)
        changed.append(proc.stdout != path.read_bytes())
    assert all(changed)  # the scanner found a secret in every original: each output differs
    scan = run_hygiene(guard, "scan", "--format", "json", str(masked_dir))
    assert scan.returncode == 0, scan.stdout.decode()
    assert json.loads(scan.stdout)["findings"] == []


def test_the_battery_is_found_before_masking(guard: SecretGuard, tmp_path: Path) -> None:
    """The end-to-end test above proves something: the same files, unmasked, are found."""
    expected = set()
    for index, fmt in enumerate(FORMATS):
        if not _is_archive(fmt):
            _path, cred = fmt.plant(guard, tmp_path / str(index))
            expected.add(fingerprint(cred))
    scan = run_hygiene(guard, "scan", "--format", "json", str(tmp_path))
    assert {f["fingerprint"] for f in json.loads(scan.stdout)["findings"]} == expected


def _scan_watch_revoke(tmp_path: Path, text: str) -> tuple[set[str], set[str], set[str]]:
    """The fingerprints scan, watch (its append scanner) and revoke-leaked --scan find."""
    import io

    from hygiene.revoke.scanned import scan_paths
    from hygiene.scan import ScanRequest, run_scan
    from hygiene.watch.appended import AppendScanner

    path = tmp_path / "app.log"
    path.write_text(text)
    scanned = run_scan(ScanRequest(paths=(str(path),), markers=False))
    watcher = AppendScanner.new()
    hits = watcher.push(text.encode()) + watcher.flush()
    revoked = scan_paths([str(path)], io.StringIO())
    return (
        {f.fingerprint for f in scanned.findings},
        {h.secret.fingerprint for h in hits},
        {leak.key for leak in revoked.pats} | {t.fingerprint for t in revoked.sessions},
    )


def test_scan_watch_and_revoke_agree_and_masking_hides_more(
    guard: SecretGuard, tmp_path: Path
) -> None:
    """A bare `Bearer <credential>` (no header name) is masked, and not reported: the scanner
    keeps to the Authorization rule's context for session tokens, and scan, watch and
    revoke-leaked, one matcher, agree on every line (a finding of one is one of all)."""
    pat, session, bare = guard.pat(), guard.session_token(), guard.session_token()
    cut = guard.pat()
    lines = [
        f"INFO gunicorn - Bearer {bare}",  # masked only
        f"DEBUG Authorization: Bearer {session}",
        f"DEBUG token={base64.b64encode(pat.encode()).decode()}",
        f"DEBUG cut {cut}...",  # a complete PAT before an ellipsis: found
    ]
    text = "\n".join(lines) + "\n"
    scan, watch, revoke = _scan_watch_revoke(tmp_path, text)
    assert scan == watch == revoke == {fingerprint(pat), fingerprint(session), fingerprint(cut)}
    masked = mask(text)
    guard.capture(masked)
    for secret in (pat, session, bare, cut):
        assert secret not in masked
