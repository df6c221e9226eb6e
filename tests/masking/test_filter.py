"""RedactingFilter on real handler chains: no handler writes a secret, the rest survives."""

from __future__ import annotations

import io
import logging
import logging.config
from collections.abc import Callable

import pytest

from hygiene.masking import RedactingFilter
from tests.helpers import SecretGuard
from tests.masking.conftest import JsonFormatter, stream_handler


def _filtered(logger: logging.Logger, fmt: logging.Formatter | None = None) -> io.StringIO:
    handler, sink = stream_handler(fmt)
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    return sink


class Holder:
    def __init__(self, token: str) -> None:
        self.token = token

    def __str__(self) -> str:
        return f"Holder(token={self.token})"

    def __repr__(self) -> str:
        return f"<Holder Authorization: Bearer {self.token}>"


CALLS: list[tuple[str, Callable[[logging.Logger, str], None]]] = [
    ("template", lambda lg, s: lg.info(f"created {s} for alice")),
    ("str arg", lambda lg, s: lg.info("created %s for %s", s, "alice")),
    ("split header", lambda lg, s: lg.info("Authorization: Bearer %s for alice", s[8:])),
    ("bytes arg", lambda lg, s: lg.info("body %s for alice", s.encode())),
    ("dict arg", lambda lg, s: lg.info("headers %s for alice", {"authorization": f"Bearer {s}"})),
    ("list arg", lambda lg, s: lg.info("tokens %s for alice", [s, "x"])),
    ("object str", lambda lg, s: lg.info("holder %s for alice", Holder(s))),
    ("object repr", lambda lg, s: lg.info("holder %r for alice", Holder(s))),
    ("mapping args", lambda lg, s: lg.info("user %(user)s", {"user": "alice", "password": s})),
    ("msg object", lambda lg, s: lg.info(Holder(s))),
    ("percent style", lambda lg, s: lg.warning("login ok password=%s user=%s", s, "alice")),
]


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_no_secret_in_message_through_stream_and_json(
    logger: logging.Logger,
    guard: SecretGuard,
    name: str,
    call: Callable[[logging.Logger, str], None],
) -> None:
    plain_sink = _filtered(logger)
    json_sink = _filtered(logger, JsonFormatter())
    call(logger, guard.pat())
    outputs = [plain_sink.getvalue(), json_sink.getvalue()]
    guard.capture(*outputs)
    for out in outputs:
        assert "alice" in out or "user" in out or "Holder" in out
        assert out.count("\n") == 1


