"""The network-family validators: reference solutions pass, planted faults are named precisely.

The instances are the shipped fixtures (real generator output), so these tests also pin the
contract between ``instance_data.json`` and the scorer.
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
    if not directory.is_dir():
        pytest.skip(f"fixture {instance_id} not generated")
    instance = json.loads((directory / "instance_data.json").read_text())
    solution = json.loads((directory / "solution_ref.json").read_text())
    return instance, solution


MF = get_subcategory("maximum_flow")
MCF = get_subcategory("minimum_cost_flow")
assert MF is not None and MCF is not None


@pytest.fixture(scope="module")
def max_flow_case() -> tuple[dict[str, Any], dict[str, Any]]:
    return _load("maximum_flow", "medium", "mf_m_001")


@pytest.fixture(scope="module")
def min_cost_case() -> tuple[dict[str, Any], dict[str, Any]]:
    return _load("minimum_cost_flow", "medium", "mcf_m_001")


def _interior_arc(
    instance: dict[str, Any], solution: dict[str, Any], positive: bool = True
) -> dict[str, Any]:
    """An arc between two interior nodes, carrying flow when ``positive``."""
    ends = {instance.get("source"), instance.get("sink")}
    for arc in instance["arcs"]:
        if arc["from"] in ends or arc["to"] in ends:
            continue
        if not positive or solution["flows"][arc["id"]] > 0:
            return arc
    raise AssertionError("no interior arc in the fixture")


# ------------------------------------------------------------------------------------------------
# maximum flow


def test_max_flow_reference_passes(max_flow_case):
    instance, solution = max_flow_case
    check = MF.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]


def test_max_flow_objective_is_recomputed_not_copied(max_flow_case):
    instance, solution = max_flow_case
    claim = {k: v for k, v in solution.items() if k != "objective_value"}
    check = MF.check_solution(instance, claim)
    assert check.feasible and check.objective == solution["objective_value"]
    lying = dict(solution, objective_value=solution["objective_value"] + 5)
    check = MF.check_solution(instance, lying)
    assert not check.feasible
    value = solution["objective_value"]
    assert f"reported objective {value + 5} != flow value {value}" in check.problems


def test_max_flow_capacity_exceeded(max_flow_case):
    instance, solution = max_flow_case
    arc = _interior_arc(instance, solution)
    broken = copy.deepcopy(solution)
    broken["flows"][arc["id"]] = arc["capacity"] + 2
    check = MF.check_solution(instance, broken)
    assert not check.feasible
    assert f"arc {arc['id']}: flow {arc['capacity'] + 2} exceeds capacity {arc['capacity']}" in check.problems


def test_max_flow_conservation_broken(max_flow_case):
    instance, solution = max_flow_case
    arc = _interior_arc(instance, solution)
    broken = copy.deepcopy(solution)
    broken["flows"][arc["id"]] -= 1
    check = MF.check_solution(instance, broken)
    head = arc["to"]
    inflow = sum(broken["flows"][a["id"]] for a in instance["arcs"] if a["to"] == head)
    outflow = sum(broken["flows"][a["id"]] for a in instance["arcs"] if a["from"] == head)
    assert not check.feasible
    assert f"node {head}: inflow {inflow} != outflow {outflow}" in check.problems


def test_max_flow_flow_on_missing_arc(max_flow_case):
    instance, solution = max_flow_case
    arc = instance["arcs"][0]
    reverse = f"{arc['to']}_{arc['from']}"
    broken = copy.deepcopy(solution)
    broken["flows"][reverse] = 3
    check = MF.check_solution(instance, broken)
    assert not check.feasible
    assert f"flow 3 on non-existent arc {reverse}" in check.problems
    broken["flows"][reverse] = 0  # a zero entry for a non-arc is harmless
    assert MF.check_solution(instance, broken).feasible


def test_max_flow_missing_flows(max_flow_case):
    instance, solution = max_flow_case
    check = MF.check_solution(instance, {"status": "optimal", "objective_value": solution["objective_value"]})
    assert not check.feasible and check.problems == ("no flows returned",)
    assert check.objective is None


def test_max_flow_missing_arcs_count_as_zero(max_flow_case):
    instance, solution = max_flow_case
    sparse = dict(solution, flows={k: v for k, v in solution["flows"].items() if v != 0})
    check = MF.check_solution(instance, sparse)
    assert check.feasible and check.objective == solution["objective_value"]


def test_max_flow_wrong_min_cut(max_flow_case):
    instance, solution = max_flow_case
    source, sink = instance["source"], instance["sink"]
    without_source = dict(
        solution, min_cut_S=[n for n in solution["min_cut_S"] if n != source], min_cut_T=None
    )
    check = MF.check_solution(instance, without_source)
    assert f"min_cut_S does not contain the source {source}" in check.problems

    with_sink = dict(solution, min_cut_S=[*solution["min_cut_S"], sink], min_cut_T=None)
    assert f"min_cut_S contains the sink {sink}" in MF.check_solution(instance, with_sink).problems

    # The source alone is a cut, but (the fixtures are nontrivial) not a minimum one.
    source_only = dict(solution, min_cut_S=[source], min_cut_T=None)
    cut = sum(a["capacity"] for a in instance["arcs"] if a["from"] == source)
    value = solution["objective_value"]
    assert cut != value
    check = MF.check_solution(instance, source_only)
    assert not check.feasible
    assert f"min cut capacity {cut} != flow value {value}" in check.problems

    unknown = dict(solution, min_cut_S=[*solution["min_cut_S"], 999], min_cut_T=None)
    assert "min_cut_S: unknown node 999" in MF.check_solution(instance, unknown).problems

    mismatched = dict(solution, min_cut_T=solution["min_cut_T"][1:])
    assert "min_cut_T is not the complement of min_cut_S" in MF.check_solution(instance, mismatched).problems


def test_max_flow_cut_optional_and_t_side_alone(max_flow_case):
    instance, solution = max_flow_case
    no_cut = {k: v for k, v in solution.items() if k not in ("min_cut_S", "min_cut_T")}
    assert MF.check_solution(instance, no_cut).feasible
    t_only = dict(no_cut, min_cut_T=solution["min_cut_T"])
    assert MF.check_solution(instance, t_only).feasible
    as_strings = dict(no_cut, min_cut_S=[str(n) for n in solution["min_cut_S"]])
    assert MF.check_solution(instance, as_strings).feasible


def _alias_forms(flows: dict[str, float]) -> dict[str, Any]:
    pairs = [(key.split("_")[0], key.split("_")[1], value) for key, value in flows.items()]
    nested: dict[str, dict[str, float]] = {}
    for u, v, value in pairs:
        nested.setdefault(u, {})[v] = value
    return {
        "underscore": dict(flows),
        "tuple_string": {f"({u}, {v})": value for u, v, value in pairs},
        "quoted_tuple_string": {f"('{u}', '{v}')": value for u, v, value in pairs},
        "arrow": {f"{u}->{v}": value for u, v, value in pairs},
        "spaced_arrow": {f"{u} -> {v}": value for u, v, value in pairs},
        "comma": {f"{u},{v}": value for u, v, value in pairs},
        "records_from_to": [{"from": int(u), "to": int(v), "flow": value} for u, v, value in pairs],
        "records_u_v": [{"u": u, "v": v, "flow": value} for u, v, value in pairs],
        "records_source_target": [{"source": u, "target": v, "value": value} for u, v, value in pairs],
        "triples": [[int(u), int(v), value] for u, v, value in pairs],
        "nested": nested,
        "float_values": {k: float(v) for k, v in flows.items()},
    }


@pytest.mark.parametrize("form", list(_alias_forms({"1_2": 0})))
@pytest.mark.parametrize("which", ["max_flow", "min_cost"])
def test_alias_forms_parse_the_same(form, which, max_flow_case, min_cost_case):
    instance, solution = max_flow_case if which == "max_flow" else min_cost_case
    validator = MF if which == "max_flow" else MCF
    rewritten = dict(solution, flows=_alias_forms(solution["flows"])[form])
    check = validator.check_solution(instance, rewritten)
    assert check.feasible, check.problems
    assert check.objective == pytest.approx(solution["objective_value"], abs=1e-9)


def test_conflicting_duplicate_keys_are_flagged(max_flow_case):
    instance, solution = max_flow_case
    arc = _interior_arc(instance, solution)
    flows = dict(solution["flows"])
    flows[f"{arc['from']}->{arc['to']}"] = flows[arc["id"]] + 1
    check = MF.check_solution(instance, dict(solution, flows=flows))
    assert not check.feasible
    assert any(p.startswith(f"arc {arc['id']}: given twice") for p in check.problems)


def test_unreadable_flow_values(max_flow_case):
    instance, solution = max_flow_case
    arc = _interior_arc(instance, solution)
    flows = dict(solution["flows"], **{arc["id"]: "lots"})
    check = MF.check_solution(instance, dict(solution, flows=flows))
    assert f"arc {arc['id']}: flow 'lots' is not a number" in check.problems
    check = MF.check_solution(instance, dict(solution, flows=42))
    assert "flows is a int, not a dict or list" in check.problems


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
    broken["flows"][arc["id"]] += delta
    check = MF.check_solution(instance, {k: v for k, v in broken.items() if k != "objective_value"})
    assert not check.feasible
    interior = [n for n in (arc["from"], arc["to"]) if n not in (instance["source"], instance["sink"])]
    assert any(p.startswith(f"node {interior[0]}:") for p in check.problems) or any(
        p.startswith(f"arc {arc['id']}:") for p in check.problems
    )


# ------------------------------------------------------------------------------------------------
# minimum-cost flow


def test_min_cost_reference_passes(min_cost_case):
    instance, solution = min_cost_case
    check = MCF.check_solution(instance, solution)
    assert check.feasible, check.problems
    recomputed = sum(a["cost"] * solution["flows"][a["id"]] for a in instance["arcs"])
    assert check.objective == recomputed == solution["objective_value"]


def test_min_cost_unmet_demand(min_cost_case):
    instance, solution = min_cost_case
    demand_node = next(int(n) for n, b in instance["supply"].items() if b < 0)
    arc = next(a for a in instance["arcs"] if a["to"] == demand_node and solution["flows"][a["id"]] > 0)
    broken = copy.deepcopy(solution)
    broken["flows"][arc["id"]] -= 1
    check = MCF.check_solution(instance, broken)
    demand = -instance["supply"][str(demand_node)]
    assert not check.feasible
    assert f"node {demand_node}: net inflow {demand - 1} != demand {demand}" in check.problems


def test_min_cost_supply_not_shipped(min_cost_case):
    instance, solution = min_cost_case
    supply_node = next(int(n) for n, b in instance["supply"].items() if b > 0)
    arc = next(a for a in instance["arcs"] if a["from"] == supply_node and solution["flows"][a["id"]] > 0)
    broken = copy.deepcopy(solution)
    broken["flows"][arc["id"]] -= 1
    supply = instance["supply"][str(supply_node)]
    check = MCF.check_solution(instance, broken)
    assert f"node {supply_node}: net outflow {supply - 1} != supply {supply}" in check.problems


def test_min_cost_capacity_conservation_and_missing_arc(min_cost_case):
    instance, solution = min_cost_case
    arc = _interior_arc(instance, solution, positive=False)
    broken = copy.deepcopy(solution)
    broken["flows"][arc["id"]] = arc["capacity"] + 1
    broken["flows"]["98_99"] = 2.5
    check = MCF.check_solution(instance, broken)
    assert f"arc {arc['id']}: flow {arc['capacity'] + 1} exceeds capacity {arc['capacity']}" in check.problems
    assert "flow 2.5 on non-existent arc 98_99" in check.problems

    negative = copy.deepcopy(solution)
    negative["flows"][arc["id"]] = -1
    assert f"arc {arc['id']}: negative flow -1" in MCF.check_solution(instance, negative).problems

    transship = next(int(n) for n, b in instance["supply"].items() if b == 0)
    into = next(a for a in instance["arcs"] if a["to"] == transship)
    shifted = copy.deepcopy(solution)
    shifted["flows"][into["id"]] += 1
    inflow = sum(shifted["flows"][a["id"]] for a in instance["arcs"] if a["to"] == transship)
    outflow = sum(shifted["flows"][a["id"]] for a in instance["arcs"] if a["from"] == transship)
    problems = MCF.check_solution(instance, shifted).problems
    assert f"node {transship}: inflow {inflow} != outflow {outflow}" in problems


def test_min_cost_missing_flows_and_wrong_objective(min_cost_case):
    instance, solution = min_cost_case
    assert MCF.check_solution(instance, {"status": "optimal"}).problems == ("no flows returned",)
    value = solution["objective_value"]
    check = MCF.check_solution(instance, dict(solution, objective_value=value - 1))
    assert f"reported objective {value - 1} != recomputed cost {value}" in check.problems
    aliased = {k: v for k, v in solution.items() if k not in ("objective_value", "objective_exact")}
    assert MCF.check_solution(instance, dict(aliased, total_cost=value)).feasible
    assert not MCF.check_solution(instance, dict(aliased, total_cost=value + 3)).feasible


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
    broken["flows"][arc["id"]] += delta
    check = MCF.check_solution(instance, {k: v for k, v in broken.items() if k != "objective_value"})
    assert not check.feasible
    assert any(p.startswith((f"node {arc['from']}:", f"node {arc['to']}:")) for p in check.problems)
