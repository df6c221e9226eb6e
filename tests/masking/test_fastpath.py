"""The compiled common case and its Python twin give the same answers; the filter works with
either (the twin's run: the filter's tests again, in a subprocess without the extension)."""

from __future__ import annotations

import importlib.machinery
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import RedactingFilter, fastpath, mask
from hygiene.masking.keys import KEY_HINTS
from hygiene.masking.text import LONG, secret_spans
from tests.helpers import REPO_ROOT, SecretGuard
from tests.masking.conftest import JsonFormatter, stream_handler

compiled = pytest.mark.skipif(not fastpath.COMPILED, reason="the extension is not built here")
PURE = (
    "hygiene.masking._fastpath" in sys.modules and sys.modules["hygiene.masking._fastpath"] is None
)


def _record(msg: object, args: object = (), **attributes: object) -> logging.LogRecord:
    record = logging.LogRecord("t", logging.INFO, "p.py", 1, msg, args, None)  # type: ignore[arg-type]
    for name, value in attributes.items():
        setattr(record, name, value)
    return record


def _python_verdict(record: logging.LogRecord, plain: bool) -> str | None:
    """What the Python twin filter makes of a record: "clean", the rendered message (a hint,
    or long), or None (not a plain record). The twin itself is asked (its gate, text.py's
    and decoded.may_hold_encoded are one), never a copy of its judgement."""
    handed: list[str | bool | None] = []

    def slow(_record: logging.LogRecord, verdict: str | bool | None) -> bool:
        handed.append(verdict)
        return True

    fastpath.forget_py(record)  # judged afresh, not remembered from an earlier call
    try:
        fastpath.redact_with(slow)(record, plain)
    finally:
        fastpath.forget_py(record)
    if not handed:
        return "clean"
    (verdict,) = handed
    assert verdict is not False, "rendering the record raised"
    return verdict


def _compiled_verdict(record: logging.LogRecord, plain: bool) -> str | None:
    verdict = fastpath.plain_message(record, plain)
    if isinstance(verdict, tuple):
        assert verdict == (record, record.args, record.msg)
        return "clean"
    return verdict


def test_the_extension_is_built_and_loads() -> None:
    built = [
        p
        for p in (REPO_ROOT / "hygiene" / "masking").iterdir()
        if p.name.startswith("_fastpath.")
        and p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    ]
    if PURE:
        assert not fastpath.COMPILED  # the twin's run: blocked, and the twins run
        return
    if os.environ.get("CI"):
        assert built, "CI installs with a compiler: the extension must be built"
    assert bool(built) == fastpath.COMPILED


def test_the_compiled_hints_are_the_gates() -> None:
    # Every hint text.py's gate looks for (its gate.py twin for long texts lists them too),
    # all from the rule table: the PAT rules' `AIC` as written stands for their prefixes.
    from hygiene.masking.gate import _HINTS

    assert {h.lower() for h in (*fastpath.HINTS, *fastpath.CASED_HINTS)} >= set(_HINTS) - {
        "pat_aic_",
        "pat%5faic%5f",
    }
    assert set(KEY_HINTS) <= set(fastpath.HINTS)
    assert all("AIC" in hint.upper() for hint in set(_HINTS) - set(fastpath.HINTS))


@pytest.fixture
def compiled_hints() -> Iterator[object]:
    """The compiled module, its hints restored afterwards to the rule table's."""
    module = sys.modules["hygiene.masking._fastpath"]
    try:
        yield module
    finally:
        module.set_hints(fastpath.HINTS, fastpath.EXACT_HINTS)  # type: ignore[attr-defined]


