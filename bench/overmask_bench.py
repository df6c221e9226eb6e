"""How much code ``mask()`` changes where there is no secret: the source lines of real packages.

    python bench/overmask_bench.py                      # the packages below, as installed
    python bench/overmask_bench.py --other ../old-tree  # and another checkout's mask(), beside
    python bench/overmask_bench.py --quick              # three packages

Traceback source lines, `repr`s and debug dumps put library code in logs. Every line of the
``.py`` files of real HTTP, cloud and web packages (the test extra's, as pip installed them;
nobody here wrote them) goes through ``mask()``; a line it changes is over-masked, unless it
holds a secret (none of these do: they are published packages' sources). With ``--other``,
the same count for that checkout's ``mask()`` (run in a child process with it first on the
path), and the lines one masks and the other does not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

PACKAGES = (
    "aiohttp",
    "boto3",
    "botocore",
    "django",
    "fastapi",
    "flask",
    "gunicorn",
    "httpx",
    "loguru",
    "opentelemetry",
    "requests",
    "sentry_sdk",
    "starlette",
    "structlog",
    "urllib3",
    "uvicorn",
    "werkzeug",
)
QUICK = ("requests", "httpx", "urllib3")

_CHILD = """
import json, sys
from pathlib import Path
from hygiene.masking import mask
changed = {}
total = 0
for root in json.loads(sys.argv[1]):
    for path in sorted(Path(root).rglob("*.py")):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            total += 1
            masked = mask(line)
            if masked != line:
                changed[f"{path}:{number}"] = [line.strip()[:120], masked.strip()[:120]]
print(json.dumps({"total": total, "changed": changed}))
"""


def _roots(names: tuple[str, ...]) -> list[str]:
    roots = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            print(f"  (not installed: {name})")
            continue
        roots.extend(spec.submodule_search_locations)
    return roots


def _count(roots: list[str], tree: Path | None) -> dict[str, object]:
    command = [sys.executable, "-c", _CHILD, json.dumps(roots)]
    env = None if tree is None else {"PYTHONPATH": str(tree.resolve())}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout (its hygiene/ package)")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--show", type=int, default=20, help="how many differing lines to show")
    args = parser.parse_args()
    roots = _roots(QUICK if args.quick else PACKAGES)
    this = _count(roots, None)
    changed: dict[str, list[str]] = this["changed"]  # type: ignore[assignment]
    print(f"this build: {len(changed)} of {this['total']} source lines changed by mask()")
    if args.other is None:
        for where, (line, masked) in list(changed.items())[: args.show]:
            print(f"  {where}\n    {line!r}\n    -> {masked!r}")
        return
    other = _count(roots, args.other)
    theirs: dict[str, list[str]] = other["changed"]  # type: ignore[assignment]
    print(f"{args.other}: {len(theirs)} of {other['total']} source lines changed by mask()")
    for label, a, b in (("only this build", changed, theirs), ("only the other", theirs, changed)):
        only = [where for where in a if where not in b]
        print(f"{label}: {len(only)} lines")
        for where in only[: args.show]:
            print(f"  {where}\n    {a[where][0]!r}\n    -> {a[where][1]!r}")


if __name__ == "__main__":
    main()
