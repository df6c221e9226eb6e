"""What the filter's work on a short clean record costs, step by step, beside plain logging.

    python bench/filter_floor_bench.py            # 101 runs of 1,000 calls
    python bench/filter_floor_bench.py --quick    # smoke run: 11 runs

#11 asks ``RedactingFilter`` for at most 1.10x plain logging on a short clean record. This
measures, in one run and alternated with plain logging as ``mask_bench.py`` does, filters on
the same handler that each do a little more of what the real one must do:

* ``call``: a filter that returns True (what any filter costs: ``Filterer.filter`` calling it);
* ``+ attributes``: it reads ``msg``, ``args``, ``exc_info``, ``exc_text``, ``stack_info``;
* ``+ __dict__``: it counts the record's attributes (an ``extra=`` or a context filter may have
  put a secret there). On CPython 3.11 reading ``__dict__`` builds the dict before the
  formatter does, and every later attribute access of the formatter takes the slow path;
* ``+ render``: it renders the message (``msg % args``) and lowercases it;
* ``+ hints``: it looks for every hint of a secret (``hygiene.masking.hints.hints_in``, the gate
  generated from the rule table);
* ``real, Python``: ``RedactingFilter``'s pure-Python twin (what runs where the extension
  ``hygiene/masking/_fastpath.c`` was not built);
* ``real``: ``RedactingFilter`` itself (compiled where the extension was built: the first line
  printed says which).

Where ``+ hints`` is above the goal, no filter that renders the message and looks for extras
in pure Python meets it; the gap between ``+ hints`` and ``real, Python`` is what the twin
adds, and ``real`` is what the compiled common case costs.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from collections.abc import Callable

from hygiene.masking import RedactingFilter
from hygiene.masking.fastpath import COMPILED, redact_with
from hygiene.masking.hints import hints_in
from hygiene.masking.records import redact_judged

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
Check = Callable[[logging.LogRecord], bool]
_STANDARD = len(logging.LogRecord("", logging.INFO, "", 0, "", None, None).__dict__)


def _call(record: logging.LogRecord) -> bool:
    return True


def _attributes(record: logging.LogRecord) -> bool:
    return (
        type(record.args) is tuple
        and type(record.msg) is str
        and record.exc_info is None
        and record.stack_info is None
        and record.exc_text is None
    )


def _dict(record: logging.LogRecord) -> bool:
    return _attributes(record) and len(record.__dict__) == _STANDARD


def _render(record: logging.LogRecord) -> bool:
    if _dict(record):
        message = record.msg % record.args  # type: ignore[operator]
        return bool(message.lower())
    return True


def _hints(record: logging.LogRecord) -> bool:
    if _dict(record):
        message = record.msg % record.args  # type: ignore[operator]
        hinted = hints_in(message, message.lower())  # the rule table's gate
        return bool(hinted) or True  # (the work is what is measured; the record always goes on)
    return True


def _logger(name: str, check: logging.Filter | None) -> logging.Logger:
    handler = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115 - lives for the run
    handler.setFormatter(logging.Formatter(FORMAT))
    if check is not None:
        handler.addFilter(check)
    logger = logging.getLogger(name)
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


def _as_filter(check: Check) -> logging.Filter:
    class Step(logging.Filter):
        filter = staticmethod(check)  # as RedactingFilter: no bound method per call

    return Step()


def _time(logger: logging.Logger, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        logger.info("user %s logged in from %s", "alice", "10.0.0.1")
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=101)
    parser.add_argument("--calls", type=int, default=1_000)
    parser.add_argument("--quick", action="store_true", help="11 runs")
    args = parser.parse_args()
    if args.quick:
        args.runs = 11
    steps: dict[str, logging.Filter | None] = {
        "plain": None,
        "call": _as_filter(_call),
        "+ attributes": _as_filter(_attributes),
        "+ __dict__": _as_filter(_dict),
        "+ render": _as_filter(_render),
        "+ hints": _as_filter(_hints),
        "real, Python": _as_filter(redact_with(redact_judged)),
        "real": RedactingFilter(),
    }
    loggers = {name: _logger(f"floor.{i}", f) for i, (name, f) in enumerate(steps.items())}
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.runs):
        for name, logger in loggers.items():
            times[name].append(_time(logger, args.calls))
    print(f"short clean record, {args.calls} calls x {args.runs} runs (goal <= 1.10x plain)")
    print(f"  the filter is {'compiled' if COMPILED else 'pure Python (extension not built)'}")
    for name in steps:
        ratio = statistics.median(t / p for t, p in zip(times[name], times["plain"], strict=True))
        print(f"  {name:14} {statistics.median(times[name]):6.2f} us  {ratio:.3f}x")


if __name__ == "__main__":
    main()
