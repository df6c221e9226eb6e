"""One way through the sources, read from the source as test_layout.py reads it: Hyperscan is
loaded in one module, git is started in one module, the sources take one context and return
their results instead of filling one they are given.

Each rule's checker is also run on a snippet written the old way, so that none can pass by
seeing nothing.
"""

from __future__ import annotations

import ast

import pytest

from tests.test_layout import PACKAGE, _modules, imports_of

HYPERSCAN_HELPER = "hygiene.hyperscan_db"
GIT_RUNNER = "hygiene.gitcmd"
# Where scan requests travel as a context and results are returned.
SOURCES = ("hygiene.scan.sources", "hygiene.scan.decoders.layers")
# What a ScanContext carries: a source function taking one of these loose is a way around it.
CONTEXT_FIELDS = frozenset(
    {"chunk_size", "limits", "allow_lines", "keep_secrets", "jobs", "finder", "excludes"}
)
# Results a function may be handed to fill, and the calls that fill one.
RESULT_TYPES = frozenset({"ScanResult", "BatchResult", "UnitResult", "Collected"})
FILLING_CALLS = frozenset({"append", "extend", "insert", "update", "record", "add", "clear"})
# Ways of starting a program other than through gitcmd.
STARTERS = frozenset({"subprocess", "pty"})
OS_STARTERS = ("exec", "spawn", "posix_spawn", "system", "popen", "fork")


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _fills(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``function``'s body adds to its parameter ``name`` (or one of its parts)."""
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FILLING_CALLS
            and _root_name(node.func.value) == name
        ):
            return True
        if isinstance(node, ast.AugAssign) and _root_name(node.target) == name:
            return True
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, (ast.Attribute, ast.Subscript))
                    and _root_name(target) == name
                ):
                    return True
    return False


def filled_parameters(source: str) -> list[str]:
    """``function(parameter)`` for each parameter of a result type (or a list of errors) that
    its function fills."""
    found = []
    for function in _functions(ast.parse(source)):
        args = function.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            kind = ast.unparse(arg.annotation) if arg.annotation else ""
            is_result = kind.split(" |")[0] in RESULT_TYPES
            is_errors = kind.startswith("list[") and arg.arg in {"errors", "skipped", "found"}
            if arg.arg != "self" and (is_result or is_errors) and _fills(function, arg.arg):
                found.append(f"{function.name}({arg.arg})")
    return found


def loose_context_parameters(source: str) -> list[str]:
    """``function(parameter)`` for each parameter named like a field of ScanContext."""
    found = []
    for function in _functions(ast.parse(source)):
        args = function.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.arg in CONTEXT_FIELDS:
                found.append(f"{function.name}({arg.arg})")
    return found


def program_starts(source: str) -> list[str]:
    """What in ``source`` may start a program: subprocess or pty imported, an ``os`` call
    that execs, spawns or forks, an argv literal starting with ``git``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in STARTERS]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in STARTERS:
            found.append(node.module or "")
        elif isinstance(node, ast.Attribute) and _root_name(node) == "os":
            if node.attr.startswith(OS_STARTERS):
                found.append(f"os.{node.attr}")
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value == "git":
                found.append("an argv starting with 'git'")
    return found


def _source(module: str) -> str:
    return _modules()[module].read_text(encoding="utf-8")


@pytest.mark.parametrize("module", sorted(_modules()))
def test_hyperscan_is_loaded_by_its_helper_only(module: str) -> None:
    if module != HYPERSCAN_HELPER:
        assert not [m for m in imports_of(module) if m.split(".")[0] == "hyperscan"]


def test_the_hyperscan_helper_imports_nothing_of_the_package() -> None:
    assert not [m for m in imports_of(HYPERSCAN_HELPER) if m.startswith("hygiene")]


@pytest.mark.parametrize("module", sorted(_modules()))
def test_git_and_every_program_is_started_by_gitcmd_only(module: str) -> None:
    if module != GIT_RUNNER:
        assert program_starts(_source(module)) == []


@pytest.mark.parametrize("module", [m for m in sorted(_modules()) if _in(m, SOURCES)])
def test_sources_return_results_instead_of_filling_one(module: str) -> None:
    assert filled_parameters(_source(module)) == []


@pytest.mark.parametrize("module", [m for m in sorted(_modules()) if _in(m, SOURCES)])
def test_sources_take_one_context_not_its_fields(module: str) -> None:
    assert loose_context_parameters(_source(module)) == []


def test_the_rules_are_read_from_the_sources() -> None:
    sources = [m for m in _modules() if _in(m, SOURCES)]
    assert "hygiene.scan.sources.one_file" in sources
    assert (PACKAGE / "hyperscan_db.py").is_file()
    assert (PACKAGE / "gitcmd.py").is_file()


OLD_STYLE = """
import subprocess
from subprocess import run
import hyperscan

def scan_target(target, result: ScanResult, chunk_size: int, finder) -> None:
    result.errors.append("x")

def walk(root, excluder, errors: list[str]):
    errors.append("y")

def _collect(out: BatchResult, n: int) -> None:
    out.result.files += 1

def _attributed(collected: Collected, result: ScanResult | None) -> None:
    result.errors[:] = []

def ancestors(commit):
    argv = ["git", "merge-base", "--is-ancestor", commit]
    os.execvp(argv[0], argv)
"""


def test_the_checkers_see_the_old_ways() -> None:
    assert filled_parameters(OLD_STYLE) == [
        "scan_target(result)",
        "walk(errors)",
        "_collect(out)",
        "_attributed(result)",
    ]
    assert loose_context_parameters(OLD_STYLE) == ["scan_target(chunk_size)", "scan_target(finder)"]
    starts = program_starts(OLD_STYLE)
    assert starts.count("subprocess") == 2
    assert "os.execvp" in starts
    assert "an argv starting with 'git'" in starts


def test_a_returned_result_is_not_a_filled_one() -> None:
    returned = """
def scan_target(target, ctx: ScanContext) -> ScanResult:
    result = ScanResult()
    result.errors.append("x")
    return result

class BatchResult:
    def add(self, other: BatchResult) -> BatchResult:
        self.found += other.found
        return self
"""
    assert filled_parameters(returned) == []
    assert loose_context_parameters(returned) == []
