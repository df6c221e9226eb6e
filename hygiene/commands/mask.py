"""``hygiene mask [FILE...]``: copy files (or standard input) to standard output, masked."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO

import click

from hygiene.errors import EXIT_OK, InputError
from hygiene.masking.layered import check_input, mask_input
from hygiene.safefile import is_descriptor_path, kind_of


@click.command("mask")
@click.argument("files", nargs=-1, metavar="[FILE]...")
def command(files: tuple[str, ...]) -> int:
    """Copy FILEs (or standard input, also as -) to standard output with secrets masked.

    Streams in constant memory and flushes every line on pipes, so
    `tail -f app.log | hygiene mask` shows lines as they come.

    Reads what the scanner reads: credentials in base64 and UTF-16 are masked, and UTF-16
    text is written back in UTF-16. A gzip, bzip2 or xz file (known by its content) is
    written decompressed, as zcat does (pipe to gzip to compress again), and stderr says
    so; nothing of it is written unless all of it decodes. An archive (zip, jar, tar ...)
    cannot be masked: exit status 2, nothing written.
    """
    return mask_files(files or ("-",), sys.stdout.buffer)


def mask_files(paths: Sequence[str], out: BinaryIO) -> int:
    """Mask each path (``-`` is standard input) onto ``out``; every path is checked first."""
    for path in paths:
        _check_readable(path)
        _check_layers(path)
    try:
        for path in paths:
            _mask_one(path, out)
    except BrokenPipeError:
        # The reader went away (`hygiene mask big.log | head`): stop quietly, as cat does.
        _silence_stdout()
    return EXIT_OK


def _check_readable(path: str) -> None:
    if path == "-":
        if sys.stdin is None:  # started with file descriptor 0 closed
            raise InputError("standard input is closed: nothing to read for -")
        return
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    _check_kind(path, st)
    if not os.access(path, os.R_OK):
        raise InputError(f"{path}: permission denied")


def _check_kind(path: str, st: os.stat_result) -> None:
    """Regular files and pipes are masked (as cat copies them); a folder, a device or a socket
    is an error (a device such as /dev/zero would never end), unless the user's shell handed it
    over as a descriptor (/dev/stdin, /dev/fd/N)."""
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path}: is a directory")
    if stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode) or is_descriptor_path(path):
        return
    raise InputError(f"{path}: {kind_of(st.st_mode)}, not masked")


def _mask_one(path: str, out: BinaryIO) -> None:
    if path == "-":
        try:
            fd = sys.stdin.fileno()
            mask_input(
                lambda n: os.read(fd, n), out.write, out.flush, name="standard input", note=_note
            )
        except (OSError, ValueError) as exc:  # a closed or unreadable descriptor 0
            if isinstance(exc, BrokenPipeError):
                raise
            raise InputError(f"standard input: {getattr(exc, 'strerror', None) or exc}") from None
        return
    try:
        source = open(path, "rb", buffering=0)  # noqa: SIM115 - closed right below
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    with source:
        # Checked again on what was opened: the path may have been swapped since.
        st = os.fstat(source.fileno())
        _check_kind(path, st)
        size = st.st_size if stat.S_ISREG(st.st_mode) else None
        read = _reading(path, source.read)
        mask_input(read, out.write, out.flush, name=path, size=size, note=_note)


def _check_layers(path: str) -> None:
    """A regular file's first bytes: an archive is refused before anything is written."""
    if path == "-" or is_descriptor_path(path) or not stat.S_ISREG(os.stat(path).st_mode):
        return  # a pipe is read once: checked as it is masked
    try:
        with open(path, "rb", buffering=0) as source:
            if stat.S_ISREG(os.fstat(source.fileno()).st_mode):
                check_input(_reading(path, source.read), path)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None


def _note(message: str) -> None:
    click.echo(f"hygiene mask: {message}", err=True)


def _reading(path: str, read: Callable[[int], bytes]) -> Callable[[int], bytes]:
    """``read``, its failures (/proc/self/mem's EIO, a disk error) one-line InputErrors; the
    writing side's errors (a closed pipe) stay what they are."""

    def reader(n: int) -> bytes:
        try:
            return read(n)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None

    return reader


def _silence_stdout() -> None:
    # Python flushes stdout at exit; a closed pipe would make that print a warning.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
