"""The import direction that keeps the core able to carry any suite: ``adapters/`` uses nothing of
``benchmark/`` beyond the data contracts (messages, the run-log schema) and the file primitives
(locked appends, atomic writes), and the core (everything
in ``benchmark/`` outside ``benchmark/suites/``, plus ``benchmark/suites/base.py``) imports no
suite and names none in its code."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmark.suites.base import suite_names
from tests.conftest import REPO

CONTRACTS = {"benchmark.messages", "benchmark.schema", "benchmark.files"}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


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
