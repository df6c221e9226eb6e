"""How each logging library is set up in each mode (the README recipes), for logger_server."""

from __future__ import annotations

import logging.config
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common

Finish = Callable[[], None]


def _nothing() -> None:
    return None


class Adapter:
    """``common.LOG``'s interface (``%``-style message, ``extra=``) onto another logger."""

    def __init__(
        self, emit: Callable[[str, str, tuple[Any, ...], dict[str, Any], bool], None]
    ) -> None:
        self.emit = emit

    def info(self, msg: str, *args: Any, extra: dict[str, Any] | None = None) -> None:
        self.emit("info", msg, args, extra or {}, False)

    def error(self, msg: str, *args: Any, extra: dict[str, Any] | None = None) -> None:
        self.emit("error", msg, args, extra or {}, False)

    def exception(self, msg: str, *args: Any) -> None:
        self.emit("error", msg, args, {}, True)


def jsonlogger(mode: str, workdir: Path) -> Finish:
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(levelname)s %(name)s %(message)s",
            }
        },
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            }
        },
        "root": {"level": "INFO", "handlers": ["stdout"]},
    }
    if mode == "dictconfig":
        from hygiene.masking.recipes.dictconfig import with_redaction

        config = with_redaction(config)
    logging.config.dictConfig(config)
    if mode == "install":
        common.attach(mode)
    return _nothing


def _structlog(mode: str, renderer: Any) -> None:
    import structlog
    from structlog.tracebacks import ExceptionDictTransformer

    processors: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso"),
    ]
    if isinstance(renderer, structlog.processors.JSONRenderer):
        processors.append(
            structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=True))
        )
    if mode == "integration":
        from hygiene.masking.recipes.structlog_tracebacks import processor

        processors.append(processor)
    structlog.configure(
        processors=[*processors, renderer], logger_factory=structlog.PrintLoggerFactory(sys.stdout)
    )
    log = structlog.get_logger("app")

    def emit(level: str, msg: str, args: tuple[Any, ...], extra: dict[str, Any], exc: bool) -> None:
        getattr(log, level)(msg % args if args else msg, exc_info=exc, **extra)

    common.LOG = Adapter(emit)  # type: ignore[assignment]


def structlog_json(mode: str, workdir: Path) -> Finish:
    import structlog

    _structlog(mode, structlog.processors.JSONRenderer())
    return _nothing


def structlog_console(mode: str, workdir: Path) -> Finish:
    import structlog

    _structlog(mode, structlog.dev.ConsoleRenderer(colors=True))  # ANSI codes around values
    return _nothing


def structlog_stdlib(mode: str, workdir: Path) -> Finish:
    """stdlib records rendered by structlog's ``ProcessorFormatter`` as JSON."""
    import structlog

    processors: list[Any] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if mode != "none":
        from hygiene.masking.recipes.structlog_tracebacks import processor

        processors.append(processor)
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.processors.add_log_level,
            structlog.stdlib.ExtraAdder(),
            structlog.processors.format_exc_info,
        ],
        processors=[*processors, structlog.processors.JSONRenderer()],
    )
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(formatter)
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    if mode != "none":
        common.attach(mode)
    return _nothing


def loguru(mode: str, workdir: Path, *, serialize: bool = False) -> Finish:
    from loguru import logger

    logger.remove()
    options: dict[str, Any] = {"diagnose": True, "backtrace": True, "serialize": serialize}
    options["format"] = "{time} {level} {message} {extra}"
    if mode == "integration":
        from hygiene.masking.recipes import loguru as masking

        logger.configure(patcher=masking.patcher)  # type: ignore[arg-type]
        logger.add(masking.sink(sys.stderr), **options)
    else:
        logger.add(sys.stderr, **options)

    def emit(level: str, msg: str, args: tuple[Any, ...], extra: dict[str, Any], exc: bool) -> None:
        bound = logger.bind(**extra).opt(exception=exc)
        getattr(bound, level)(msg.replace("%s", "{}"), *args)

    common.LOG = Adapter(emit)  # type: ignore[assignment]
    return _nothing


def otel(mode: str, workdir: Path) -> Finish:
    import json

    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    export: Any = SimpleLogRecordProcessor(exporter)
    if mode == "integration":
        from hygiene.masking.recipes.otel_logs import MaskingLogRecordProcessor

        export = MaskingLogRecordProcessor(export)
    provider.add_log_record_processor(export)
    logging.basicConfig(level=logging.INFO, handlers=[LoggingHandler(logger_provider=provider)])
    if mode == "install":
        common.attach(mode)

    def dump() -> None:
        provider.force_flush()
        records = [json.loads(r.to_json()) for r in exporter.get_finished_logs()]
        (workdir / "out" / "otel.json").write_text(json.dumps(records))

    return dump


SETUPS: dict[str, Callable[[str, Path], Finish]] = {
    "jsonlogger": jsonlogger,
    "structlog-json": structlog_json,
    "structlog-console": structlog_console,
    "structlog-stdlib": structlog_stdlib,
    "loguru": loguru,
    "loguru-json": lambda mode, workdir: loguru(mode, workdir, serialize=True),
    "otel": otel,
}
