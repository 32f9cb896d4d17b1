"""The three further network subcategories: resource-constrained shortest path (rcsp), capacitated
network design (cnd) and time-expanded multi-period network flow (tempnf).

Real solvers and real files throughout: the generator runs end to end for the determinism checks,
the validators are tried on the shipped reference solutions and on copies with one planted fault
each; every shipped ``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum`` (all subcategories).
"""

from __future__ import annotations

import copy
import hashlib
import json
import statistics
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from benchmark.suites.mmopt.generation import InstanceGenerator, build_instance
from benchmark.suites.mmopt.generation.network_extras import TableCell, render_table
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.pipeline import text_value_problems
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel
from benchmark.suites.mmopt.generation.rendering import label_problems
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from tests.conftest import fail_missing_fixture

FAMILY = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt" / "network_optimization"
RCSP = "resource_constrained_shortest_path"
CND = "capacitated_network_design"
TEMPNF = "time-expanded_multi-period_network_flow"
PREFIXES = {RCSP: "rcsp", CND: "cnd", TEMPNF: "tempnf"}
VISUAL_COUNT = {RCSP: 2, CND: 1, TEMPNF: 4}


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator), name
    return subcategory


def _packages(name: str) -> list[Path]:
    folder = FAMILY / name
    return (
        sorted(p for d in DIFFICULTIES for p in (folder / d).glob("*") if p.is_dir())
        if folder.is_dir()
        else []
    )


