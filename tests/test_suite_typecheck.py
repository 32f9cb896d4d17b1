"""A suite that omits a hook of the :class:`benchmark.suites.base.Suite` protocol fails the type
check, with the hook's name in the message.

Each suite module annotates its ``SUITE`` object with the protocol, so ``make lint`` (mypy) proves
that every registered suite provides every hook the harness calls. The test takes a real suite's
module, deletes one method from its class and runs mypy on the result: the conformance battery
(tests/test_suite_conformance.py) catches a missing hook at run time, this one before anything runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from mypy import api

from tests.conftest import REPO

#: (suite module, its class, the hook deleted from it)
OMISSIONS = (
    ("benchmark/suites/mamo/suite.py", "MamoSuite", "score"),
    ("benchmark/suites/nldata/suite.py", "NLDataSuite", "discover"),
)


def _without_method(source: str, class_name: str, method: str) -> str:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            kept = [s for s in node.body if not (isinstance(s, ast.FunctionDef) and s.name == method)]
            assert len(kept) == len(node.body) - 1, f"{class_name} defines no {method}"
            node.body = kept
            return ast.unparse(tree)
    raise AssertionError(f"no class {class_name}")


def _mypy(path: Path, cache: Path) -> tuple[str, int]:
    stdout, stderr, status = api.run(
        [str(path), "--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(cache)]
    )
    return stdout + stderr, status


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module's runs: the imported harness is analysed once, not per run."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.slow
@pytest.mark.parametrize(("module", "class_name", "hook"), OMISSIONS, ids=[o[2] for o in OMISSIONS])
def test_a_suite_without_a_hook_fails_the_type_check_naming_it(
    module: str, class_name: str, hook: str, tmp_path: Path, mypy_cache: Path
) -> None:
    intact = tmp_path / "intact_suite.py"
    intact.write_text((REPO / module).read_text(encoding="utf-8"), encoding="utf-8")
    broken = tmp_path / "broken_suite.py"
    source = (REPO / module).read_text(encoding="utf-8")
    broken.write_text(_without_method(source, class_name, hook), encoding="utf-8")

    output, status = _mypy(intact, mypy_cache)
    assert status == 0, f"the suite as shipped should type-check:\n{output}"
    output, status = _mypy(broken, mypy_cache)
    assert status == 1, output
    missing = output.split('"Suite" protocol member')[-1].split("\n")
    assert len(missing) > 1 and missing[1].split("note:")[-1].strip() == hook, output
