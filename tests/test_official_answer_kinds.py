"""Every answer kind of every shipped official package (``tests/official_kinds.py``), scored
under ``--scoring=official``, against the verdict the release's own scorer gave the same answer.

Those verdicts were computed by running the release's scorer (``evaluate.py`` and
``evaluation/scoring.py`` of ``ZhongLIFR/MM-OptBench`` at commit ``fabdd5a``) once on the shipped
packages, and are kept as data in ``tests/data/official_mmopt/official_verdicts.json`` (written by
``scripts/official_verdicts.py``; the release's code never enters this repository). A package or
kind without a verdict there fails: regenerate the file with the script.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.scoring import score_execution
from tests.official_kinds import (
    OBJECTIVE_KEYS,
    SAMPLE,
    VERDICTS_FILE,
    answer,
    kinds,
    mutants,
    package_key,
    packages,
)

MUTANTS = mutants()
VERDICTS: dict[str, Any] = json.loads((SAMPLE / VERDICTS_FILE).read_text(encoding="utf-8"))
PACKAGES = packages()
REGENERATE = "regenerate it: .venv/bin/python scripts/official_verdicts.py --scorer PATH/TO/MM-OptBench"
CASES = [
    pytest.param(package, kind, id=f"{package.instance_id}-{kind}")
    for package in PACKAGES
    for kind in kinds(package)
]


def test_every_shipped_package_has_the_release_verdicts() -> None:
    assert len(PACKAGES) == len(set(MUTANTS) - {"_about"})
    missing = [package_key(p) for p in PACKAGES if package_key(p) not in VERDICTS]
    assert not missing, f"no release verdicts in {VERDICTS_FILE} for {missing}: {REGENERATE}"
    stale = set(VERDICTS) - {"_about"} - {package_key(p) for p in PACKAGES}
    assert not stale, f"{VERDICTS_FILE} has verdicts for packages not shipped: {sorted(stale)}; {REGENERATE}"
    other_kinds = {
        package_key(p): sorted(set(VERDICTS[package_key(p)]) ^ set(kinds(p)))
        for p in PACKAGES
        if set(VERDICTS[package_key(p)]) != set(kinds(p))
    }
    assert not other_kinds, f"verdicts for kinds not built here: {other_kinds}; {REGENERATE}"
    assert len(CASES) >= 6 * len(PACKAGES)


@pytest.mark.parametrize(("package", "kind"), CASES)
def test_official_mode_gives_the_official_verdict(package: Package, kind: str) -> None:
    row = VERDICTS.get(package_key(package), {})
    assert kind in row, (
        f"no release verdict for {package_key(package)} {kind} in {VERDICTS_FILE}: {REGENERATE}"
    )
    verdict = _score(package, answer(package, kind, MUTANTS), "official")
    assert verdict.passed is row[kind], (verdict.category, verdict.detail)


def _score(package: Package, answer: dict[str, Any], scoring: str) -> Any:
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    return score_execution(
        ran,
        subcategory=package.subcategory,
        instance=package.instance_data,
        solution_ref=package.solution_ref,
        objective_only=False,
        scoring=scoring,
    )


def test_workforce_assignment_cost_is_the_reported_objective_when_nothing_else_is() -> None:
    """The release reads ``assignment_cost`` last among its objective keys: an answer reporting
    only shift costs below the full cost (as when overtime is paid) is wrong there."""
    package = next(p for p in PACKAGES if p.instance_id == "wpss_e_008")
    bare = {k: v for k, v in package.solution_ref.items() if k not in OBJECTIVE_KEYS}
    assert bare["assignment_cost"] == 268  # no overtime here: the shift costs are the full cost
    assert _score(package, bare, "official").passed
    short = {**bare, "assignment_cost": 250}  # shifts only, with 18 of overtime left out
    verdict = _score(package, short, "official")
    assert not verdict.passed and verdict.category == "infeasible_solution", verdict.detail
    assert verdict.returned_objective == 250
    unreported = {k: v for k, v in bare.items() if k != "assignment_cost"}
    assert _score(package, unreported, "official").passed  # recomputed: 268
    assert not _score(package, short, "strict").passed  # strict wants an objective key


def test_an_irp_fleet_plan_without_per_vehicle_dispatch_flags_is_wrong_officially() -> None:
    """The release counts dispatched vehicles from dispatch_by_vehicle_period, else from a
    per-period table for the first vehicle only, and requires as many dispatched as routed: a
    two-vehicle plan that gives routes and deliveries alone fails there (strict accepts it)."""
    package = next(p for p in PACKAGES if p.instance_id == "irp_m_008")
    flags = ("dispatch_by_vehicle_period", "dispatch_periods", "used_vehicles_by_period")
    bare = {k: v for k, v in package.solution_ref.items() if k not in flags}
    verdict = _score(package, bare, "official")
    assert not verdict.passed and "t2: 1 vehicle(s) dispatched but 2 routed" in verdict.detail
    assert _score(package, bare, "strict").passed
    wrong_flag = copy.deepcopy(package.solution_ref)
    wrong_flag["dispatch_by_vehicle_period"]["V2"]["t3"] = 0  # V2 drives in t3 but is not flagged
    assert not _score(package, wrong_flag, "official").passed
    single = next(p for p in PACKAGES if p.instance_id == "irp_e_008")  # one vehicle: inferred
    assert _score(
        single, {k: v for k, v in single.solution_ref.items() if "dispatch" not in k}, "official"
    ).passed
