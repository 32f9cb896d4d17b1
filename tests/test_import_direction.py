"""The import direction that keeps the core able to carry any suite, and a module graph without
circles.

The package graph is one-way: ``adapters/`` uses nothing of ``benchmark/`` beyond the data
contracts (messages, the run-log schema) and the file primitives (locked appends, atomic writes),
and those contract modules import nothing of the project, so nothing ``adapters/`` reaches leads
back into the harness; the rest of ``benchmark/`` uses the adapters. The core (everything in
``benchmark/`` outside ``benchmark/suites/``, plus ``benchmark/suites/base.py``) imports no suite
and names none in its code. No module of ``benchmark/``, ``adapters/`` or ``tests/`` reaches itself
through imports, counting those inside functions (a lazy import only postpones a circle).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from benchmark.suites.base import suite_names
from tests.conftest import REPO

CONTRACTS = {"benchmark.messages", "benchmark.schema", "benchmark.files"}
PACKAGES = ("benchmark", "adapters", "tests")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (REPO / package).rglob("*.py")}


def _imported_modules(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its code. ``from pkg import sub`` imports
    the module ``pkg.sub``; the parent packages every import runs are left out (a package's
    ``__init__`` importing its own submodules is no circle)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            submodules = {f"{module}.{alias.name}" for alias in node.names} & modules.keys()
            found |= submodules if len(submodules) == len(node.names) else {*submodules, module}
    return (found & modules.keys()) - {name}


def import_circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every group of modules that reach one another through imports (the strongly connected
    components with more than one member, Tarjan's algorithm without recursion), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is not None:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    circles.append(sorted(members))
    return sorted(circles)


def _import_graph() -> dict[str, set[str]]:
    modules = _project_modules()
    return {name: _imported_modules(name, path, modules) for name, path in modules.items()}


def _core_files() -> list[Path]:
    core = [
        p
        for p in (REPO / "benchmark").rglob("*.py")
        if "suites" not in p.relative_to(REPO / "benchmark").parts
    ]
    return [*core, REPO / "benchmark/suites/base.py", REPO / "benchmark/suites/__init__.py"]


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of the code, docstrings left out (they may give examples)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_adapters_use_only_the_data_contracts_of_the_harness() -> None:
    offending = {
        f"{path.relative_to(REPO)}: {name}"
        for path in (REPO / "adapters").rglob("*.py")
        for name in _imports(path)
        if name.split(".")[0] == "benchmark" and name not in CONTRACTS
    }
    assert offending == set()


def test_the_contracts_adapters_use_import_nothing_of_the_project() -> None:
    graph = _import_graph()
    assert graph.keys() >= CONTRACTS
    assert {name: graph[name] for name in CONTRACTS if graph[name]} == {}


def test_the_circle_finder_finds_a_planted_circle_and_only_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d", "e"}, "f": {"g"}, "g": set()}
    assert import_circles(graph) == [["a", "b", "c"]]
    assert import_circles({"x": {"y"}, "y": {"x"}, "z": {"x"}}) == [["x", "y"]]


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    graph = _import_graph()
    # commands.py imports generation.validate inside a function; validate names suite by its module
    assert "benchmark.suites.mmopt.generation.validate" in graph["benchmark.suites.mmopt.commands"]
    assert "benchmark.suites.mmopt.package" in graph["benchmark.suites.mmopt.suite"]  # `import ... as`


def test_no_module_of_the_project_reaches_itself_through_imports() -> None:
    assert import_circles(_import_graph()) == []


def test_the_core_imports_no_suite() -> None:
    offending = {
        f"{path.relative_to(REPO)}: {name}"
        for path in _core_files()
        for name in _imports(path)
        if name.startswith("benchmark.suites.") and name != "benchmark.suites.base"
    }
    assert offending == set()


def test_the_core_names_no_suite() -> None:
    names = set(suite_names())
    assert {"mmopt", "mamo"} <= names
    offending = {
        f"{path.relative_to(REPO)}:{line}: {value!r}"
        for path in _core_files()
        for line, value in _code_strings(path)
        if value in names or any(value.startswith((f"{n}/", f"{n}:")) for n in names)
    }
    assert offending == set()
