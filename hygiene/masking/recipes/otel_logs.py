"""OpenTelemetry: a log record processor that masks body and attributes before export.

::

    from hygiene.masking.recipes.otel_logs import MaskingLogRecordProcessor

    provider = LoggerProvider()
    provider.add_log_record_processor(MaskingLogRecordProcessor(BatchLogRecordProcessor(exporter)))

The wrapped processor (or any processor added after this one) sees the record masked: its
body, every attribute (``exception.message`` and ``exception.stacktrace`` included, with
frame values that look like random credentials) and the event name.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk._logs import LogRecordProcessor

from hygiene.masking.recipes.frames import mask_rendered
from hygiene.masking.values import mask_value


class MaskingLogRecordProcessor(LogRecordProcessor):
    """Masks each log record in place, then hands it to ``wrapped`` (if any)."""

    def __init__(self, wrapped: LogRecordProcessor | None = None) -> None:
        self.wrapped = wrapped

    def on_emit(self, log_record: Any) -> None:
        try:
            mask_log_record(log_record.log_record)
        except Exception:  # the SDK must not raise into the caller's logging call
            log_record.log_record.body = "[hygiene.masking: this record could not be masked]"
            log_record.log_record.attributes.clear()
        if self.wrapped is not None:
            self.wrapped.on_emit(log_record)

    def shutdown(self) -> None:
        if self.wrapped is not None:
            self.wrapped.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        if self.wrapped is not None:
            return bool(self.wrapped.force_flush(timeout_millis))
        return True


def mask_log_record(record: Any) -> None:
    """Mask an OpenTelemetry ``LogRecord``'s body and attributes in place."""
    record.body = mask_value(record.body)
    attributes = record.attributes
    if not attributes:
        return
    for key, value in list(attributes.items()):
        masked = mask_value(value, key)
        if isinstance(masked, str) and key == "exception.stacktrace":
            masked = mask_rendered(masked)
        if masked is not value:
            attributes[key] = masked
