"""Looking up one subcategory imports its folder alone, and finds what full discovery finds.

A worker's first scored case used to import every subcategory's folder and official rules (over a
second); now the case's own subcategory is imported, by the name its folder spells."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.suites.mmopt.official import official_rules
from benchmark.suites.mmopt.subcategories import all_subcategories, folder_module, get_subcategory

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "benchmark.suites.mmopt.subcategories"

#: Scores one package's reference solution in a fresh interpreter and prints the verdict and the
#: subcategory folders that were imported.
_SCORE_ONE = """
import json, sys
from pathlib import Path
from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.scoring import score_execution

ref = next(r for r in discover(Path("fixtures/mmopt")) if r.labels["instance_id"] == sys.argv[1])
package = load_package(ref)
execution = ExecutionResult(Outcome.OK, package.solution_ref, "", "", 0.0, SandboxKind.POOL)
verdict = score_execution(execution, subcategory=package.subcategory, instance=package.instance_data,
                          solution_ref=package.solution_ref, objective_only=False)
prefix = "benchmark.suites.mmopt.subcategories."
folders = sorted({name[len(prefix):].split(".")[0] for name in sys.modules if name.startswith(prefix)})
print(json.dumps({"passed": verdict.passed, "schema": verdict.extra.get("schema"),
                  "folders": [f for f in folders if f != "base"]}))
"""


@pytest.mark.parametrize(
    ("instance_id", "folder", "schema"),
    [
        ("mf_e_001", "maximum_flow", "official"),  # scored by the folder's official rules
        ("jss_e_001", "job_shop_scheduling", None),  # scored by the folder's validator
        ("fhfss_e_001", "flexible_hybrid_flow_shop_scheduling", None),  # a hyphenated name
    ],
)
def test_scoring_a_case_imports_only_its_own_subcategory(instance_id: str, folder: str, schema: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCORE_ONE, instance_id],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"passed": True, "schema": schema, "folders": [folder]}


def test_lookups_by_name_find_what_discovery_finds() -> None:
    folders = sorted(
        p.name for p in (REPO / PACKAGE.replace(".", "/")).iterdir() if (p / "__init__.py").is_file()
    )
    declared = {}
    for folder in folders:
        subcategory = importlib.import_module(f"{PACKAGE}.{folder}").SUBCATEGORY
        declared[subcategory.name] = subcategory
        assert get_subcategory(subcategory.name) is subcategory
        official = f"{PACKAGE}.{folder}.official"
        expected = importlib.import_module(official) if importlib.util.find_spec(official) else None
        assert official_rules(subcategory.name) is expected
    assert declared == all_subcategories()
    assert any("-" in name for name in declared)  # the hyphenated spellings are exercised
    assert sum(official_rules(name) is not None for name in declared) >= 10


@pytest.mark.parametrize("name", ["no_such_subcategory", "maximum_flow.validator", "maximum-flow.x", ""])
def test_a_name_no_folder_declares_finds_nothing(name: str) -> None:
    assert get_subcategory(name) is None
    assert official_rules(name) is None
    assert folder_module(name, "validator") is None
