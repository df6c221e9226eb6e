"""The architecture, read from the source: who may import whom, and how big things may grow.

Every import counts, the ones inside functions included (they still run); imports under
``if TYPE_CHECKING:`` do not (they never run). "Reaches" follows imports transitively and
includes the ``__init__`` of every package a module lives in (Python runs those first).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "hygiene"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, except what sits under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _tree(name: str) -> ast.Module:
    return ast.parse(_modules()[name].read_text(encoding="utf-8"))


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    is_package = _modules()[module].name == "__init__.py"
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, node.module] if node.module else base)


@cache
def imports_of(module: str) -> frozenset[str]:
    """The modules ``module`` imports at run time (hygiene's own modules and third parties)."""
    found: set[str] = set()
    for node in _runtime_nodes(_tree(module)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # `from package import module` imports that module; `from module import name`,
            # the module (a package's own __init__ runs first either way: see reaches()).
            source = _resolve(module, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in _modules() else source)
    return frozenset(found)


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@cache
def reaches(module: str) -> frozenset[str]:
    """Everything importing ``module`` runs: its imports, their packages, transitively."""
    seen: set[str] = set()
    todo = [module, *_parents(module)]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in _modules():
            for imported in imports_of(current):
                todo.extend([imported, *_parents(imported)])
    return frozenset(seen - {module})


def _own(names: frozenset[str]) -> set[str]:
    return {n for n in names if n in _modules()}


def _cycle_from(start: str) -> list[str] | None:
    """A cycle of direct imports through ``start``, if any (package inits not implied)."""
    path: list[str] = []

    def visit(module: str, on_path: set[str]) -> list[str] | None:
        for imported in sorted(_own(imports_of(module))):
            if imported == start:
                return [*path, module, start]
            if imported not in on_path:
                path.append(module)
                found = visit(imported, on_path | {imported})
                path.pop()
                if found:
                    return found
        return None

    return visit(start, {start})


def under(prefix: str) -> list[str]:
    return [m for m in _modules() if m == prefix or m.startswith(prefix + ".")]


def test_the_layout_is_read_from_every_module() -> None:
    assert len(_modules()) > 60
    assert "hygiene.scan.sources.one_file" in imports_of("hygiene.scan.sources.parallel")
    # A function-level import counts: the runner starts workers only for big scans.
    assert "hygiene.scan.sources.parallel" in imports_of("hygiene.scan.sources.runner")
    # An import under TYPE_CHECKING does not: it never runs.
    assert "hygiene.scan" not in imports_of("hygiene.api.verify")
    assert "httpx" in reaches("hygiene.revoke.sessions")


@pytest.mark.parametrize("module", sorted(_modules()))
def test_no_import_cycles(module: str) -> None:
    assert _cycle_from(module) is None


@pytest.mark.parametrize("module", under("hygiene.scan"))
def test_scanning_never_reaches_the_network(module: str) -> None:
    reached = reaches(module)
    assert "httpx" not in reached
    assert not [m for m in reached if m == "hygiene.api" or m.startswith("hygiene.api.")]


# The detection core: what a secret is (detection), what a value looks like (shapes), how a
# secret is named without being shown (fingerprints), who issued it (issuers) and the rule table
# every part derives what it looks for from (ruletable).
CORE = (
    "hygiene.detection",
    "hygiene.fingerprints",
    "hygiene.issuers",
    "hygiene.ruletable",
    "hygiene.shapes",
)


@pytest.mark.parametrize("module", CORE)
def test_the_detection_core_imports_nothing_else_of_the_package(module: str) -> None:
    assert not [m for m in reaches(module) if m.startswith("hygiene.") and m not in CORE]


@pytest.mark.parametrize("module", under("hygiene.masking") + under("hygiene.testing"))
def test_masking_and_the_stand_in_never_import_the_client(module: str) -> None:
    assert not [m for m in reaches(module) if m == "hygiene.api" or m.startswith("hygiene.api.")]


def _command_layer(module: str) -> bool:
    return module == "hygiene.cli" or module.startswith("hygiene.commands")


def node_module(node: ast.AST) -> str | None:
    return node.module if isinstance(node, ast.ImportFrom) else None


def _reads_environment(tree: ast.Module) -> bool:
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            return True
        names = {a.name for a in node.names} if isinstance(node, ast.ImportFrom) else set()
        if node_module(node) == "os" and names & {"environ", "getenv", "environb"}:
            return True
    return False


@pytest.mark.parametrize("module", [m for m in _modules() if not _command_layer(m)])
def test_only_the_command_layer_knows_click_and_the_environment(module: str) -> None:
    assert not [m for m in imports_of(module) if m == "click" or m.startswith("click.")]
    assert not _reads_environment(_tree(module))


def test_the_environment_rule_sees_a_read() -> None:
    assert _reads_environment(ast.parse("import os\nx = os.environ.get('A')"))
    assert _reads_environment(ast.parse("from os import getenv"))
    assert not _reads_environment(ast.parse("def f(env): return env.get('A')"))


@pytest.mark.parametrize("module", sorted(_modules()))
def test_modules_and_functions_stay_small(module: str) -> None:
    source = _modules()[module].read_text(encoding="utf-8")
    assert source.count("\n") <= MAX_MODULE_LINES
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= MAX_FUNCTION_LINES, f"{module}.{node.name}: {length} lines"


def test_no_module_is_named_like_the_standard_library_or_a_sibling_package() -> None:
    import sys

    stdlib = set(sys.stdlib_module_names)
    for module in _modules():
        leaf = module.rsplit(".", 1)[-1]
        assert leaf not in stdlib, module
    packages = {m.rsplit(".", 1)[-1] for m, p in _modules().items() if p.name == "__init__.py"}
    modules = {
        m.rsplit(".", 1)[-1]: m
        for m, p in _modules().items()
        if p.name != "__init__.py" and not m.startswith("hygiene.commands.")
    }
    assert not {leaf: m for leaf, m in modules.items() if leaf in packages}


def test_no_two_modules_or_packages_share_a_name() -> None:
    # Subcommands are named after the command they implement (commands/scan.py runs the scan).
    names = [
        m.rsplit(".", 1)[-1]
        for m in _modules()
        if m != "hygiene" and not m.startswith("hygiene.commands.") and not m.endswith("__main__")
    ]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
