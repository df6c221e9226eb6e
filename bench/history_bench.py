"""``hygiene scan --history`` on real repositories' whole history, side by side with ``git log``
alone and the real peers (gitleaks, betterleaks, kingfisher), wall time and peak memory.

    python bench/history_bench.py                                  # croc and rails, 3 rounds
    python bench/history_bench.py --repos croc --rounds 1          # a quick run (~1 min)
    python bench/history_bench.py --repos croc --tools git,hygiene,kingfisher
    python bench/history_bench.py --repos synthetic --commits 5000 # no mirror needed
    python bench/history_bench.py --mirror name=/path/to/bare.git  # any other repository
    python bench/history_bench.py --tree /path/to/other/checkout   # another hygiene's figures

Prints one markdown table: a row a repository (its commits: reachable from HEAD, and from all
refs), a column a tool: median wall seconds and median peak memory of ``--rounds`` rounds,
each with its ratio to hygiene's. Every round runs the tools one after the other (drift in the
machine's load weighs on all alike), each in a fresh child process: peak memory is the
process tree's (the sum of every descendant's RSS, sampled every 50 ms, and never below the
largest single process's peak that wait4 reports). The load average is printed with it; no
figure is a verdict (the machine may be shared).

Every peer runs with the one PAT rule of ``hygiene rules export`` (``aic-pat``) enabled
alone; hygiene runs its full rule set (it cannot be narrowed), so its column does more work.
Each tool scans everything reachable from every ref (``--all``). ``git log -p -U0 --all`` is
the floor every diff-based scanner pays (gitleaks and betterleaks run it; kingfisher reads
blobs itself).

The repositories are scratch copies under bench/.corpus/history/ (git-ignored), made once
from the mirrors, which are only read. A mirror may lack some blobs (a partial fetch). The
shared stand-in script (``git replace`` refs) does not serve here: hygiene reads with replace
refs off on purpose (a repository's refs/replace/* would swap what is scanned), so the copy
is made by ``git fast-export --no-data --all`` piped into ``git fast-import``, each missing blob
stood in for by the empty blob in the stream. The copy then holds the same history, blob for
blob (the missing ones empty), under new commit ids, whole: every tool reads the same objects.
Nothing is planted in any repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import history_repos as hr
import peak

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("git", "hygiene", "gitleaks", "betterleaks", "kingfisher")
HEADERS = {
    "git": "`git log -p -U0 --all` alone",
    "hygiene": "hygiene",
    "gitleaks": "gitleaks 8.30",
    "betterleaks": "betterleaks 2.0",
    "kingfisher": "kingfisher 2.14",
}
PAT_RULE = "aic-pat"


def export_configs(dest: Path) -> dict[str, Path]:
    """Each peer's configuration: the export, the PAT rule alone where the peer cannot
    select rules on its command line (kingfisher)."""
    configs = {}
    for tool, suffix in (("gitleaks", "toml"), ("betterleaks", "toml"), ("kingfisher", "yaml")):
        text = subprocess.run(
            [*hygiene_argv(), "rules", "export", "--format", tool],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if tool == "kingfisher":
            head, _, rules = text.partition("rules:\n")
            first = re.split(r"(?m)^  - name:", rules)[1]
            text = f"{head}rules:\n  - name:{first}"
            assert f'id: "aic.{PAT_RULE}"' in text, "the export's first rule is the PAT rule"
        configs[tool] = dest / f"aic-{tool}.{suffix}"
        configs[tool].write_text(text)
    return configs


TREE = [REPO]  # the hygiene tree run (--tree): this one unless another is named


def hygiene_argv() -> list[str]:
    return ["env", f"PYTHONPATH={TREE[0]}", sys.executable, "-m", "hygiene"]


def command(tool: str, repo: Path, configs: dict[str, Path], report: Path) -> list[str]:
    """The argv of ``tool`` scanning the whole history of the bare repository ``repo``."""
    out = str(report)
    if tool == "git":
        return ["git", f"--git-dir={repo}", "log", "-p", "-U0", "--all"]
    if tool == "hygiene":
        return [*hygiene_argv(), "scan", "--history", "--no-config", "--format", "json",
                "--output", out]  # fmt: skip
    exe = hr.peer_binary(tool)
    if tool == "gitleaks":
        return [exe, "git", "-c", str(configs[tool]), "--no-banner", "--exit-code", "99",
                "--enable-rule", PAT_RULE, "-f", "json", "-r", out, str(repo)]  # fmt: skip
    if tool == "betterleaks":
        return [exe, "git", "-c", str(configs[tool]), "-s", "--no-banner",
                "--isolate-rule", PAT_RULE, "-o", out, str(repo)]  # fmt: skip
    return [exe, "scan", "--rules-path", str(configs[tool]), "--load-builtins=false",
            "--no-validate", "--no-dedup", "--no-update-check", "-q", "--git-history=full",
            "--max-file-size", "0", "-f", "json", "-o", out, str(repo)]  # fmt: skip


OK_STATUS = {"git": (0,), "hygiene": (0, 1), "gitleaks": (0, 99), "betterleaks": (0, 1),
             "kingfisher": (0, 200, 205)}  # fmt: skip


def found(tool: str, report: Path) -> int | None:
    """How many findings the tool's report holds (the values themselves are not kept)."""
    if tool == "git" or not report.exists():
        return None
    text = report.read_text(errors="replace").strip()
    data = json.loads(text) if text else []
    if tool == "hygiene":
        return sum(1 for f in data["findings"] if f["type"] == PAT_RULE)
    if isinstance(data, dict):
        return len(data.get("findings") or [])
    return len(data)


