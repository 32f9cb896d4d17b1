"""The flow validators on shipped packages: references pass, planted faults are named precisely.

The instances are the shipped fixtures (real generator output, in the official schema), so these
tests also pin the contract between ``instance_data.json`` and the scorer. The validators are the
official rules plus the strict findings (:func:`benchmark.suites.mmopt.official.solution_check`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmark.suites.mmopt.subcategories import get_subcategory

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt" / "network_optimization"


def _load(subcategory: str, difficulty: str, instance_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    directory = FIXTURES / subcategory / difficulty / instance_id / "ground_truth"
    instance = json.loads((directory / "instance_data.json").read_text())
    solution = json.loads((directory / "solution_ref.json").read_text())
    return instance, solution


MF = get_subcategory("maximum_flow")
MCF = get_subcategory("minimum_cost_flow")
assert MF is not None and MCF is not None


def _key(arc: dict[str, Any]) -> str:
    return f"{arc['from']}_{arc['to']}"


@pytest.fixture(scope="module")
def max_flow_case() -> tuple[dict[str, Any], dict[str, Any]]:
    return _load("maximum_flow", "medium", "mf_m_001")


@pytest.fixture(scope="module")
def min_cost_case() -> tuple[dict[str, Any], dict[str, Any]]:
    return _load("minimum_cost_flow", "medium", "mcf_m_001")


def _interior_arc(instance: dict[str, Any], solution: dict[str, Any]) -> dict[str, Any]:
    """An arc between two interior nodes that carries flow."""
    ends = {instance.get("source"), instance.get("sink")}
    for arc in instance["arcs"]:
        if arc["from"] not in ends and arc["to"] not in ends and solution["flows"][_key(arc)] > 0:
            return arc
    raise AssertionError("no interior arc in the fixture")


# ------------------------------------------------------------------------------------------------
# maximum flow


def test_max_flow_reference_passes_and_the_value_is_recomputed(max_flow_case):
    instance, solution = max_flow_case
    check = MF.check_solution(instance, solution)
    assert check.feasible, check.problems
    claim = {k: v for k, v in solution.items() if k not in ("objective_value", "objective_exact")}
    assert MF.check_solution(instance, claim).objective == solution["objective_value"]
    lying = dict(solution, objective_value=solution["objective_value"] + 5)
    assert not MF.check_solution(instance, lying).feasible


def test_max_flow_capacity_and_conservation(max_flow_case):
    instance, solution = max_flow_case
    arc = _interior_arc(instance, solution)
    broken = copy.deepcopy(solution)
    broken["flows"][_key(arc)] = arc["capacity"] + 2
    problems = MF.check_solution(instance, broken).problems
    over = f"arc {_key(arc)}: flow {arc['capacity'] + 2} exceeds capacity"
    assert any(p.startswith(over) for p in problems)
    assert any(p.startswith(f"node {arc['to']}: flow balance") for p in problems)


def test_max_flow_unknown_arc_and_missing_flows(max_flow_case):
    instance, solution = max_flow_case
    broken = copy.deepcopy(solution)
    broken["flows"]["99_98"] = 3
    assert "unknown arcs in the flow map: [(99, 98)]" in MF.check_solution(instance, broken).problems
    check = MF.check_solution(instance, {"status": "optimal", "objective_value": solution["objective_value"]})
    assert not check.feasible and "an arc-flow map is required" in check.problems


def test_max_flow_missing_arcs_count_as_zero(max_flow_case):
    instance, solution = max_flow_case
    sparse = dict(solution, flows={k: v for k, v in solution["flows"].items() if v != 0})
    check = MF.check_solution(instance, sparse)
    assert check.feasible and check.objective == solution["objective_value"]


def test_max_flow_cut_is_required_and_checked(max_flow_case):
    instance, solution = max_flow_case
    source = instance["source"]
    no_cut = {k: v for k, v in solution.items() if k not in ("min_cut_S", "min_cut_T")}
    assert not MF.check_solution(instance, no_cut).feasible
    rest = [n for n in instance["nodes"] if n != source]
    cut = sum(a["capacity"] for a in instance["arcs"] if a["from"] == source)
    value = solution["objective_value"]
    assert cut != value  # the fixtures are nontrivial: the source alone is not a minimum cut
    source_only = dict(solution, min_cut_S=[source], min_cut_T=rest)
    problems = MF.check_solution(instance, source_only).problems
    assert f"cut capacity {cut} differs from the flow value {value}" in problems
    as_strings = dict(solution, min_cut_S=[str(n) for n in solution["min_cut_S"]])
    assert MF.check_solution(instance, as_strings).feasible


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_max_flow_any_single_arc_perturbation_is_caught(max_flow_case, data):
    """Every arc touches an interior node (no direct source-sink arc), so changing one arc's
    flow alone must break conservation there (or a bound)."""
    instance, solution = max_flow_case
    arc = data.draw(st.sampled_from(instance["arcs"]))
    delta = data.draw(
        st.one_of(st.integers(-30, 30), st.floats(-30, 30, allow_nan=False)).filter(lambda d: abs(d) > 1e-3)
    )
    broken = copy.deepcopy(solution)
    broken["flows"][_key(arc)] += delta
    check = MF.check_solution(instance, broken)
    assert not check.feasible
    interior = [n for n in (arc["from"], arc["to"]) if n not in (instance["source"], instance["sink"])]
    assert any(p.startswith((f"node {interior[0]}:", f"arc {_key(arc)}:")) for p in check.problems)


# ------------------------------------------------------------------------------------------------
# minimum-cost flow


def test_min_cost_reference_passes(min_cost_case):
    instance, solution = min_cost_case
    check = MCF.check_solution(instance, solution)
    assert check.feasible, check.problems
    recomputed = sum(a["cost"] * solution["flows"][_key(a)] for a in instance["arcs"])
    assert check.objective == recomputed == solution["objective_value"]


def test_min_cost_unmet_demand_and_unknown_arc(min_cost_case):
    instance, solution = min_cost_case
    demand_node = next(int(n) for n, b in instance["supply"].items() if b < 0)
    arc = next(a for a in instance["arcs"] if a["to"] == demand_node and solution["flows"][_key(a)] > 0)
    broken = copy.deepcopy(solution)
    broken["flows"][_key(arc)] -= 1
    broken["flows"]["98_99"] = 2.5
    problems = MCF.check_solution(instance, broken).problems
    demand = instance["supply"][str(demand_node)]
    assert f"node {demand_node}: flow balance {demand + 1}, net supply {demand}" in problems
    assert "flow key '98_99' names no arc of the instance" in problems
    negative = copy.deepcopy(solution)
    negative["flows"][_key(arc)] = -1
    assert f"arc {_key(arc)}: negative flow -1" in MCF.check_solution(instance, negative).problems


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_min_cost_any_single_arc_perturbation_is_caught(min_cost_case, data):
    """Every node has a balance constraint, so any change on one arc breaks both of its ends."""
    instance, solution = min_cost_case
    arc = data.draw(st.sampled_from(instance["arcs"]))
    delta = data.draw(
        st.one_of(st.integers(-30, 30), st.floats(-30, 30, allow_nan=False)).filter(lambda d: abs(d) > 1e-3)
    )
    broken = copy.deepcopy(solution)
    broken["flows"][_key(arc)] += delta
    check = MCF.check_solution(instance, broken)
    assert not check.feasible
    assert any(p.startswith((f"node {arc['from']}:", f"node {arc['to']}:")) for p in check.problems)
