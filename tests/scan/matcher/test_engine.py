"""The byte engine: exact positions, chunk boundaries, binary data, placeholders."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import AIC_PAT, BEARER_TOKEN, MAX_TOKEN_LENGTH, find_secrets
from hygiene.scan.matcher.engine import WINDOW, Hit, StreamScanner, scan_bytes
from hygiene.scan.matcher.needles import NeedleFinder
from tests.helpers import assert_no_secret, new_pat, new_session_token
from tests.strategies import (
    bearer_credentials,
    bytes_after,
    bytes_before,
    pats,
    placeholder_credentials,
    placeholder_pats,
    text_after,
    text_before,
)

chunk_sizes = st.sampled_from([1, 2, 3, 5, 16, 64, 1 << 20])


def _expected_position(prefix: bytes) -> tuple[int, int]:
    last_line = prefix.rsplit(b"\n", 1)[-1]
    return prefix.count(b"\n") + 1, len(last_line.decode("utf-8", "surrogateescape")) + 1


def _tokens(hits: list[Hit]) -> list[tuple[int, int, str]]:
    return [(h.line, h.column, h.secret.token) for h in hits]


@given(before=text_before, pat=pats, after=text_after, chunk=chunk_sizes)
def test_pat_in_any_text_is_found_at_its_line_and_column(
    finder: NeedleFinder, before: str, pat: str, after: str, chunk: int
) -> None:
    prefix = before.encode()
    hits = scan_bytes(prefix + pat.encode() + after.encode(), chunk, finder=finder)
    line, column = _expected_position(prefix)
    assert (line, column, pat) in _tokens(hits)
    assert [h.secret.token for h in hits].count(pat) == 1


@given(before=bytes_before, pat=pats, after=bytes_after, chunk=chunk_sizes)
def test_pat_in_any_bytes_is_found_at_its_line_and_column(
    finder: NeedleFinder, before: bytes, pat: str, after: bytes, chunk: int
) -> None:
    hits = scan_bytes(before + pat.encode() + after, chunk, finder=finder)
    assert (*_expected_position(before), pat) in _tokens(hits)
    assert [h.secret.token for h in hits].count(pat) == 1


@given(before=text_before, cred=bearer_credentials, chunk=chunk_sizes)
def test_bearer_header_in_text_is_found(
    finder: NeedleFinder, before: str, cred: str, chunk: int
) -> None:
    prefix = (before + "\nAuthorization: Bearer ").encode()
    hits = scan_bytes(prefix + cred.encode() + b"\r\n", chunk, finder=finder)
    found = [(h.line, h.column, h.secret.type_id) for h in hits if h.secret.token == cred]
    assert found == [(*_expected_position(prefix), BEARER_TOKEN)]


@given(placeholder=placeholder_pats, chunk=chunk_sizes)
def test_placeholder_pats_never_alarm(finder: NeedleFinder, placeholder: str, chunk: int) -> None:
    assert scan_bytes(f'token = "{placeholder}"\n'.encode(), chunk, finder=finder) == []


@given(placeholder=placeholder_credentials)
def test_placeholder_credentials_never_alarm(finder: NeedleFinder, placeholder: str) -> None:
    data = f"Authorization: Bearer {placeholder}\naccess_token={placeholder}\n".encode()
    assert scan_bytes(data, finder=finder) == []


@given(pat=pats.filter(lambda p: len(p) >= len("pat_AIC_") + 16))
def test_masked_form_never_holds_the_secret_part(finder: NeedleFinder, pat: str) -> None:
    (hit,) = scan_bytes(pat.encode(), finder=finder)
    assert_no_secret([hit.secret.masked], [pat])
    # A repr names fields (`start=`), so only the whole token is checked there.
    assert pat not in repr(hit)
    assert pat.removeprefix("pat_AIC_") not in repr(hit.secret)


@pytest.mark.parametrize("chunk", [100, 4096, 4097, 5000, 8191, 1 << 20])
def test_token_in_a_long_binary_line_is_found_once_across_cuts(
    finder: NeedleFinder, chunk: int
) -> None:
    pat = new_pat()
    data = b"\x00" * 10_000 + b" " + pat.encode() + b" " + b"\xff" * 9_000
    assert _tokens(scan_bytes(data, chunk, finder=finder)) == [(1, 10_002, pat)]


@pytest.mark.parametrize("chunk", [50, 51, 100, 4096, 1 << 20])
def test_glued_pats_are_two_tokens_across_binary_cuts(finder: NeedleFinder, chunk: int) -> None:
    # A credential never holds its own rule's needle: two PATs glued in a binary row (the
    # body alphabet holds the prefix) are two tokens, each with its own fingerprint.
    first, second = new_pat(), new_pat()
    data = b"\x00" * 5_000 + (first + second).encode() + b"\x00" * 9_000
    found = _tokens(scan_bytes(data, chunk, finder=finder))
    assert found == [(1, 5_001, first), (1, 5_001 + len(first), second)]


@pytest.mark.parametrize("chunk", [7, 333, 4099, 1 << 20])
def test_columns_count_characters_not_bytes_across_cuts(finder: NeedleFinder, chunk: int) -> None:
    pat = new_pat()
    data = ("é" * 6_000 + "€ " + pat).encode()
    assert _tokens(scan_bytes(data, chunk, finder=finder)) == [(1, 6_003, pat)]


@pytest.mark.parametrize("chunk", [1, 10, 1 << 20])
def test_every_token_near_every_cut_is_found_once(finder: NeedleFinder, chunk: int) -> None:
    pats_ = [new_pat() for _ in range(40)]
    data = b"".join(b"x" * i + b"=" + p.encode() + b"\r\n" for i, p in enumerate(pats_))
    hits = scan_bytes(data, chunk, finder=finder)
    assert _tokens(hits) == [(i + 1, i + 2, p) for i, p in enumerate(pats_)]


def test_allowlisted_line_is_skipped_but_not_its_neighbours(finder: NeedleFinder) -> None:
    pat, other = new_pat(), new_pat()
    data = f"a = '{pat}'  # pragma: allowlist secret\nb = '{other}'  # hygiene: allo\n"
    assert [h.secret.token for h in scan_bytes(data.encode(), 8, finder=finder)] == [other]


def test_bearer_pat_is_reported_once_as_a_pat(finder: NeedleFinder) -> None:
    pat, session = new_pat(), new_session_token()
    data = f'Authorization: Bearer {pat}\n{{"access_token": "{session}"}}\n'.encode()
    hits = scan_bytes(data, finder=finder)
    assert [(h.line, h.secret.type_id) for h in hits] == [(1, AIC_PAT), (2, BEARER_TOKEN)]


def test_window_covers_the_longest_match() -> None:
    assert len("Authorization: Bearer ") + MAX_TOKEN_LENGTH < WINDOW
    assert MAX_TOKEN_LENGTH >= 16 << 10


KEYWORD_VARIANTS = [
    "Authorization: Bearer ",
    "AUTHORIZATION: Bearer ",
    "authorization=",
    "access_token=",
    "ACCESS_TOKEN=",
    '"accessToken": "',
    # Any case and the hyphen, as the keyword patterns (and mask()) take them.
    "AuThOrIzAtIoN: Basic ",
    "X-Access-Token: ",
    "access-token=",
    "Access_Token=",
    "ACCESSTOKEN: ",
]


@pytest.mark.parametrize("keyword", KEYWORD_VARIANTS)
@pytest.mark.parametrize("chunk", [16, 4096, 1 << 16])
def test_every_needle_passes_the_rare_byte_prefilter(
    finder: NeedleFinder, keyword: str, chunk: int
) -> None:
    # Digits only around the secret: every other needle's bytes are absent from its chunk.
    cred = new_session_token()
    filler = b"0123456789\n" * 20_000
    data = filler + f"{keyword}{cred}\n".encode() + filler
    hits = scan_bytes(data, chunk, finder=finder)
    assert [(h.line, h.secret.type_id, h.secret.token) for h in hits] == [
        (20_001, BEARER_TOKEN, cred)
    ]


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 16])
def test_line_numbers_survive_deferred_counting(finder: NeedleFinder, chunk: int) -> None:
    # Megabytes without a secret (counted late, or when too much waits), then secrets.
    quiet = b"no secret on this line at all\n" * 200_000
    pats_ = [new_pat() for _ in range(3)]
    data = quiet + f"{pats_[0]}\n".encode() + quiet + f"x {pats_[1]}\n{pats_[2]}".encode()
    assert _tokens(scan_bytes(data, chunk, finder=finder)) == [
        (200_001, 1, pats_[0]),
        (400_002, 3, pats_[1]),
        (400_003, 1, pats_[2]),
    ]


@given(before=bytes_before, pat=pats, after=bytes_after, chunk=chunk_sizes)
def test_full_count_counts_every_newline(
    finder: NeedleFinder, before: bytes, pat: str, after: bytes, chunk: int
) -> None:
    for data in (before + after, before + pat.encode() + after):
        scanner = StreamScanner(chunk, full_count=True, finder=finder)
        found = [h.secret.token for h in scanner.scan(io.BytesIO(data).read)]
        assert scanner.newlines == data.count(b"\n")
        assert scanner.bytes_read == len(data)
        assert found == [h.secret.token for h in scan_bytes(data, chunk, finder=finder)]


@pytest.mark.parametrize("keyword", KEYWORD_VARIANTS)
@pytest.mark.parametrize("chunk", [4096, 1 << 16, 1 << 20])
def test_needles_are_found_where_their_rare_bytes_are_frequent(
    finder: NeedleFinder, keyword: str, chunk: int
) -> None:
    # Every byte of every needle, thousands of times per chunk: the memchr walk gives up
    # and bytes.find takes over mid-chunk; secrets before, at and after that point count.
    noise = b"zZkKCTAIpa_tUHORIces on " * 40 + b"\n"
    creds = [new_session_token() for _ in range(3)]
    data = b"".join(
        f"{keyword}{c}\n".encode() + noise * n for n, c in zip((0, 3, 2000), creds, strict=True)
    )
    hits = scan_bytes(data, chunk, finder=finder)
    assert [(h.line, h.secret.token) for h in hits] == list(zip([1, 2, 6], creds, strict=True))


@given(before=bytes_before, pat=pats, after=bytes_after)
def test_a_whole_buffer_scans_as_its_stream_does(
    finder: NeedleFinder, before: bytes, pat: str, after: bytes
) -> None:
    data = before + pat.encode() + after + b"\nAuthorization: Bearer " + pat[8:].encode()
    scanner = StreamScanner(full_count=True, finder=finder)
    whole = scanner.scan_whole(data)
    assert _tokens(whole) == _tokens(scan_bytes(data, 7, finder=finder))
    assert (scanner.newlines, scanner.bytes_read) == (data.count(b"\n"), len(data))


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 16])
def test_regions_read_again_give_the_line_numbers_held_ones_do(
    finder: NeedleFinder, chunk: int
) -> None:
    quiet = b"no secret on this line at all\n" * 200_000
    pats_ = [new_pat() for _ in range(2)]
    data = quiet + f"{pats_[0]}\n".encode() + quiet + f"x {pats_[1]}".encode()
    asked: list[tuple[int, int]] = []

    def recount(start: int, stop: int) -> int:
        asked.append((start, stop))
        return data.count(b"\n", start, stop)

    scanner = StreamScanner(chunk, full_count=False, finder=finder)
    hits = list(scanner.scan(io.BytesIO(data).read, recount))
    assert _tokens(hits) == [(200_001, 1, pats_[0]), (400_002, 3, pats_[1])]
    # Only the quiet stretch before the first secret's chunk is read again, once; after a
    # secret every region is counted while it is at hand.
    ((start, stop),) = asked
    assert start == 0
    assert len(quiet) - chunk - WINDOW <= stop <= len(quiet)
    assert scanner.counted_all


def test_a_stream_without_secrets_is_never_read_again(finder: NeedleFinder) -> None:
    data = b"quiet line\n" * 50_000

    def recount(start: int, stop: int) -> int:
        raise AssertionError("nothing needed a line number")

    scanner = StreamScanner(4096, full_count=False, finder=finder)
    assert list(scanner.scan(io.BytesIO(data).read, recount)) == []
    assert not scanner.counted_all


@pytest.mark.parametrize("chunk", [9, 4096, 1 << 16])
def test_a_url_encoded_pat_is_found_where_its_prefix_starts(
    finder: NeedleFinder, chunk: int
) -> None:
    pat = new_pat()
    encoded = pat.replace("pat_AIC_", "pat%5FAIC%5f")
    data = f"GET /api?x=1&token={encoded}&y=2 200\n".encode()
    (hit,) = scan_bytes(data, chunk, finder=finder)
    assert (hit.line, hit.column, hit.secret.type_id) == (1, data.index(b"pat%5F") + 1, AIC_PAT)
    # The decoded token: its fingerprint is the one the inventory holds.
    assert hit.secret.token == pat
    assert (hit.secret.start, hit.secret.end) == (data.index(b"pat%5F"), data.index(b"&y"))


def _any_case(word: str) -> st.SearchStrategy[str]:
    flips = st.lists(st.booleans(), min_size=len(word), max_size=len(word))
    return flips.map(
        lambda fs: "".join(c.swapcase() if f else c for c, f in zip(word, fs, strict=True))
    )


_keywords = st.one_of(
    _any_case("Authorization"),
    st.sampled_from(["access", "Access", "ACCESS", "x-access"]).flatmap(
        lambda a: st.sampled_from(["_", "-", ""]).flatmap(lambda sep: _any_case(a + sep + "token"))
    ),
)
_separators = st.sampled_from([": ", "=", '": "', "': '", ":\t", " = "])
_schemes = st.sampled_from(["", "Bearer ", "bearer ", "Basic ", "Token "])
_keyword_lines = st.tuples(_keywords, _separators, _schemes, bearer_credentials).map("".join)
_pat_lines = st.tuples(
    st.sampled_from(["key = ", "url=https://x/?t=", "", "Authorization: Bearer "]),
    pats,
    st.booleans(),
).map(lambda t: t[0] + (t[1].replace("pat_AIC_", "pat%5FAIC%5F") if t[2] else t[1]))


@given(lines=st.lists(st.one_of(_keyword_lines, _pat_lines, text_after), max_size=8))
def test_the_scanner_finds_what_the_core_finds_in_text(
    finder: NeedleFinder, lines: list[str]
) -> None:
    # One core: every spelling mask() would mask, the scanner reports, and nothing else.
    text = "\n".join(lines)
    expected = [(s.type_id, s.token) for s in find_secrets(text)]
    hits = scan_bytes(text.encode(), 64, finder=finder)
    assert [(h.secret.type_id, h.secret.token) for h in hits] == expected