@compiled
def test_the_compiled_pass_looks_for_the_hints_it_was_handed(compiled_hints: object) -> None:
    # Nothing is written into the C: what set_hints() hands it is all it looks for.
    compiled_hints.set_hints(("zq", "@"), ("XY",))  # type: ignore[attr-defined]
    for message in ("user zq in", "user ZQ in", "user zQ", "zq", "user XY in", "a@b"):
        assert fastpath.plain_message(_record("%s", (message,)), False) == message
    for message in ("user key token pass in", "user xy in", "user Xy", "user z q", "AIC"):
        assert _compiled_verdict(_record("%s", (message,)), False) == "clean"


@compiled
@pytest.mark.parametrize(
    ("hints", "cased", "error"),
    [
        (["key"], (), TypeError),
        ("key", (), TypeError),
        (("key",), None, TypeError),
        ((1,), (), ValueError),
        (("",), (), ValueError),
        (("clé",), (), ValueError),
        (("x" * 32,), (), ValueError),
        (tuple(f"k{i}" for i in range(9)), (), ValueError),  # nine hints starting with `k`
        (tuple(f"{chr(97 + i % 26)}{i}" for i in range(65)), (), ValueError),
    ],
)
def test_hints_it_cannot_hold_leave_every_message_to_python(
    compiled_hints: object, hints: object, cased: object, error: type[Exception], guard: SecretGuard
) -> None:
    with pytest.raises(error):
        compiled_hints.set_hints(hints, cased)  # type: ignore[attr-defined]
    # Half a list would pass what the other half names: every message goes to Python instead.
    assert fastpath.plain_message(_record("user %s in", ("alice",)), False) == "user alice in"
    pat = guard.pat()
    handler, sink = stream_handler()
    handler.addFilter(RedactingFilter())
    logger = logging.Logger("bad-hints")
    logger.addHandler(handler)
    logger.warning("user %s in", "alice")
    logger.warning("token %s", pat)
    guard.capture(sink.getvalue())
    assert sink.getvalue().splitlines()[0].endswith("user alice in")


def test_the_compiled_pass_is_handed_the_scanners_base64_needles() -> None:
    from hygiene.masking.decoded import encoded_needles
    from hygiene.scan.decoders import b64

    expected = [n.text.decode() for n in (*b64.NEEDLES, *b64.NESTED_NEEDLES)]
    assert encoded_needles() == (*expected, "\x00")
    source = (REPO_ROOT / "hygiene" / "masking" / "_fastpath.c").read_text()
    assert not [needle for needle in expected if needle in source]  # none written in C
    for needle in encoded_needles():
        message = f"x {needle} y"
        record = logging.LogRecord("t", logging.INFO, "p.py", 1, "%s", (message,), None)
        assert fastpath.plain_message(record, False) == message  # Python judges it


def test_a_record_carrying_a_base64_pat_alone_is_masked(guard: SecretGuard) -> None:
    # No hint of a key, a scheme or `AIC`: only the decoders' needles point at it, in the
    # filter's common case (a short plain message), compiled or not.
    import base64
    import io

    pat = guard.pat()
    out = io.StringIO()
    logger = logging.getLogger("tests.fastpath.b64")
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for message in (base64.b64encode(pat.encode()).decode(), pat.encode("utf-16-le").decode()):
            logger.warning("sent %s", message)
    finally:
        logger.removeHandler(handler)
    guard.capture(out.getvalue())
    assert pat not in out.getvalue()
    assert base64.b64encode(pat.encode()).decode() not in out.getvalue()
    assert pat.encode("utf-16-le").decode() not in out.getvalue()
    assert out.getvalue().count("sent ") == 2


def _spellings(word: str) -> list[str]:
    return [word, word.upper(), "".join(c.upper() if i % 2 else c for i, c in enumerate(word))]


@compiled
@pytest.mark.parametrize(
    "hint", [s for h in fastpath.HINTS for s in _spellings(h)] + list(fastpath.CASED_HINTS)
)
@pytest.mark.parametrize("where", ["alone", "start", "middle", "end"])
def test_every_hint_in_any_case_leaves_the_judgement_to_python(hint: str, where: str) -> None:
    message = {
        "alone": hint,
        "start": f"{hint} and more",
        "middle": f"user alice {hint} from x",
        "end": f"user alice {hint}",
    }[where]
    record = _record("%s", (message,))
    assert fastpath.plain_message(record, False) == message
    assert _python_verdict(record, False) == message


