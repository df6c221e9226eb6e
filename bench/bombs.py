"""``decoders_bench.py --bombs``: archives of a million empty members, scanned by hygiene (its
100,000-member cap at work), gitleaks and kingfisher, side by side: wall time and the process
tree's peak memory (bench/peak.py), median of N rounds, ratios to hygiene.

The inputs, built once under bench/.corpus/bombs/ (git-ignored): a zip, a plain tar and a
tar.gz, each of 1,000,000 members with distinct names, empty but for member 10 and member
500,000, which hold one PAT each (made at run time). A tar is read member by member up to
the cap: hygiene reports the early PAT only, says the rest was not scanned and exits 1. A zip
whose directory declares more members than the cap is not opened as an archive at all: its
bytes are scanned as they are (these members are stored, so both PATs are seen raw). The
findings column says what each tool reported. The archives are written by hand (zipfile and
tarfile take minutes for a million members).
"""

from __future__ import annotations

import os
import random
import statistics
import struct
import sys
import tempfile
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import history_bench as hb
import history_repos as hr
import peak
import scan_bench as sb

CORPUS = Path(__file__).resolve().parent / ".corpus" / "bombs"
MEMBERS = 1_000_000
PLANTED = (10, 500_000)
TOOLS = ("hygiene", "gitleaks", "kingfisher")


def _tar_header(name: bytes, size: int) -> bytes:
    header = bytearray(512)
    header[: len(name)] = name
    for offset, value in ((100, b"0000644\0"), (108, b"0000000\0"), (116, b"0000000\0"),
                          (136, b"00000000000\0"), (156, b"0"), (257, b"ustar\0"), (263, b"00")):  # fmt: skip
        header[offset : offset + len(value)] = value
    header[124:136] = b"%011o\0" % size
    header[148:156] = b"        "
    header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header)


def _bodies(rng: random.Random) -> dict[int, bytes]:
    return {i: f"key={sb.new_pat(rng)}\n".encode() for i in PLANTED}


def build_tar(path: Path, bodies: dict[int, bytes], gzip_it: bool) -> None:
    gz = zlib.compressobj(1, zlib.DEFLATED, 31) if gzip_it else None
    with path.open("wb") as out:
        for start in range(0, MEMBERS, 10_000):
            block = []
            for i in range(start, start + 10_000):
                body = bodies.get(i, b"")
                block.append(_tar_header(b"m%07d" % i, len(body)))
                if body:
                    block.append(body + b"\0" * (-len(body) % 512))
            data = b"".join(block)
            out.write(gz.compress(data) if gz else data)
        tail = b"\0" * 1024
        out.write(gz.compress(tail) + gz.flush() if gz else tail)


def build_zip(path: Path, bodies: dict[int, bytes]) -> None:
    """Stored members, a zip64 end record (more than 65,535 entries), written by hand."""
    central, offset = [], 0
    with path.open("wb") as out:
        for start in range(0, MEMBERS, 10_000):
            block = []
            for i in range(start, start + 10_000):
                name, body = b"m%07d" % i, bodies.get(i, b"")
                crc = zlib.crc32(body)
                local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc,
                                    len(body), len(body), len(name), 0)  # fmt: skip
                central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0,
                                           0, crc, len(body), len(body), len(name), 0, 0, 0,
                                           0, 0, offset) + name)  # fmt: skip
                block.append(local + name + body)
                offset += len(local) + len(name) + len(body)
            out.write(b"".join(block))
        directory = b"".join(central)
        out.write(directory)
        end64 = offset + len(directory)
        out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, MEMBERS, MEMBERS,
                              len(directory), offset))  # fmt: skip
        out.write(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                              0xFFFFFFFF, 0))  # fmt: skip


def inputs() -> list[Path]:
    """The three archives (built once; the same PATs stay in them)."""
    CORPUS.mkdir(parents=True, exist_ok=True)
    paths = [CORPUS / "million.zip", CORPUS / "million.tar", CORPUS / "million.tar.gz"]
    if not all(p.exists() for p in paths):
        bodies = _bodies(random.Random(2026))
        build_zip(paths[0], bodies)
        build_tar(paths[1], bodies, gzip_it=False)
        build_tar(paths[2], bodies, gzip_it=True)
    return paths


def command(tool: str, path: Path, configs: dict[str, Path], report: Path) -> list[str]:
    if tool == "hygiene":
        return [*hb.hygiene_argv(), "scan", "--no-config", "--format", "json", "--output",
                str(report), str(path)]  # fmt: skip
    exe = hr.peer_binary(tool)
    if tool == "gitleaks":
        return [exe, "dir", "-c", str(configs[tool]), "--no-banner", "--exit-code", "99",
                "--max-archive-depth", "8", "--enable-rule", hb.PAT_RULE, "-f", "json", "-r",
                str(report), str(path)]  # fmt: skip
    return [exe, "scan", "--rules-path", str(configs[tool]), "--load-builtins=false",
            "--no-validate", "--no-dedup", "--no-update-check", "-q", "--max-file-size", "0",
            "-f", "json", "-o", str(report), str(path)]  # fmt: skip


def run(rounds: int, timeout: float, tools: tuple[str, ...] = TOOLS) -> None:
    paths = inputs()
    print(f"\nbombs: {MEMBERS:,} members each, PATs at members {PLANTED[0]:,} and "
          f"{PLANTED[1]:,}; median of {rounds}; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    header = ["archive", *tools]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        configs = hb.export_configs(Path(tmp))
        for path in paths:
            figures: dict[str, list[tuple[float, int]]] = {t: [] for t in tools}
            last: dict[str, tuple[str, int | None]] = {}
            stopped = dict.fromkeys(tools, False)
            for _ in range(rounds):
                for tool in tools:
                    report = Path(tmp) / f"{tool}.json"
                    report.unlink(missing_ok=True)
                    m = peak.run_measured(command(tool, path, configs, report), timeout=timeout)
                    figures[tool].append((m.seconds, m.peak_kib))
                    stopped[tool] |= m.timed_out
                    count = None if m.timed_out else hb.found(tool, report)
                    last[tool] = ("stopped" if m.timed_out else f"exit {m.status}", count)
            med = {t: (statistics.median(s for s, _ in f), int(statistics.median(k for _, k in f)))
                   for t, f in figures.items()}  # fmt: skip
            base = med.get("hygiene")
            cells = [
                f"{hb.cell(*med[t], None if t == 'hygiene' else base, stopped[t])}, "
                f"{last[t][0]}, {last[t][1]} found"
                for t in tools
            ]
            size = path.stat().st_size / sb.MB
            print(f"| {path.name} ({size:.0f} MB) | " + " | ".join(cells) + " |")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