def test_exception_text_traceback_and_chained_cause(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    first, second = guard.pat(), guard.session_token()
    sinks = [_filtered(logger), _filtered(logger, JsonFormatter())]
    try:
        try:
            raise ValueError(f"bad token {first}")
        except ValueError as exc:
            raise RuntimeError(f"login failed, Authorization: Bearer {second}") from exc
    except RuntimeError:
        logger.exception("request to %s failed", "/api/v1/auth/login")
    for sink in sinks:
        out = sink.getvalue()
        guard.capture(out)
        assert "ValueError: bad token pat_AIC_…" in out
        assert "The above exception was the direct cause" in out
        assert "/api/v1/auth/login" in out


def test_exc_text_cached_by_an_earlier_unfiltered_handler(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    token = guard.pat()
    unfiltered, raw_sink = stream_handler()
    logger.addHandler(unfiltered)  # renders and caches exc_text before our filter runs
    sink = _filtered(logger)
    try:
        raise KeyError(token)
    except KeyError:
        logger.exception("lookup failed")
    assert token in raw_sink.getvalue()  # the unfiltered handler leaks: that is the setup
    guard.capture(sink.getvalue())
    assert "KeyError" in sink.getvalue()


def test_stack_info_and_extra_attributes(logger: logging.Logger, guard: SecretGuard) -> None:
    token, password = guard.session_token(), guard.remember("correct horse battery staple")
    caller_headers = {"Authorization": f"Bearer {token}", "Accept": "*/*"}
    sink = _filtered(logger, JsonFormatter())
    logger.info(
        "call",
        extra={"headers": caller_headers, "password": password, "user": "alice"},
        stack_info=True,
    )
    out = sink.getvalue()
    guard.capture(out)
    assert '"user": "alice"' in out
    assert '"Accept": "*/*"' in out
    assert caller_headers["Authorization"] == f"Bearer {token}"  # the caller's dict is intact


def test_clean_record_is_left_untouched() -> None:
    args = ("alice", {"role": "viewer"})
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "user %s has %s", args, None)
    msg = record.msg
    assert RedactingFilter().filter(record) is True
    assert record.msg is msg
    # The same objects, in the tuple subclass that marks the record as masked.
    assert isinstance(record.args, tuple)
    assert len(record.args) == 2
    assert all(a is b for a, b in zip(record.args, args, strict=True))


def test_a_clean_record_is_judged_once_however_many_handlers_format_it(
    logger: logging.Logger,
) -> None:
    """The second handler's filter knows the record found clean by the first at once, although
    the first handler's formatter added ``message`` and ``asctime`` to it: the record keeps
    its own arguments (the full path would have replaced them by marked copies)."""
    seen: list[object] = []
    _filtered(logger)
    handler, _ = stream_handler()
    handler.addFilter(RedactingFilter())
    handler.addFilter(lambda record: seen.append(record.args) or True)
    logger.addHandler(handler)
    args = ("alice", "10.0.0.1")
    logger.info("user %s logged in from %s", *args)
    assert len(seen) == 1
    assert type(seen[0]) is tuple
    assert all(a is b for a, b in zip(seen[0], args, strict=True))


def test_masked_record_keeps_callers_objects_and_is_idempotent(guard: SecretGuard) -> None:
    token = guard.pat()
    payload = {"token": token, "nested": [token]}
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "payload %s", (payload,), None)
    record.extra_payload = payload
    flt = RedactingFilter()
    flt.filter(record)
    first = (record.getMessage(), dict(record.__dict__))
    flt.filter(record)
    assert record.getMessage() == first[0]
    assert payload == {"token": token, "nested": [token]}
    guard.capture(record.getMessage(), repr(record.__dict__["extra_payload"]))


def test_bad_format_never_raises_and_hides_arguments(
    logger: logging.Logger, guard: SecretGuard
) -> None:
    token = guard.pat()
    sink = _filtered(logger)
    logger.info("two %s %s", token)  # a broken call: one argument short
    logger.info("%d", "not a number")
    guard.capture(sink.getvalue())
    assert "two %s %s" in sink.getvalue()


def test_a_failing_str_never_raises_into_the_caller(logger: logging.Logger) -> None:
    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("boom")

        __repr__ = __str__

    sink = _filtered(logger)
    logger.info("value %s", Broken())
    logger.info("extra", extra={"thing": Broken()})
    assert sink.getvalue().count("\n") == 2


def test_two_handlers_and_child_loggers(request: pytest.FixtureRequest, guard: SecretGuard) -> None:
    # A registered logger tree (children find their parent by name), made inside the test so
    # that pytest's log capture, attached before the test runs, does not see it.
    parent = logging.getLogger(f"hygiene-tree.{request.node.name}")
    parent.setLevel(logging.DEBUG)
    parent.propagate = False
    token = guard.session_token()
    sinks = [_filtered(parent), _filtered(parent, JsonFormatter())]
    child = logging.getLogger(parent.name + ".client.http")
    try:
        child.info("Authorization: bearer   %s sent to %s", token, "pam.example.com")
    finally:
        parent.handlers.clear()
    for sink in sinks:
        out = sink.getvalue()
        guard.capture(out)
        assert "pam.example.com" in out
        assert "bearer   …" in out