def test_a_lowercase_aic_is_no_hint() -> None:
    record = _record("the aic service")
    assert _python_verdict(record, False) == "clean"
    if fastpath.COMPILED:
        assert _compiled_verdict(record, False) == "clean"


# Text made of hints, pieces of them, near misses and other characters: where the two
# judgements could part.
_PIECES = st.sampled_from(
    [
        *fastpath.HINTS,
        *fastpath.CASED_HINTS,
        "toke",
        "earer",
        "Basi",
        "AI",
        "IC",
        "pa",
        "ss",
        "cre",
        "w",
        "z",
        "k",
        "K",
        "\u212a",
        "İ",
        "é",
        "%",
        "%s",
        " ",
        "=",
        ":",
        "\x00",
        "cGF0X0FJQ1",  # base64 of `pat_AIC_` (decoded.may_hold_encoded's needles)
        "JoZEY5QlNVTm",
        "Q",
        "U",
        "Y",
    ]
).flatmap(lambda w: st.sampled_from(_spellings(w)))
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=12).map("".join)


@compiled
@given(_TEXT, st.booleans())
def test_the_compiled_judgement_is_the_pythons(message: str, long: bool) -> None:
    if long:
        message = message + "x" * LONG
    record = _record("%s", (message,))
    python, compiled_ = _python_verdict(record, False), _compiled_verdict(record, False)
    if compiled_ == "clean":
        assert python == "clean"
    elif python == "clean":  # the compiled pass leaves long and non-ASCII text to Python
        assert compiled_ == message
        assert len(message) >= LONG or not message.isascii()
    else:
        assert compiled_ == python == message


@given(_TEXT)
def test_what_the_filters_gate_passes_as_clean_mask_leaves_whole(message: str) -> None:
    # The filter's gate and mask()'s ask the same functions (hints, may_hold_encoded): a
    # message passed as clean is one mask() finds nothing in.
    if _python_verdict(_record("%s", (message,)), False) == "clean":
        assert mask(message) is message
        assert secret_spans(message) == []


def _shapes() -> list[tuple[str, logging.LogRecord]]:
    exc = ValueError("x")
    shapes = [
        ("plain", _record("user %s in", ("alice",))),
        ("no args", _record("user alice in", None)),
        ("empty tuple", _record("user alice in", ())),
        ("mapping args", _record("user %(u)s", ({"u": "alice"},))),
        ("non-str msg", _record(ValueError("user alice"))),
        ("str subclass msg", _record(type("S", (str,), {})("user alice"))),
        ("tuple subclass args", _record("user %s", type("T", (tuple,), {})(("alice",)))),
        ("exc_info", _record("user alice", None, exc_info=(ValueError, exc, None))),
        ("exc_text", _record("user alice", None, exc_text="Traceback")),
        ("stack_info", _record("user alice", None, stack_info="Stack")),
        ("extra set inline", _record("user alice", None, request_id="42")),
        ("formatted already", _record("user alice", None, message="user alice")),
    ]
    materialized = _record("user alice")
    materialized.__dict__["request_id"] = "42"  # as makeRecord puts extra=
    shapes.append(("extra in the dict", materialized))
    read = _record("user alice")
    read.__dict__  # noqa: B018 - made, nothing added
    shapes.append(("dict made, nothing added", read))
    deleted = _record("user alice")
    del deleted.funcName
    shapes.append(("an attribute deleted", deleted))
    subclass = type("Sub", (logging.LogRecord,), {})("t", 20, "p", 1, "user alice", None, None)
    shapes.append(("LogRecord subclass", subclass))
    return shapes