def _load(name: str, difficulty: str = "medium", index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    package = FAMILY / name / difficulty / f"{PREFIXES[name]}_{difficulty[0]}_{index:03d}" / "ground_truth"
    if not package.is_dir():
        fail_missing_fixture(package)
    instance = json.loads((package / "instance_data.json").read_text())
    solution = json.loads((package / "solution_ref.json").read_text())
    return instance, solution


def _problems(name: str, instance: dict[str, Any], solution: dict[str, Any]) -> tuple[str, ...]:
    check = _generator(name).check_solution(instance, solution)
    assert not check.feasible
    return check.problems


# ------------------------------------------------------------------------------------------------
# registry and generation


def test_registry_names_prefixes_and_the_hyphenated_folder():
    for name, prefix in PREFIXES.items():
        generator = _generator(name)
        assert (generator.family, generator.name, generator.id_prefix) == (
            "network_optimization",
            name,
            prefix,
        )
    # the official name has hyphens; the importable package does not
    assert _generator(TEMPNF).generator.__name__.endswith(
        ".time_expanded_multi_period_network_flow.generator"
    )


@pytest.mark.parametrize("name", list(PREFIXES))
def test_same_seed_same_bytes(name):
    generator = _generator(name)
    seed = instance_seed(name, "medium", 4)
    first = package_files(build_instance(generator, "medium", "x_m_004", seed), "test")
    second = package_files(build_instance(generator, "medium", "x_m_004", seed), "test")
    assert first.keys() == second.keys()
    assert [rel for rel in first if first[rel] != second[rel]] == []
    assert sum(rel.startswith("visuals/") for rel in first) == VISUAL_COUNT[name]
    other = package_files(build_instance(generator, "medium", "x_m_004", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


def test_table_renderer_reports_every_cell_without_overlap():
    header = [
        TableCell("note:head:a", "arc"),
        TableCell("v0/p:1", "period 1"),
        TableCell("v0/p:2", "period 2"),
    ]
    rows = [
        [
            TableCell("row:a", "A: 1 \u2192 2"),
            TableCell("cell:a1", "(12, 3)"),
            TableCell("cell:a2", "(120, 30)"),
        ],
        [TableCell("row:b", "B: 2 \u2192 3"), TableCell("cell:b1", "(7, 1)"), TableCell("", "")],
    ]
    visual = render_table("Arc data per period", header, rows)
    expected = [
        ExpectedLabel("v0/p:1", "period 1"),
        ExpectedLabel("v0/p:2", "period 2"),
        ExpectedLabel("row:a", "A: 1 \u2192 2"),
        ExpectedLabel("cell:a1", "(12, 3)"),
        ExpectedLabel("cell:a2", "(120, 30)"),
        ExpectedLabel("row:b", "B: 2 \u2192 3"),
        ExpectedLabel("cell:b1", "(7, 1)"),
    ]
    assert label_problems(visual, expected) == []
    assert visual.png.startswith(b"\x89PNG")
    assert label_problems(visual, [*expected, ExpectedLabel("cell:b2", "(5, 5)")]) == ["cell:b2 not drawn"]
    with pytest.raises(ValueError, match="needs a key"):
        render_table("t", header, [[TableCell("", "unlabelled"), TableCell("x", "1"), TableCell("y", "2")]])
    with pytest.raises(ValueError, match="one cell per header"):
        render_table("t", header, [[TableCell("x", "1")]])


# ------------------------------------------------------------------------------------------------
# resource-constrained shortest path: planted faults


def test_rcsp_reference_passes_and_arc_only_forms_are_read():
    instance, solution = _load(RCSP)
    generator = _generator(RCSP)
    check = generator.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]
    arcs = solution["selected_arcs"]
    only_arcs = {"objective_value": solution["objective_value"], "selected_arcs": list(reversed(arcs))}
    assert generator.check_solution(instance, only_arcs).feasible
    flags = {"arc_selection": {f"{u}_{v}": 1 for u, v in arcs}}
    assert generator.check_solution(instance, flags).objective == solution["objective_value"]


def test_rcsp_unconstrained_shortest_path_breaks_a_budget():
    """The generator promises that the budgets matter: the cheapest path ignoring them is infeasible."""
    instance, solution = _load(RCSP, "easy")
    graph = nx.DiGraph()
    for a in instance["arcs"]:
        graph.add_edge(a["from"], a["to"], cost=a["cost"])
    cheapest = nx.shortest_path(graph, instance["source"], instance["sink"], weight="cost")
    problems = _problems(RCSP, instance, {"optimal_path": cheapest})
    assert any("exceeds the bound" in p for p in problems), problems
    assert nx.path_weight(graph, cheapest, "cost") < solution["objective_value"]


def test_rcsp_planted_faults_are_named():
    instance, solution = _load(RCSP)
    path = solution["optimal_path"]
    source, sink = instance["source"], instance["sink"]
    assert f"source {source} must have exactly one outgoing selected arc" in _problems(
        RCSP, instance, {"optimal_path": path[1:]}
    )
    assert f"sink {sink} must have exactly one incoming selected arc" in _problems(
        RCSP, instance, {"optimal_path": path[:-1]}
    )
    assert f"selected arc {path[0]}_{path[-1]} is not in the network" in _problems(
        RCSP, instance, {"optimal_path": [path[0], path[-1]]}
    )
    cost = solution["objective_value"]
    wrong = {"optimal_path": path, "objective_value": cost + 1}
    assert _problems(RCSP, instance, wrong) == (f"reported objective {cost + 1} but the path costs {cost}",)
    disagree = {"optimal_path": path, "selected_arcs": solution["selected_arcs"][:-1]}
    assert "the returned node path and the returned arcs disagree" in _problems(RCSP, instance, disagree)


# ------------------------------------------------------------------------------------------------
# capacitated network design: planted faults


def test_cnd_reference_passes_and_not_every_arc_opens():
    instance, solution = _load(CND)
    check = _generator(CND).check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]
    assert 0 < len(solution["installed_arc_ids"]) < len(instance["arcs"])
    # no installation returned: the arcs with flow count as installed, the reference design here
    inferred = {"arc_flows": solution["arc_flow_by_id"], "objective_value": solution["objective_value"]}
    assert _generator(CND).check_solution(instance, inferred).feasible
    ends = {a["id"]: f"{a['from']}_{a['to']}" for a in instance["arcs"]}
    by_endpoints = {
        "installation_indicator": {ends[k]: v for k, v in solution["installation_indicator"].items()},
        "arc_flows": {ends[k]: v for k, v in solution["arc_flow_by_id"].items()},
    }
    assert _generator(CND).check_solution(instance, by_endpoints).objective == solution["objective_value"]


def test_cnd_planted_faults_are_named():
    instance, solution = _load(CND)
    by_id = {a["id"]: a for a in instance["arcs"]}
    used = next(key for key, value in solution["arc_flow_by_id"].items() if value > 0)
    closed = copy.deepcopy(solution)
    closed["installed_arc_ids"].remove(used)
    closed["installation_indicator"][used] = 0
    flow = solution["arc_flow_by_id"][used]
    assert _problems(CND, instance, closed) == (
        f"arc {used} carries flow {flow} but the answer does not install it",
    )

    over = copy.deepcopy(solution)
    over["arc_flow_by_id"][used] = by_id[used]["capacity"] + 1
    problems = _problems(CND, instance, over)
    assert (
        f"arc {used}: flow {by_id[used]['capacity'] + 1} exceeds capacity {by_id[used]['capacity']}"
        in problems
    )

    short = copy.deepcopy(solution)
    short["arc_flow_by_id"][used] -= 1
    assert any(
        p.startswith(f"node {by_id[used]['to']}: flow balance") for p in _problems(CND, instance, short)
    )
    assert (
        not _generator(CND)
        .check_solution(instance, {"installed_arc_ids": solution["installed_arc_ids"]})
        .feasible
    )


# ------------------------------------------------------------------------------------------------
# time-expanded multi-period flow: planted faults


def _flat(solution: dict[str, Any]) -> dict[str, Any]:
    flows = {
        f"{arc}@{t}": value for t, per in solution["flows_by_period"].items() for arc, value in per.items()
    }
    stock = {f"{node}@{t}": v for node, per in solution["inventory_by_node"].items() for t, v in per.items()}
    return {"objective_value": solution["objective_value"], "flows": flows, "inventory": stock}


def test_tempnf_reference_passes_in_every_accepted_shape():
    instance, solution = _load(TEMPNF)
    generator = _generator(TEMPNF)
    assert generator.check_solution(instance, solution).feasible
    assert generator.check_solution(instance, _flat(solution)).objective == solution["objective_value"]
    ends = {a["id"]: f"{a['from']}_{a['to']}" for a in instance["arcs"]}
    by_endpoints = {
        "arc_flows": {
            t: {ends[k]: v for k, v in per.items()} for t, per in solution["flows_by_period"].items()
        },
        "inventory_levels": solution["inventory_by_node"],
    }
    assert generator.check_solution(instance, by_endpoints).objective == solution["objective_value"]
    assert any(v > 0 for per in solution["inventory_by_node"].values() for v in per.values())
    assert solution["objective_value"] == solution["routing_cost_total"] + solution["holding_cost_total"]


def _stocked(solution: dict[str, Any]) -> tuple[str, str]:
    return next(
        (t, node)
        for node, per in solution["inventory_by_node"].items()
        for t, value in per.items()
        if value > 0
    )


def test_tempnf_planted_faults_are_named():
    instance, solution = _load(TEMPNF)
    by_id = {a["id"]: a for a in instance["arcs"]}
    t, key = next((t, k) for t, per in solution["flows_by_period"].items() for k, v in per.items() if v > 0)

    over = copy.deepcopy(solution)
    capacity = by_id[key]["capacity_by_period"][t]
    over["flows_by_period"][t][key] = capacity + 1
    problems = _problems(TEMPNF, instance, over)
    assert f"arc {key}@{t}: flow {capacity + 1} exceeds capacity {capacity}" in problems
    assert any(p.startswith(f"node {by_id[key]['from']}@{t}: flow balance") for p in problems)

    t_s, node = _stocked(solution)
    no_stock = {k: v for k, v in solution.items() if k not in ("inventory_by_node", "objective_value")}
    no_stock.pop("objective_exact")
    assert any(
        p.startswith(f"node {node}@{t_s}: flow balance") for p in _problems(TEMPNF, instance, no_stock)
    )

    too_much = copy.deepcopy(solution)
    limit = instance["storage"][node]["capacity"]
    too_much["inventory_by_node"][node][t_s] = limit + 1
    assert f"node {node}@{t_s}: inventory {limit + 1} exceeds storage {limit}" in _problems(
        TEMPNF, instance, too_much
    )
    elsewhere = next(str(n) for n in instance["nodes"] if str(n) not in instance["storage"])
    stray = copy.deepcopy(solution)
    stray["inventory_by_node"][elsewhere] = {t_s: 0}
    assert f"inventory reported at node {elsewhere}, which cannot store" in _problems(TEMPNF, instance, stray)

    wrong = dict(solution, objective_exact=solution["objective_exact"] + 3)
    assert _problems(TEMPNF, instance, wrong) == (
        f"reported objective {wrong['objective_exact']} but the plan costs {solution['objective_value']}",
    )


def test_tempnf_stock_only_at_warehouses_with_initial_inventory():
    """The official model: inventory only at ``storage_nodes`` (inner columns), each with an initial
    inventory and per-period holding costs; supply plus initial stock equals demand."""
    for package in _packages(TEMPNF):
        instance = json.loads((package / "ground_truth" / "instance_data.json").read_text())
        storage = instance["storage"]
        assert sorted(storage) == sorted(str(n) for n in instance["storage_nodes"]) != []
        supply = instance["net_supply_by_node_period"]
        first_column = {n for n, row in supply.items() if any(v > 0 for v in row.values())}
        assert not first_column & set(storage)
        net = sum(v for row in supply.values() for v in row.values())
        assert net + sum(s["initial_inventory"] for s in storage.values()) == 0
        for s in storage.values():
            assert list(s["holding_cost_by_period"]) == instance["periods"]


# ------------------------------------------------------------------------------------------------
# shipped packages


@pytest.mark.parametrize("name", list(PREFIXES))
def test_shipped_packages_are_complete_cross_checked_and_grow_with_difficulty(name):
    packages = _packages(name)
    if not packages:
        fail_missing_fixture(FAMILY / name)
    assert [p.parent.name for p in packages].count("easy") == 10 and len(packages) == 30
    generator = _generator(name)
    sizes: dict[str, list[dict[str, int]]] = {d: [] for d in DIFFICULTIES}
    for package in packages:
        meta = json.loads((package / "meta.json").read_text())
        assert (meta["family"], meta["subcategory"]) == ("network_optimization", name)
        assert package.relative_to(FAMILY.parent).parts[:2] == ("network_optimization", name)
        for rel, digest in meta["checksums"].items():
            assert hashlib.sha256((package / rel).read_bytes()).hexdigest() == digest, rel
        assert len(meta["visuals"]) == VISUAL_COUNT[name]
        instance = json.loads((package / "ground_truth/instance_data.json").read_text())
        solution = json.loads((package / "ground_truth/solution_ref.json").read_text())
        _, independent = generator.cross_check(instance)
        assert independent == pytest.approx(solution["objective_value"], abs=1e-6)
        assert meta["verification"]["cross_check_objective"] == pytest.approx(independent, abs=1e-6)
        assert generator.check_solution(instance, solution).feasible
        task = (package / "task_input.txt").read_text()
        assert text_value_problems(task, generator.visual_values(instance), solution["objective_value"]) == []
        sizes[meta["difficulty"]].append(meta["formulation_size"])
    for key in ("variables", "constraints"):
        medians = [statistics.median(s[key] for s in sizes[d]) for d in DIFFICULTIES]
        assert medians[0] < medians[1] < medians[2], (key, medians)