Figures = dict[str, tuple[float, int, int | None, bool]]


def measure_round(
    repo: Path, tools: list[str], configs: dict[str, Path], tmp: Path, timeout: float
) -> Figures:
    """One round: (wall seconds, peak tree RSS in KiB, findings, stopped) of each tool."""
    figures = {}
    for tool in tools:
        report = tmp / f"{tool}.json"
        report.unlink(missing_ok=True)
        argv = command(tool, repo, configs, report)
        # kingfisher and hygiene read the repository from their working folder or argument;
        # git log's output goes nowhere (its cost is making it).
        run = peak.run_measured(argv, cwd=repo, timeout=timeout)
        if run.status not in OK_STATUS[tool] and not run.timed_out:
            sys.exit(f"{tool} failed on {repo.name} (exit {run.status}): {run.stderr[-600:]}")
        count = None if run.timed_out else found(tool, report)
        figures[tool] = (run.seconds, run.peak_kib, count, run.timed_out)
    return figures


def cell(seconds: float, kib: int, base: tuple[float, int] | None, stopped: bool = False) -> str:
    """``seconds`` and ``kib`` with their ratios to ``base``'s; ``>`` marks a run stopped at
    the timeout (its figures are lower bounds)."""
    mb, more = kib / 1024, ">" if stopped else ""
    if base is None:
        return f"{more}{seconds:.2f} s, {more}{mb:.0f} MB"
    return (
        f"{more}{seconds:.2f} s ({seconds / base[0]:.2f}x), "
        f"{more}{mb:.0f} MB ({kib / base[1]:.2f}x)"
    )


def table_row(
    name: str, counts: tuple[int, int], rounds: list[Figures], tools: list[str]
) -> tuple[str, str]:
    """The row of one repository and a line with each tool's findings."""
    med = {
        t: (statistics.median(r[t][0] for r in rounds), int(statistics.median(r[t][1] for r in rounds)))
        for t in tools
    }  # fmt: skip
    base = med.get("hygiene")
    stopped = {t: any(r[t][3] for r in rounds) for t in tools}
    cells = [cell(*med[t], None if t == "hygiene" else base, stopped[t]) for t in tools]
    row = f"| {name} | {counts[0]:,} ({counts[1]:,} all refs) | " + " | ".join(cells) + " |"
    finds = ", ".join(f"{t} {rounds[-1][t][2]}" for t in tools if rounds[-1][t][2] is not None)
    return row, f"{name}: PAT findings: {finds or 'n/a'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repos", default="croc,rails", help="croc, rails, synthetic (comma-separated)"
    )
    parser.add_argument("--mirror", action="append", default=[], metavar="NAME=GITDIR",
                        help="another bare repository to copy and scan (repeatable)")  # fmt: skip
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"of {', '.join(TOOLS)}")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commits", type=int, default=5000, help="the synthetic repo's size")
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds a run may take before it is stopped"
    )
    parser.add_argument("--tree", type=Path, help="run hygiene from this source tree instead")
    args = parser.parse_args()
    if args.tree:
        TREE[0] = args.tree.resolve()
    tools = [t for t in TOOLS if t in args.tools.split(",")]
    unknown = set(args.tools.split(",")) - set(TOOLS)
    if unknown or not tools:
        parser.error(f"--tools: unknown {sorted(unknown)}; pick of {', '.join(TOOLS)}")
    mirrors = dict(hr.MIRRORS)
    for spec in args.mirror:
        name, _, path = spec.partition("=")
        mirrors[name] = Path(path)
    names = [*args.repos.split(","), *(s.partition("=")[0] for s in args.mirror)]
    repos = {}
    for name in dict.fromkeys(n for n in names if n):
        if name == "synthetic":
            repos[name] = hr.synthetic(args.commits, random.Random(5))
        elif name in mirrors:
            repos[name] = hr.scratch_copy(name, mirrors[name])
        else:
            parser.error(f"--repos: no mirror named {name!r} (known: {', '.join(mirrors)})")
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} at the start; "
          f"median of {args.rounds} round(s); ratios are each tool's to hygiene's")  # fmt: skip
    header = ["repository", "commits", *(HEADERS[t] for t in tools)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        configs = export_configs(Path(tmp))
        for name, repo in repos.items():
            rounds = [
                measure_round(repo, tools, configs, Path(tmp), args.timeout)
                for _ in range(args.rounds)
            ]
            row, note = table_row(name, hr.commit_counts(repo), rounds, tools)
            lines.append(row)
            notes.append(note)
    print("\n".join(lines))
    print("\n".join(notes))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
