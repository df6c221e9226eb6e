"""``hygiene scan``: parse options, run the scan, write the report, return the exit status.

Exit status: 2 when the report or the baseline could not be written (an I/O error, with
findings or without: the error is one line, and neither file changed); otherwise 1 when
anything is reported (even if some files could not be read: a finding must never be hidden
behind an error status; the error is printed on its own line), otherwise 2 when a file could
not be read or a usage/git error stopped the scan, otherwise 0. Writing a baseline accepts
what it records: the status is then 0 unless something failed.

The settings file is the scanned repository's, so nothing it hides is hidden silently: the
summary line (and the json and SARIF reports) count what settings, the baseline and inline
markers suppressed. Paths its ``exclude`` names are scanned to be counted (never reported);
a repository owned by another user gives no settings (said once on stderr).

``--output`` and ``--write-baseline`` are written together: both temporary files first, then
both renames, so either both files are new or neither changed, and no temporary file stays.
On a terminal, a scan or a verification that takes more than a couple of seconds shows its
progress on standard error (counts and rates, erased before anything else is printed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import click

from hygiene.atomic import write_together
from hygiene.commands.lines import error_text
from hygiene.commands.progress import item_bar, say, scan_progress
from hygiene.errors import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    HygieneError,
    InputError,
    Interrupted,
    UsageError,
    one_line,
)
from hygiene.scan.findings import Finding, ScanResult
from hygiene.scan.limits import DecodeLimits
from hygiene.scan.matcher.engine import ALLOW_LINES, INLINE
from hygiene.scan.reports.baseline import load_baseline, render_baseline
from hygiene.scan.reports.formats import FORMATS, render
from hygiene.scan.reports.suppressed import Suppressed
from hygiene.scan.request import STDIN, ScanRequest, run_scan
from hygiene.scan.settings import Settings, discover, load_settings, sift


@dataclass(frozen=True)
class ReportOptions:
    """Where and how the findings go."""

    fmt: str = "text"
    output: str | None = None
    baseline: str | None = None
    write_baseline: str | None = None
    verify: bool = False
    only_live: bool = False


def _summary(reported: int, suppressed: Suppressed, result: ScanResult) -> str:
    noun = "finding" if reported == 1 else "findings"
    extra = f" ({suppressed.phrase()})" if suppressed.total else ""
    files = "file" if result.files == 1 else "files"
    return (
        f"hygiene scan: {reported} {noun}{extra} in {result.files} {files}, "
        f"{result.bytes} bytes, {result.seconds:.2f} s"
    )


def _verified(result: ScanResult, options: ReportOptions, env: Mapping[str, str]) -> list[Finding]:
    """The findings marked live/dead/unknown. Verification never hides a finding it could not
    judge: a service that cannot be asked (no or a bad AIC_BASE_URL) or did not answer leaves
    its PATs ``unknown`` and reported, with a warning; ``--only-live`` drops only dead ones."""
    # The HTTP client only when asked for: a scan without --verify never loads it.
    from hygiene.api.config import read_deadline, service_url
    from hygiene.api.verify import unknown_findings, verified_findings

    count = sum(1 for d in result.detections if d.finding.type == "aic-pat")
    if not count:
        return list(result.findings)
    try:
        base_url = service_url(env, missing="--verify needs AIC_BASE_URL (the service to ask)")
        allow_http = env.get("AIC_ALLOW_HTTP", "") == "1"  # as service_url() read it
        with item_bar(sys.stderr, "tokens", "unknown")("verifying", count) as progress:
            found = verified_findings(
                result,
                base_url,
                allow_http=allow_http,
                only_live=options.only_live,
                deadline=read_deadline(env),
                progress=progress,
            )
    except HygieneError as exc:
        _warn(f"--verify: {one_line(str(exc))}; every PAT reported with liveness unknown")
        return unknown_findings(result)
    unknown = sum(1 for f in found if f.live == "unknown")
    if unknown:
        _warn(f"--verify: {unknown} PAT finding(s) of unknown liveness (kept): no clear answer")
    return found


def _warn(message: str) -> None:
    print(f"hygiene: warning: {message}", file=sys.stderr)


def _write(options: ReportOptions, report: str, found: list[Finding]) -> str | None:
    """Write the report and the baseline together; the error message when that failed."""
    files = []
    if options.write_baseline:
        files.append((options.write_baseline, render_baseline(f.fingerprint for f in found)))
    if options.output:
        files.append((options.output, report))
    try:
        write_together(files)
    except InputError as exc:
        return str(exc)
    return None


@contextlib.contextmanager
def _unwound_by_sigterm() -> Iterator[None]:
    """SIGTERM unwinds the scan as SIGINT does (exit 143, not a silent death), so the git
    processes a scan of the index or of history started are killed and reaped on the way
    out, never left running."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread owns signal handlers (tests run commands inline)
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise Interrupted(signum, "interrupted (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _sifted(
    result: ScanResult, settings: Settings, roots: tuple[str, ...]
) -> tuple[ScanResult, Counter[str]]:
    """``result`` without what ``settings`` hide, and how many each key hid (allow-lines
    included: the matcher applied it and counted in ``result.suppressed``)."""
    kept, hidden = sift(settings, result.findings, roots)
    hidden[ALLOW_LINES] += result.suppressed[ALLOW_LINES]
    keys = {_key(f) for f in kept}
    detections = [d for d in result.detections if _key(d.finding) in keys]
    only = [f for f in result.findings_only if _key(f) in keys]
    return dataclasses.replace(result, detections=detections, findings_only=only), +hidden