@pytest.mark.parametrize("message", ["clean", "holding a token"])
def test_a_second_handler_masks_what_its_context_filter_adds(
    logger: logging.Logger, guard: SecretGuard, message: str
) -> None:
    """The first handler's filter found the record clean (or masked it); the second handler's
    context filter then adds request data, and its own RedactingFilter must look again."""
    token, pat = guard.session_token(), guard.pat()

    def context(record: logging.LogRecord) -> bool:
        record.headers = {"Authorization": f"Bearer {token}", "Accept": "*/*"}
        record.msg = f"[{pat}] {record.msg}"  # the message too
        return True

    first = _filtered(logger, JsonFormatter())
    handler, sink = stream_handler(JsonFormatter())
    handler.addFilter(context)
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    logger.info("user %s signed in with %s", "alice", guard.pat() if message != "clean" else "mfa")
    guard.capture(first.getvalue(), sink.getvalue())
    assert '"Accept": "*/*"' in sink.getvalue()
    assert "] user alice signed in with " in sink.getvalue()


def test_dict_config_with_the_filter(guard: SecretGuard) -> None:
    token = guard.pat()
    sink = io.StringIO()
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "filters": {"redact": {"()": "hygiene.masking.RedactingFilter"}},
            "formatters": {"usual": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
            "handlers": {
                "mem": {
                    "class": "logging.StreamHandler",
                    "stream": sink,
                    "formatter": "usual",
                    "filters": ["redact"],
                }
            },
            "loggers": {
                "hygiene-test-dictconfig": {
                    "handlers": ["mem"],
                    "level": "INFO",
                    "propagate": False,
                }
            },
        }
    )
    try:
        logging.getLogger("hygiene-test-dictconfig.child").info("new token %s", token)
    finally:
        logging.getLogger("hygiene-test-dictconfig").handlers.clear()
    guard.capture(sink.getvalue())
    assert "new token pat_AIC_…" in sink.getvalue()


def test_stderr_stays_clean_too(
    logger: logging.Logger, guard: SecretGuard, capsys: pytest.CaptureFixture[str]
) -> None:
    token = guard.pat()
    handler = logging.StreamHandler()  # sys.stderr, as most services log
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    logger.error("refused %s", token)
    logger.info("bad %s %s", token)
    captured = capsys.readouterr()
    guard.capture(captured.out, captured.err)
    assert "refused pat_AIC_…" in captured.err
    assert "Logging error" not in captured.err


def test_stack_info_is_masked(guard: SecretGuard) -> None:
    token = guard.session_token()
    handler, sink = stream_handler()
    handler.addFilter(RedactingFilter())
    source = f'login(access_token="{token}")'
    sinfo = f'Stack (most recent call last):\n  File "app.py", line 3\n    {source}'
    record = logging.LogRecord("app", logging.INFO, "app.py", 3, "login", None, None, sinfo=sinfo)
    handler.handle(record)
    guard.capture(sink.getvalue())
    assert 'login(access_token="…' in sink.getvalue()


def test_structlog_processor_formatter_dict_msg(guard: SecretGuard) -> None:
    token = guard.pat()
    event = {"event": "login", "password": "hunter2 hunter2", "headers": {"x-api-key": token}}
    record = logging.LogRecord("app", logging.INFO, "app.py", 3, event, (), None)
    RedactingFilter().filter(record)
    assert isinstance(record.msg, dict)
    assert record.msg["event"] == "login"
    assert record.msg["password"] == "…"
    guard.capture(repr(record.msg))
    assert event["password"] == "hunter2 hunter2"


def test_a_failure_inside_masking_withholds_the_record_instead_of_raising(
    logger: logging.Logger, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> str:
        raise MemoryError("pretend")

    monkeypatch.setattr("hygiene.masking.records.mask", broken)
    monkeypatch.setattr("hygiene.masking.records.secret_spans", broken)
    token = guard.pat()
    sink = _filtered(logger)
    logger.info("created %s", token, extra={"token": token})
    guard.capture(sink.getvalue())
    assert "could not be masked" in sink.getvalue()
