"""The import direction that keeps the core able to carry any suite, and a module graph without
circles.

The package graph is one-way: ``adapters/`` uses nothing of ``benchmark/`` beyond the data
contracts (messages, the run-log schema, the outcome and category names) and the file primitives
(locked appends, atomic writes), and those contract modules import nothing of the project but each
other, so nothing ``adapters/`` reaches leads
back into the harness; the rest of ``benchmark/`` uses the adapters. The core (everything in
``benchmark/`` outside ``benchmark/suites/``, plus ``benchmark/suites/base.py``) imports no suite
module (relative and lazy imports counted) and its code names no suite and no word of the suites'
instance layout (family, subcategory, difficulty, tier, domain): what a report groups by comes from
the suite's declared labels and groupings. Docstrings and comments are not code here and may give
a suite's ids as examples; names and string constants (messages and help texts included) may not.
No module of ``benchmark/``, ``adapters/`` or ``tests/`` reaches itself through imports, counting
those inside functions (a lazy import only postpones a circle).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from benchmark.suites.base import suite_names
from tests.conftest import REPO

CONTRACTS = {"benchmark.messages", "benchmark.schema", "benchmark.categories", "benchmark.files"}
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


#: Words of the instance layout the suites share (MM-OptBench's family, subcategory and difficulty
#: tier; a task's domain): a core module naming one knows a suite's labels, which it must read from
#: the suite's declarations (``labels``, ``groupings``) instead. Labels only one suite has
#: (``needs``, ``file``) are left out: they are everyday words the core uses for other things.
LAYOUT_WORDS = frozenset(
    {"family", "families", "subcategory", "subcategories", "difficulty", "difficulties", "tier", "tiers"}
    | {"domain", "domains"}
)


def _documentation(tree: ast.AST) -> set[int]:
    """The bare string statements of a module: docstrings of modules, classes and functions and the
    attribute docstrings under a field; they may give a suite's ids as examples."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _code_names(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant and every name the code defines or uses: variables,
    attributes, functions, classes, parameters, keyword arguments and imports."""
    tree = ast.parse(source)
    documentation = _documentation(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation:
            found.append((line, node.value))
        elif isinstance(node, ast.Name):
            found.append((line, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((line, node.attr))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.append((line, node.name))
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            found.append((line, node.arg))
        elif isinstance(node, ast.alias):
            found += [(line, node.name), *([(line, node.asname)] if node.asname else [])]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((line, node.module))
    return found


def _words(text: str) -> set[str]:
    """The words of a name or string, lower-cased: split at every character that is no letter,
    digit, ``_`` or ``-``, then at ``_`` and at a lower-to-upper case change (``by_family``,
    ``FamilyTable``); a hyphenated word stays whole (CSS's ``font-family`` names no label)."""
    words = set()
    for token in re.split(r"[^\w-]+", text):
        for part in filter(None, token.split("_")):
            words.add(part.lower())
            if "-" not in part:
                words |= {w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", part)}
    return words


def suite_words(source: str, suites: Iterable[str]) -> list[str]:
    """``line: 'text'`` for every name or string of the code that names a suite (anywhere in a
    word: ``MMOptSuite``, ``"mamo:PATH"``) or carries a layout word (:data:`LAYOUT_WORDS`)."""
    names = {n.lower() for n in suites}
    return [
        f"{line}: {text!r}"
        for line, text in sorted(_code_names(source))
        if _words(text) & LAYOUT_WORDS or any(n in word for word in _words(text) for n in names)
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
    assert {name: graph[name] - CONTRACTS for name in CONTRACTS if graph[name] - CONTRACTS} == {}


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


def _suite_imports(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The suite modules (``benchmark.suites.<suite>…``) a module imports, relative imports and
    imports inside functions included; ``benchmark.suites.base`` is the interface, not a suite."""
    return {
        module
        for module in _imported_modules(name, path, modules) | set(_imports(path))
        if module.startswith("benchmark.suites.") and module != "benchmark.suites.base"
    }


def test_the_core_imports_no_suite() -> None:
    modules = _project_modules()
    offending = {
        f"{path.relative_to(REPO)}: {module}"
        for path in _core_files()
        for module in _suite_imports(_module_name(path), path, modules)
    }
    assert offending == set()


def test_the_core_names_no_suite_and_no_layout_word() -> None:
    """Names and strings of the code only: docstrings and comments may give a suite's ids as
    examples (``mmopt/network_optimization/…``), they decide nothing."""
    names = suite_names()
    assert {"mmopt", "mamo", "nldata", "tbmath"} <= set(names)
    offending = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in _core_files()
        for hit in suite_words(path.read_text(), names)
    ]
    assert offending == []


def test_a_planted_suite_import_and_suite_words_are_found(tmp_path: Path) -> None:
    planted = tmp_path / "benchmark/reporting/planted.py"
    planted.parent.mkdir(parents=True)
    source = (
        '"""Rows by family and difficulty, as mmopt does."""\n'
        "from ..suites.mmopt import suite\n"
        "from benchmark.suites import base, nldata\n"
        "def by_family(records):\n"
        '    """Per subcategory."""\n'
        "    STYLE = 'body{font-family:sans-serif}'\n"
        "    return [r for r in records if r.get('difficulty') and suite.MMOptSuite]\n"
        "LABELS = ('Subcategories', 'instance_id')\n"
        "DATASET = f'mamo:{records}'\n"
    )
    planted.write_text(source)
    modules = {**_project_modules(), "benchmark.reporting.planted": planted}
    assert _suite_imports("benchmark.reporting.planted", planted, modules) == {
        "benchmark.suites.mmopt.suite", "benchmark.suites.nldata"
    }  # fmt: skip
    assert suite_words(source, suite_names()) == [
        "2: 'suites.mmopt'", "3: 'nldata'", "4: 'by_family'", "7: 'MMOptSuite'", "7: 'difficulty'",
        "8: 'Subcategories'", "9: 'mamo:'",
    ]  # fmt: skip