def _key(f: Finding) -> tuple[str | None, str, int, int]:
    return (f.commit, f.path, f.line, f.column)


def _scan(request: ScanRequest, keep: bool) -> ScanResult:
    if STDIN in request.paths and sys.stdin is None:
        raise InputError("standard input is closed: nothing to read for PATH -")
    with _unwound_by_sigterm(), scan_progress(sys.stderr) as progress:
        return run_scan(dataclasses.replace(request, keep_secrets=keep, progress=progress))


def execute(
    request: ScanRequest,
    options: ReportOptions,
    env: Mapping[str, str] | None = None,
    settings: Settings | None = None,
) -> int:
    """Run ``request`` and report per ``options`` and the project's ``settings`` (excluded
    paths, types, allowed fingerprints, allowlisted paths and lines); return the exit status.
    The settings' excludes are not the request's: their paths are scanned, to be counted."""
    settings = settings or Settings()
    if options.only_live and not options.verify:
        raise UsageError("--only-live needs --verify")
    known = load_baseline(options.baseline) if options.baseline else frozenset()
    result, hidden = _sifted(_scan(request, options.verify), settings, request.paths)
    found = result.findings
    if options.verify:  # only what the settings keep is sent to be verified
        found = _verified(result, options, os.environ if env is None else env)
    reported = [f for f in found if f.fingerprint not in known]
    inline = result.suppressed[INLINE]
    suppressed = Suppressed(dict(hidden), len(found) - len(reported), inline)
    report = render(options.fmt, reported, result, suppressed)
    failed = _write(options, report, found)
    if not options.output:
        sys.stdout.write(report)
        sys.stdout.flush()
    for note in result.notes:
        _notice(note)
    for error in [*result.errors, *([failed] if failed else [])]:
        print(error_text(error), file=sys.stderr)
    if options.write_baseline and not failed:
        count = len({f.fingerprint for f in found})
        _notice(f"baseline written: {count} fingerprint(s) in {options.write_baseline}")
    print(_summary(len(reported), suppressed, result), file=sys.stderr)
    if failed:
        return EXIT_ERROR
    if reported and not options.write_baseline:
        return EXIT_FINDINGS
    return EXIT_ERROR if result.errors else EXIT_OK


def _notice(note: str) -> None:
    say(f"hygiene: {note}")  # above the progress line, if one is drawn


def project_settings(config: str | None, no_config: bool) -> Settings:
    """``--config FILE``, else the repository root's settings file if the caller owns the
    repository; none with ``--no-config``."""
    if config and no_config:
        raise UsageError("--config and --no-config cannot be combined")
    if no_config:
        return Settings()
    if config:
        return load_settings(Path(config))
    found = discover(Path.cwd())
    if found.refused is not None:
        # The folder's name is the repository's: one line, masked, so it forges nothing.
        _notice(
            one_line(
                f"{found.refused}: not used: the repository belongs to another user "
                f"(uid {found.owner}); name the file with --config to use it"
            )
        )
    return load_settings(found.file) if found.file else Settings()


