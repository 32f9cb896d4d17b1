"""A malformed instance is the dataset's error, named with its file and key, never the model's.

Run on real official packages (``tests/data/official_mmopt``) with one key removed or mistyped:
the package's own reference solution no longer passes the scoring check, so the case is a
``dataset_error`` naming ``instance_data.json`` and the key. End to end (a run whose package
lacks ``arcs``): ``tests/test_case_accounting.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.instance_check import check_instance, instance_problem
from benchmark.suites.mmopt.package import discover
from benchmark.verdict import DatasetError

SAMPLE = Path(__file__).parent / "data" / "official_mmopt"
MAXIMUM_FLOW = "network_optimization/maximum_flow/easy/mf_e_001"
GRAPH_COLORING = "combinatorial_logical/graph_coloring/easy/gc_e_001"
KNAPSACK = "combinatorial_logical/multi_dim_knapsack/easy/mdkp_e_001"


def _load(rel: str) -> tuple[dict[str, Any], dict[str, Any]]:
    truth = SAMPLE / rel / "ground_truth"
    instance = json.loads((truth / "instance_data.json").read_text(encoding="utf-8"))
    return instance, json.loads((truth / "solution_ref.json").read_text(encoding="utf-8"))


def _without(instance: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in instance.items() if k != key}


@pytest.mark.parametrize("ref", discover(SAMPLE), ids=lambda ref: "/".join(ref.path))
def test_every_official_sample_instance_is_well_formed(ref: Any) -> None:
    instance, solution = _load("/".join(ref.path))
    assert instance_problem(ref.labels["subcategory"], instance, solution) is None


@pytest.mark.parametrize("key", ["source", "sink"])
def test_a_maximum_flow_instance_without_its_source_or_sink_is_a_dataset_error(key: str) -> None:
    instance, solution = _load(MAXIMUM_FLOW)
    with pytest.raises(DatasetError) as raised:
        check_instance(SAMPLE / MAXIMUM_FLOW, "maximum_flow", _without(instance, key), solution)
    assert raised.value.path.endswith("mf_e_001/ground_truth/instance_data.json")
    assert f"the instance lacks '{key}'" in raised.value.problem


def test_a_mistyped_maximum_flow_sink_is_a_dataset_error() -> None:
    instance, solution = _load(MAXIMUM_FLOW)
    with pytest.raises(DatasetError) as raised:
        check_instance(SAMPLE / MAXIMUM_FLOW, "maximum_flow", {**instance, "sink": "t"}, solution)
    assert raised.value.path.endswith("mf_e_001/ground_truth")
    named = "ground_truth/instance_data.json or ground_truth/solution_ref.json"
    assert raised.value.problem.startswith(named)
    assert "no integer source or sink" in raised.value.problem


def test_a_graph_without_edges_is_a_dataset_error_and_optional_keys_are_not_blamed() -> None:
    instance, solution = _load(GRAPH_COLORING)
    assert "task_variant" not in instance  # an optional key: its absence is the official easy schema
    problem = instance_problem("graph_coloring", _without(instance, "edges"), solution)
    assert problem is not None and problem.startswith("the instance lacks 'edges';")
    assert "task_variant" not in problem


def test_a_knapsack_without_capacities_or_with_text_capacities_is_a_dataset_error() -> None:
    instance, solution = _load(KNAPSACK)
    missing = instance_problem("multi_dim_knapsack", _without(instance, "capacities"), solution)
    assert missing is not None and "the instance lacks 'capacities'" in missing
    mistyped = instance_problem("multi_dim_knapsack", {**instance, "capacities": ["28", "26"]}, solution)
    assert mistyped is not None and "TypeError" in mistyped


def test_an_infeasible_feasibility_reference_has_no_decisions_to_check() -> None:
    instance, _ = _load(GRAPH_COLORING)
    assert instance_problem("graph_coloring", instance, {"status": "infeasible"}) is None