@compiled
@pytest.mark.parametrize("plain", [False, True])
@pytest.mark.parametrize(("name", "record"), _shapes(), ids=[n for n, _ in _shapes()])
def test_every_shape_of_record_is_judged_alike(
    name: str, record: logging.LogRecord, plain: bool
) -> None:
    assert _compiled_verdict(record, plain) == _python_verdict(record, plain)


@compiled
def test_an_extra_set_on_a_record_is_found_without_reading_its_dict() -> None:
    record = _record("user alice")
    record.request_id = "42"
    assert fastpath.plain_message(record, False) is None
    assert fastpath.plain_message(_record("user alice"), False) is not None


@pytest.mark.parametrize("fails", ["format", "str"])
def test_a_record_that_fails_to_render_raises_in_both(fails: str) -> None:
    class Bad:
        def __str__(self) -> str:
            raise RuntimeError("no")

    record = _record("%d items", ("x",)) if fails == "format" else _record("%s", (Bad(),))
    with pytest.raises((TypeError, RuntimeError)):
        fastpath.plain_message_py(record, False)
    with pytest.raises((TypeError, RuntimeError)):
        fastpath.plain_message(record, False)


def test_the_memo_forgets_and_remembers() -> None:
    record = _record("user %s", ("alice",))
    fastpath.remember(record, record.args, record.msg)
    assert fastpath.remembered(record)
    record.args = ("bob",)
    assert not fastpath.remembered(record)
    fastpath.remember(record, record.args, record.msg)
    fastpath.forget(_record("other"))
    assert fastpath.remembered(record)
    fastpath.forget(record)
    assert not fastpath.remembered(record)


@compiled
def test_the_compiled_filter_takes_its_arguments_by_keyword_too() -> None:
    from hygiene.masking.records import redact_record

    record = _record("user alice")
    assert redact_record(record=record) is True
    assert redact_record(record, plain=True) is True
    with pytest.raises(TypeError):
        redact_record(record, True, True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        redact_record(record, colour=True)  # type: ignore[call-arg]


# The filter's tests and the dense rules', through the Python twins: what runs where no
# compiler built the extensions.
TWIN_RUN = [
    "tests/masking/test_fastpath.py",
    "tests/masking/test_dense.py",
    "tests/masking/test_huge_lines.py",
    "tests/masking/test_filter.py",
    "tests/masking/test_install.py",
    "tests/masking/test_shape.py",
    "tests/masking/test_reconfigure.py",
    "tests/masking/test_properties.py",
    "tests/test_ruletable.py",
]


@pytest.mark.skipif(PURE, reason="this is the twin's run")
@pytest.mark.slow  # a nested pytest run of the masking tests
def test_the_filter_passes_its_tests_without_the_extension(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.pure_python",
            "-p",
            "no:cacheprovider",
            *TWIN_RUN,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout.splitlines()[-1]


def test_threads_logging_at_once_leak_nothing_through_the_memo(guard: SecretGuard) -> None:
    # The memo holds one record for the whole process: a record another thread masked or
    # found clean in between must never pass for this one.
    handlers = [stream_handler(JsonFormatter()) for _ in range(2)]
    logger = logging.Logger("threads")
    for handler, _ in handlers:
        handler.addFilter(RedactingFilter())
        logger.addHandler(handler)
    pats = [guard.pat() for _ in range(4)]

    def work(pat: str) -> None:
        for n in range(3000):
            if n % 3 == 0:
                logger.info("user %s in", "alice")
            elif n % 3 == 1:
                logger.info("token %s", pat)
            else:
                logger.info("call %s", "x", extra={"authorization": f"Bearer {pat}"})

    threads = [threading.Thread(target=work, args=(pat,)) for pat in pats]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outputs = [sink.getvalue() for _, sink in handlers]
    guard.capture(*outputs)
    assert all(out.count("\n") == 4 * 3000 for out in outputs)