class ScanCommand(click.Command):
    """``hygiene scan``, where ``--`` ends the options: every argument after it is a path, and
    a ``-`` there is a file named ``-`` (pre-commit passes file names after ``--``; standard
    input is ``-`` before it only)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, literal_paths(args, self._valued_options()))

    def _valued_options(self) -> frozenset[str]:
        return frozenset(
            name
            for param in self.params
            if isinstance(param, click.Option) and not param.is_flag
            for name in param.opts
        )


def literal_paths(args: list[str], valued: frozenset[str]) -> list[str]:
    """``args`` with a ``-`` after the ``--`` that ends the options written ``./-`` (the
    file); a ``--`` that is the value of an option in ``valued`` ends nothing."""
    i = 0
    while i < len(args):
        if args[i] == "--":
            rest = [os.path.join(os.curdir, a) if a == STDIN else a for a in args[i + 1 :]]
            return [*args[: i + 1], *rest]
        i += 2 if args[i] in valued else 1
    return args


@click.command(cls=ScanCommand)
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--staged", is_flag=True, help="Scan the staged content (the git index).")
@click.option("--all-files", is_flag=True, help="Scan every file `git ls-files` lists.")
@click.option(
    "--history", is_flag=True, help="Scan every blob, message and tag any ref ever reached."
)
@click.option(
    "--since",
    metavar="REV",
    multiple=True,
    help="With --history: leave out what REV reaches (repeatable; A..B is --ref B --since A).",
)
@click.option(
    "--ref",
    "refs",
    metavar="REV",
    multiple=True,
    help="With --history: scan what REV reaches instead of every ref (repeatable).",
)
@click.option("--reflog", is_flag=True, help="With --history: scan the reflogs' entries too.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: one line a finding; json: for scripts and revoke-leaked; sarif: code scanning.",
)
@click.option("--output", metavar="FILE", help="Write the report to FILE (atomically).")
@click.option("--baseline", metavar="FILE", help="Do not report fingerprints listed in FILE.")
@click.option("--write-baseline", metavar="FILE", help="Record the findings' fingerprints.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip matching paths (repeatable).")
@click.option("--verify", is_flag=True, help="Ask AIC_BASE_URL whether each PAT found is live.")
@click.option(
    "--only-live", is_flag=True, help="With --verify: leave out PATs the service says are dead."
)
@click.option(
    "--config",
    metavar="FILE",
    help="Settings file to use (default: .hygiene.toml or pyproject.toml's [tool.hygiene] "
    "at the repository root).",
)
@click.option("--no-config", is_flag=True, help="Ignore any settings file.")
def command(
    paths: tuple[str, ...],
    staged: bool,
    all_files: bool,
    history: bool,
    since: tuple[str, ...],
    refs: tuple[str, ...],
    reflog: bool,
    fmt: str,
    output: str | None,
    baseline: str | None,
    write_baseline: str | None,
    exclude: tuple[str, ...],
    verify: bool,
    only_live: bool,
    config: str | None,
    no_config: bool,
) -> int:
    """Find leaked pat_AIC_ tokens and bearer credentials in files or git.

    PATH is a file or a folder (scanned recursively, .git/ skipped), or - for standard
    input (after --, which ends the options, every argument is a path: - is then a file
    named -); without PATH and without --staged, --all-files or --history, the current folder.
    Files are read as bytes, whatever their size or encoding: *.gz, *.bz2 and *.xz are read
    decompressed, zip-family and tar archives member by member, base64 and UTF-16 text
    decoded. Findings show masked forms and fingerprints, never a token.

    Exit status: 0 no findings, 1 findings, 2 an error (usage, an unreadable file or
    settings file; findings still exit 1).
    """
    settings = project_settings(config, no_config)
    request = ScanRequest(
        paths,
        staged,
        all_files,
        history,
        since or None,
        # Only the caller's globs skip paths: the file's are applied after the scan, counted.
        excludes=exclude,
        limits=settings.limits or DecodeLimits(),
        allow_lines=settings.allow_lines,
        on_wait=_notice,
        refs=refs,
        reflog=reflog,
    )
    options = ReportOptions(fmt, output, baseline, write_baseline, verify, only_live)
    return execute(request, options, settings=settings)
