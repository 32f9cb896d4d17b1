"""The routing family (routing_tour_optimization): exact tour solvers, generators, validators, fixtures.

Real solvers throughout (HiGHS through SciPy, the Held–Karp dynamic program, exhaustive search on
small cases); every shipped ``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum``. Validator and
scorer faults are planted into copies of real shipped solutions.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmark.suites.mmopt.generation import InstanceGenerator, build_instance, routing
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp import solvers as fleet_solvers
from benchmark.suites.mmopt.subcategories.travel_salesman_problem.generator import nodes, units
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows import generator as tsptw
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows import solvers as tw_solvers
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem import generator as vrp
from tests.conftest import fail_missing_fixture
from tests.mmopt_support import rewrite_json, score_answer

FAMILY = "routing_tour_optimization"
ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt" / FAMILY
SUBCATEGORIES = {
    "travel_salesman_problem": "tsp",
    "vehicle_routing_problem": "vrp",
    "tsp_with_time_windows": "tsptw",
    "heterogeneous_fleet_vrp": "hfvrp",
}


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _packages(name: str | None = None) -> list[Path]:
    names = [name] if name else list(SUBCATEGORIES)
    return sorted(p.parent for n in names for p in (ROOT / n).glob("*/*/meta.json"))


def _load(package: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    def read(rel: str) -> dict[str, Any]:
        return json.loads((package / rel).read_text())

    return read("ground_truth/instance_data.json"), read("ground_truth/solution_ref.json"), read("meta.json")


def _case(name: str, difficulty: str, index: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    packages = [p for p in _packages(name) if p.parent.name == difficulty]
    if not packages:
        fail_missing_fixture(ROOT / name / difficulty)
    instance, solution, _ = _load(packages[index])
    return instance, solution


def _score(name: str, instance: dict[str, Any], solution: dict[str, Any], returned: dict[str, Any]):
    return score_answer(name, instance, solution, returned)


# ------------------------------------------------------------------------------------------------
# cost rule and exact solvers


def _random_points(rng: random.Random, count: int) -> dict[str, list[int]]:
    points: dict[str, list[int]] = {}
    while len(points) < count:
        point = [rng.randint(0, 30), rng.randint(0, 30)]
        if point not in points.values():
            points[f"N{len(points)}"] = point
    return points


def _brute_force(cost: np.ndarray) -> float:
    n = cost.shape[0]
    return min(routing.tour_units(cost, [0, *perm]) for perm in itertools.permutations(range(1, n)))


@pytest.mark.parametrize("rule", sorted(routing.COST_RULES))
def test_held_karp_and_subtour_milp_match_exhaustive_search(rule):
    rng = random.Random(rule)
    for count in (4, 6, 8):
        points = _random_points(rng, count)
        cost = routing.cost_matrix(points, list(points), rule)
        expected = _brute_force(cost)
        dp_total, dp_tour = routing.held_karp(cost)
        milp_total, milp_tour = routing.subtour_milp(cost)
        assert dp_total == pytest.approx(expected, abs=1e-9)
        assert milp_total == pytest.approx(expected, abs=1e-6)
        for tour in (dp_tour, milp_tour):
            assert sorted(tour) == list(range(count)) and tour[0] == 0
            assert routing.tour_units(cost, tour) == pytest.approx(expected, abs=1e-9)


def test_cost_rules_round_each_leg_and_are_stated_without_digits():
    a, b = (0, 0), (1, 2)  # √5 = 2.2360679…
    assert routing.leg_cost(a, b, "euclidean_rounded_0dp") == 2
    assert routing.leg_cost(a, b, "euclidean_rounded_1dp") == 2.2
    assert routing.leg_cost(a, b, "euclidean_rounded_2dp") == 2.24
    assert routing.leg_cost(a, b, routing.EXACT) == pytest.approx(5**0.5, abs=1e-15)
    assert routing.finish_total(2.2360679 * 3, routing.EXACT) == 6.7082
    assert routing.from_units(671, "euclidean_rounded_2dp") == 6.71
    for rule in routing.COST_RULES:
        assert not re.search(r"\d", routing.rule_sentence(rule))
    with pytest.raises(ValueError, match="unknown cost rule"):
        routing.rule_decimals("manhattan")


def test_heuristics_are_valid_tours_and_two_opt_never_worsens():
    rng = random.Random(5)
    points = _random_points(rng, 12)
    cost = routing.cost_matrix(points, list(points), routing.EXACT)
    greedy = routing.nearest_neighbour(cost)
    improved = routing.two_opt(cost, greedy)
    assert sorted(greedy) == sorted(improved) == list(range(12))
    assert routing.tour_units(cost, improved) <= routing.tour_units(cost, greedy) + 1e-9
    assert routing.tour_units(cost, improved) >= routing.held_karp(cost)[0] - 1e-9


def _set_partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        yield [[first], *partition]
        for index in range(len(partition)):
            yield [*partition[:index], [first, *partition[index]], *partition[index + 1 :]]


def _vrp_brute_force(cost: np.ndarray, demands: list[int], capacity: int, vehicles: int) -> float:
    best = np.inf
    for partition in _set_partitions(list(range(1, cost.shape[0]))):
        if len(partition) > vehicles or any(sum(demands[i] for i in block) > capacity for block in partition):
            continue
        total = sum(
            min(routing.tour_units(cost, [0, *order]) for order in itertools.permutations(block))
            for block in partition
        )
        best = min(best, total)
    return float(best)


@pytest.mark.parametrize("seed", range(4))
def test_vrp_set_partitioning_and_partition_dp_match_exhaustive_search(seed):
    rng = random.Random(seed)
    points = _random_points(rng, 7)
    cost = routing.cost_matrix(points, list(points), "euclidean_rounded_1dp")
    demands = [0] + [rng.randint(1, 6) for _ in range(6)]
    capacity, vehicles = max(max(demands), sum(demands) // 2), 3
    expected = _vrp_brute_force(cost, demands, capacity, vehicles)
    found = routing.set_partitioning_routes(cost, demands, capacity, vehicles)
    assert found is not None
    total, routes = found
    assert total == pytest.approx(expected, abs=1e-6)
    assert routing.routes_units(cost, routes) == pytest.approx(expected, abs=1e-9)
    assert sorted(c for route in routes for c in route) == list(range(1, 7))
    assert all(sum(demands[c] for c in route) <= capacity for route in routes) and len(routes) <= vehicles
    assert routing.partition_dp_routes(cost, demands, capacity, vehicles) == pytest.approx(expected, abs=1e-9)
    # one vehicle too few for the total demand: both methods say so
    assert routing.set_partitioning_routes(cost, demands, capacity, 1) is None
    assert routing.partition_dp_routes(cost, demands, capacity, 1) is None


# ------------------------------------------------------------------------------------------------
# registry and determinism


def test_subcategories_are_registered_in_the_family():
    for name, prefix in SUBCATEGORIES.items():
        generator = _generator(name)
        assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, name, prefix)


@pytest.mark.parametrize("name", SUBCATEGORIES)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_same_seed_same_bytes(name, difficulty):
    generator = _generator(name)
    seed = instance_seed(name, difficulty, 4)
    first = package_files(build_instance(generator, difficulty, "x_004", seed), "test")
    second = package_files(build_instance(generator, difficulty, "x_004", seed), "test")
    assert first.keys() == second.keys()
    for rel in first:
        assert first[rel] == second[rel], rel
    other = package_files(build_instance(generator, difficulty, "x_004", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


# ------------------------------------------------------------------------------------------------
# travelling salesman: validator and scoring

TSP = "travel_salesman_problem"


def test_tsp_reference_passes_in_every_written_form():
    instance, solution = _case(TSP, "hard")
    generator = _generator(TSP)
    check = generator.check_solution(instance, solution)
    assert check.feasible and check.objective == solution["objective_value"], check.problems
    tour = solution["tour"]
    forms = [
        {"tour": tour[:-1]},  # open
        {"tour": list(reversed(tour))},  # other direction
        {"tour": [c.lower() for c in tour[3:-1] + tour[:4]]},  # another start, lower case
        {"selected_arcs": solution["selected_arcs"]},
        {"route": tour, "objective_value": solution["objective_value"] + 0.0009},
    ]
    for form in forms:
        again = generator.check_solution(instance, form)
        assert again.feasible and again.objective == solution["objective_value"], (form, again.problems)
    assert _score(
        TSP, instance, solution, {"objective_value": solution["objective_value"], "tour": tour}
    ).passed


def test_tsp_skipped_and_repeated_cities_are_infeasible_solutions():
    instance, solution = _case(TSP, "medium")
    tour = solution["tour"]
    skipped = {"objective_value": solution["objective_value"], "tour": [*tour[:2], *tour[3:]]}
    verdict = _score(TSP, instance, solution, skipped)
    assert verdict.category == "infeasible_solution"
    assert f"city {tour[2]} is not visited" in verdict.detail
    repeated = {"objective_value": solution["objective_value"], "tour": [*tour[:3], tour[1], *tour[3:]]}
    verdict = _score(TSP, instance, solution, repeated)
    assert verdict.category == "infeasible_solution"
    assert f"city {tour[1]} is visited 2 times" in verdict.detail
    assert _generator(TSP).check_solution(instance, {"tour": [*tour, "Z"]}).problems == ("unknown city 'Z'",)
    assert _generator(TSP).check_solution(instance, {"objective_value": 1}).problems == ("no tour returned",)
    broken_arcs = {"selected_arcs": solution["selected_arcs"][:-1]}
    assert not _generator(TSP).check_solution(instance, broken_arcs).feasible


def test_tsp_suboptimal_tour_is_a_wrong_objective_and_a_false_claim_is_infeasible():
    instance, solution = _case(TSP, "hard")
    names = nodes(instance)
    greedy = [names[i] for i in routing.nearest_neighbour(units(instance))]
    recomputed = _generator(TSP).check_solution(instance, {"tour": greedy})
    assert recomputed.feasible and recomputed.objective is not None
    assert recomputed.objective > solution["objective_value"]  # hard: nearest neighbour is suboptimal
    honest = _score(TSP, instance, solution, {"objective_value": recomputed.objective, "tour": greedy})
    assert honest.category == "wrong_objective"
    claimed = _score(
        TSP, instance, solution, {"objective_value": solution["objective_value"], "tour": greedy}
    )
    assert claimed.category == "infeasible_solution" and "reported objective" in claimed.detail


def test_tsp_validator_uses_the_instance_cost_rule():
    instance, solution = _case(TSP, "medium")
    rounded = copy.deepcopy(instance)
    assert rounded["meta_parameters"]["cost_matrix_type"] in (
        "euclidean_rounded_0dp",
        "euclidean_rounded_1dp",
    )
    check = _generator(TSP).check_solution(rounded, solution)
    legs = [rounded["distance_matrix"][a][b] for a, b in itertools.pairwise(solution["tour"])]
    assert check.objective == round(sum(legs), 1)
    assert _generator(TSP).structural_problems(rounded, "medium") == []
    rounded["meta_parameters"]["cost_matrix_type"] = routing.EXACT
    assert "structure: distance matrix disagrees with the cost rule" in _generator(TSP).structural_problems(
        rounded, "medium"
    )


# ------------------------------------------------------------------------------------------------
# vehicle routing: validator and scoring

VRP = "vehicle_routing_problem"


def test_vrp_reference_passes_in_every_written_form():
    instance, solution = _case(VRP, "hard")
    generator = _generator(VRP)
    check = generator.check_solution(instance, solution)
    assert check.feasible and check.objective == solution["objective_value"], check.problems
    routes = solution["routes"]
    forms = [
        {"routes": [route[1:-1] for route in routes]},  # depot left out
        {"routes": dict(zip(solution["route_vehicle_ids"], routes, strict=True))},
        {"vehicle_routes": [list(reversed(route)) for route in routes]},
        {"routes": [*routes, ["Depot", "Depot"]]},  # an unused vehicle
    ]
    for form in forms:
        again = generator.check_solution(instance, form)
        assert again.feasible and again.objective == solution["objective_value"], (form, again.problems)
    assert _score(
        VRP, instance, solution, {"objective_value": solution["objective_value"], "routes": routes}
    ).passed


def test_vrp_capacity_coverage_and_fleet_faults_are_infeasible_solutions():
    instance, solution = _case(VRP, "hard")
    routes = copy.deepcopy(solution["routes"])
    capacity = instance["vehicle_capacity"]
    # move customers onto the first route until it is over capacity
    moved = copy.deepcopy(routes)
    while sum(instance["demands"][c] for c in moved[0][1:-1]) <= capacity:
        donor = next(r for r in moved[1:] if len(r) > 2)
        moved[0].insert(1, donor.pop(1))
    verdict = _score(VRP, instance, solution, {"objective_value": 1.0, "routes": moved})
    assert verdict.category == "infeasible_solution"
    assert re.search(rf"route 1: load \d+ exceeds the vehicle capacity {capacity}", verdict.detail)
    dropped = copy.deepcopy(routes)
    lost = dropped[0].pop(1)
    verdict = _score(VRP, instance, solution, {"objective_value": 1.0, "routes": dropped})
    assert verdict.category == "infeasible_solution" and f"customer {lost} is not served" in verdict.detail
    twice = copy.deepcopy(routes)
    twice[1].insert(1, routes[0][1])
    problems = _generator(VRP).check_solution(instance, {"routes": twice}).problems
    assert f"customer {routes[0][1]} is served 2 times" in problems
    singles = [["Depot", c, "Depot"] for c in instance["sets"]["customers"]]
    problems = _generator(VRP).check_solution(instance, {"routes": singles}).problems
    vehicles = len(instance["sets"]["vehicles"])
    assert f"{len(singles)} routes used, only {vehicles} vehicles available" in problems
    middle = [[*routes[0], *routes[1][1:]], *routes[2:]]
    assert (
        "route 1 returns to the depot in the middle"
        in _generator(VRP).check_solution(instance, {"routes": middle}).problems
    )


def test_vrp_routes_are_read_from_active_arcs_when_no_route_list_is_given():
    """The official scorer falls back on the per-vehicle ``active_arcs`` records when an answer has
    no readable ``routes``; a route list, when present, is what is checked."""
    instance, solution = _case(VRP, "hard")
    generator = _generator(VRP)
    arcs = solution["active_arcs"]
    again = generator.check_solution(instance, {"active_arcs": arcs})
    assert again.feasible and again.objective == solution["objective_value"], again.problems
    first, second = solution["route_vehicle_ids"][:2]
    # the second vehicle's arcs relabelled as the first's: that vehicle leaves the depot twice
    merged = [[a, b, first if v == second else v] for a, b, v in arcs]
    problems = generator.check_solution(instance, {"active_arcs": merged}).problems
    assert f"route 1 ({first}): city Depot is left more than once" in problems, problems
    unreadable = generator.check_solution(instance, {"active_arcs": "n/a"}).problems
    assert unreadable[0] == "active_arcs is not a list of [from, to, vehicle] records"
    capacity = instance["vehicle_capacity"]
    over = {"routes": [["Depot", *instance["sets"]["customers"], "Depot"]], "active_arcs": arcs}
    found = generator.check_solution(instance, over).problems
    assert any(f"exceeds the vehicle capacity {capacity}" in p for p in found), found


def test_vrp_suboptimal_routes_are_a_wrong_objective():
    for package in _packages(VRP):
        instance, solution, meta = _load(package)
        if "greedy_suboptimal" in meta["regime_tags"] and meta["difficulty"] != "easy":
            break
    else:
        fail_missing_fixture(f"a {VRP} package above easy tagged greedy_suboptimal")
    cost, names = vrp.units(instance), vrp.nodes(instance)
    greedy = routing.nearest_feasible_routes(cost, vrp.demand_vector(instance), instance["vehicle_capacity"])
    assert len(greedy) <= len(instance["sets"]["vehicles"])
    named = [["Depot", *(names[i] for i in route), "Depot"] for route in greedy]
    check = _generator(VRP).check_solution(instance, {"routes": named})
    assert check.feasible and check.objective is not None and check.objective > solution["objective_value"]
    verdict = _score(VRP, instance, solution, {"objective_value": check.objective, "routes": named})
    assert verdict.category == "wrong_objective"
    lying = _score(VRP, instance, solution, {"objective_value": solution["objective_value"], "routes": named})
    assert lying.category == "infeasible_solution" and "reported objective" in lying.detail


# ------------------------------------------------------------------------------------------------
# TSP with time windows: exact solvers, validator and scoring

TSPTW = "tsp_with_time_windows"
OFFICIAL_TSPTW = Path(__file__).parent / "data" / "official_mmopt" / "routing_tour_optimization" / TSPTW


def _official_tsptw(tier: str, instance_id: str) -> dict[str, Any]:
    """The instance of a shipped official TSPTW package (``tests/data/official_mmopt``)."""
    path = OFFICIAL_TSPTW / tier / instance_id / "ground_truth" / "instance_data.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _random_window_data(rng: random.Random, count: int) -> tw_solvers.WindowData:
    points = _random_points(rng, count)
    cost = routing.cost_matrix(points, list(points), "euclidean_rounded_0dp")
    horizon = int(cost.sum() // count * 2)
    windows = [(0, horizon)]
    for _ in range(count - 1):
        opens = rng.randint(0, horizon // 2)
        windows.append((opens, opens + rng.randint(5, horizon // 2)))
    return tw_solvers.WindowData(
        cost=cost, service=(0, *(rng.randint(0, 3) for _ in range(count - 1))), windows=tuple(windows)
    )


def _tw_brute_force(data: tw_solvers.WindowData) -> int | None:
    costs = [
        tw_solvers.tour_cost(data, [0, *perm])
        for perm in itertools.permutations(range(1, data.size))
        if tw_solvers.schedule(data, [0, *perm]) is not None
    ]
    return min(costs) if costs else None


@pytest.mark.parametrize("seed", range(6))
def test_tsptw_milp_label_dp_and_cpsat_match_exhaustive_search(seed):
    rng = random.Random(seed)
    data = _random_window_data(rng, 7)
    expected = _tw_brute_force(data)
    found = [tw_solvers.windows_milp(data), tw_solvers.label_dp(data), tw_solvers.circuit_cpsat(data)]
    if expected is None:
        assert found == [None, None, None]
        return
    for total, order in (result or (None, []) for result in found):
        assert total == expected
        assert sorted(order) == list(range(7)) and order[0] == 0
        assert tw_solvers.schedule(data, order) is not None and tw_solvers.tour_cost(data, order) == expected


def test_tsptw_solvers_agree_that_impossible_windows_have_no_tour():
    rng = random.Random(11)
    data = _random_window_data(rng, 6)
    closed = tw_solvers.WindowData(data.cost, data.service, (data.windows[0], (0, 0), *data.windows[2:]))
    assert tw_solvers.windows_milp(closed) is None and tw_solvers.label_dp(closed) is None
    assert tw_solvers.circuit_cpsat(closed) is None


def test_tsptw_milp_stops_at_its_time_limit_on_an_official_hard_instance():
    """The release's tsptw_h_002 (25 customers) stays open in HiGHS for more than 15 minutes: the
    time limit turns that into a RuntimeError (``validate`` reports it as not certified)."""
    instance = _official_tsptw("hard", "tsptw_h_002")
    with pytest.raises(RuntimeError, match="did not solve"):
        tw_solvers.windows_milp(tsptw.window_data(instance), time_limit_s=1.0)


def test_tsptw_reference_certifies_the_official_hard_instance_the_milp_cannot():
    """Beyond 14 nodes the reference is the label DP: on the release's tsptw_h_002 it proves the
    optimum the release's meta.json states (210.87) in a fraction of a second."""
    instance = _official_tsptw("hard", "tsptw_h_002")
    meta = json.loads((OFFICIAL_TSPTW / "hard" / "tsptw_h_002" / "meta.json").read_text(encoding="utf-8"))
    reference = tsptw.reference_solve(instance)
    assert reference.method == tsptw.DP_METHOD
    assert reference.objective == pytest.approx(meta["objective_value"]) == 210.87
    check = _generator(TSPTW).check_solution(instance, reference.solution)
    assert check.feasible and check.objective == pytest.approx(210.87)


def test_tsptw_window_data_keeps_fractional_service_times_and_windows():
    """The release's tsptw_m_001 serves each customer for 0.5 and opens C1 at 3.91: in the rule's
    units (1/100) that is 50 and 391, not the truncated 0 and 300 that made our model solve another
    instance (its tour then broke the package's own windows and certification failed)."""
    instance = _official_tsptw("medium", "tsptw_m_001")
    data = tsptw.window_data(instance)
    assert data.service[0] == 0 and set(data.service[1:]) == {50}
    assert data.windows[1] == (391, 2314) and data.windows[13] == (9480, 11049)
    total, order = tw_solvers.windows_milp(data) or (None, [])
    assert total == 15399 and tw_solvers.schedule(data, order) is not None


def _tw_variants(tour: list[str]) -> list[list[str]]:
    """Tours one move away from ``tour`` (depot fixed at both ends): swaps and single relocations."""
    inner = tour[1:-1]
    found = []
    for i, j in itertools.combinations(range(len(inner)), 2):
        swapped = list(inner)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        found.append(swapped)
        moved = list(inner)
        moved.insert(j, moved.pop(i))
        found.append(moved)
    return [[tour[0], *v, tour[0]] for v in found]


def test_tsptw_reference_passes_in_every_written_form():
    instance, solution = _case(TSPTW, "hard")
    generator = _generator(TSPTW)
    check = generator.check_solution(instance, solution)
    assert check.feasible and check.objective == solution["objective_value"], check.problems
    tour = solution["tour"]
    forms = [
        {"tour": tour[:-1]},  # open
        {"tour": [c.lower() for c in tour[3:-1] + tour[:4]]},  # written from another start, lower case
        {"selected_arcs": solution["selected_arcs"]},
        {"route": tour, "objective_value": solution["objective_value"] + 0.009},
        {"tour": tour, "service_start_times": solution["service_start_times"]},
        {"tour": tour[1:-1]},  # the customers alone
    ]
    for form in forms:
        again = generator.check_solution(instance, form)
        assert again.feasible and again.objective == solution["objective_value"], (form, again.problems)
    assert _score(
        TSPTW, instance, solution, {"objective_value": solution["objective_value"], "tour": tour}
    ).passed


def test_tsptw_a_tour_late_for_a_window_is_an_infeasible_solution():
    instance, solution = _case(TSPTW, "medium")
    generator = _generator(TSPTW)
    late = [
        v
        for v in _tw_variants(solution["tour"])
        if not generator.check_solution(instance, {"tour": v}).feasible
    ]
    assert late  # binding windows: some one-move change of the optimal tour misses one
    verdict = _score(
        TSPTW, instance, solution, {"objective_value": solution["objective_value"], "tour": late[0]}
    )
    assert verdict.category == "infeasible_solution" and "late for a window" in verdict.detail
    # a returned schedule that starts service after a window closes
    starts = dict(solution["service_start_times"])
    customer = solution["tour"][1]
    starts[customer] = instance["time_windows"][customer][1] + 1
    problems = generator.check_solution(
        instance, {"tour": solution["tour"], "service_start_times": starts}
    ).problems
    assert any(p.startswith("late for a window: reported service start") and customer in p for p in problems)
    skipped = [*solution["tour"][:2], *solution["tour"][3:]]
    assert (
        f"city {solution['tour'][2]} is not visited"
        in generator.check_solution(instance, {"tour": skipped}).problems
    )


def test_tsptw_feasible_but_suboptimal_tour_is_a_wrong_objective():
    for package in _packages(TSPTW):
        instance, solution, _ = _load(package)
        generator = _generator(TSPTW)
        worse = []
        for variant in _tw_variants(solution["tour"]):
            check = generator.check_solution(instance, {"tour": variant})
            if (
                check.feasible
                and check.objective is not None
                and check.objective > solution["objective_value"] + 0.01
            ):
                worse.append((variant, check.objective))
        if worse:
            break
    else:
        pytest.fail("no shipped tsptw package has a feasible one-move neighbour of its optimal tour")
    variant, objective = worse[0]
    verdict = _score(TSPTW, instance, solution, {"objective_value": objective, "tour": variant})
    assert verdict.category == "wrong_objective"
    lying = _score(
        TSPTW, instance, solution, {"objective_value": solution["objective_value"], "tour": variant}
    )
    assert lying.category == "infeasible_solution" and "reported objective" in lying.detail


def test_tsptw_windows_bind_in_every_shipped_package():
    packages = _packages(TSPTW)
    if not packages:
        fail_missing_fixture(ROOT / TSPTW)
    customers: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for package in packages:
        instance, solution, meta = _load(package)
        customers[meta["difficulty"]].append(len(instance["sets"]["customers"]))
        assert tsptw.vacuous_windows(instance) == []
        # the windowless optimum (Held-Karp; subtour cuts beyond its 16-node memory reach) is
        # cheaper and misses a window in both directions
        data = tsptw.window_data(instance)
        total, order = (routing.held_karp if data.size <= 16 else routing.subtour_milp)(data.cost)
        assert routing.from_units(total, tsptw.travel_rule(instance)) < solution["objective_value"]
        names = tsptw.nodes(instance)
        for direction in (order, [0, *reversed(order[1:])]):
            check = _generator(TSPTW).check_solution(instance, {"tour": [names[i] for i in direction]})
            assert not check.feasible and any("late for a window" in p for p in check.problems)
        assert solution["binding_time_window_nodes"]
    assert max(customers["easy"]) < min(customers["medium"]) and max(customers["medium"]) < min(
        customers["hard"]
    )


# ------------------------------------------------------------------------------------------------
# heterogeneous fleet VRP: exact solvers, validator and scoring

HFVRP = "heterogeneous_fleet_vrp"


def _fleet_brute_force(
    cost: np.ndarray, demands: list[int], types: list[fleet_solvers.VehicleType]
) -> int | None:
    best = None
    for partition in _set_partitions(list(range(1, cost.shape[0]))):
        for kinds in itertools.product(range(len(types)), repeat=len(partition)):
            if any(kinds.count(t) > kind.available for t, kind in enumerate(types)):
                continue
            if any(
                sum(demands[i] for i in block) > types[t].capacity
                for block, t in zip(partition, kinds, strict=True)
            ):
                continue
            total = sum(
                types[t].fixed
                + types[t].multiplier
                * min(routing.tour_units(cost, [0, *order]) for order in itertools.permutations(block))
                for block, t in zip(partition, kinds, strict=True)
            )
            best = total if best is None else min(best, total)
    return None if best is None else round(best)


@pytest.mark.parametrize("seed", range(3))
def test_hfvrp_column_milp_and_partition_dp_match_exhaustive_search(seed):
    rng = random.Random(seed)
    points = _random_points(rng, 7)
    cost = routing.cost_matrix(points, list(points), "euclidean_rounded_1dp")
    demands = [0] + [rng.randint(1, 5) for _ in range(6)]
    types = [
        fleet_solvers.VehicleType("VAN", 2, max(demands) + 1, rng.randint(50, 150), rng.randint(105, 125)),
        fleet_solvers.VehicleType("TRK", 1, max(demands) * 3, rng.randint(300, 600), rng.randint(80, 95)),
    ]
    expected = _fleet_brute_force(cost, demands, types)
    found = fleet_solvers.column_milp(cost, demands, types)
    assert expected is not None and found is not None
    total, routes = found
    assert total == expected == fleet_solvers.partition_dp(cost, demands, types)
    assert fleet_solvers.state_dp(cost, demands, types) == expected
    assert sorted(c for r in routes for c in r.customers) == list(range(1, 7))
    for r in routes:
        assert sum(demands[c] for c in r.customers) <= types[r.type_index].capacity
    # a fleet too small for the demand: both methods say so
    tiny = [fleet_solvers.VehicleType("VAN", 1, max(demands), 1, 100)]
    assert fleet_solvers.column_milp(cost, demands, tiny) is None
    assert fleet_solvers.partition_dp(cost, demands, tiny) is None
    assert fleet_solvers.state_dp(cost, demands, tiny) is None


def test_hfvrp_reference_passes_in_every_written_form():
    instance, solution = _case(HFVRP, "hard")
    generator = _generator(HFVRP)
    check = generator.check_solution(instance, solution)
    assert check.feasible and check.objective == solution["objective_value"], check.problems
    routes, ids = solution["routes"], solution["route_vehicle_ids"]
    unused = solution["unused_vehicles"]
    forms = [
        {"routes": dict(zip(ids, routes, strict=True))},
        {"routes": [r[1:-1] for r in routes], "route_vehicle_types": solution["route_vehicle_types"]},
        {
            "routes": [*routes, ["Depot", "Depot"]],
            "route_vehicle_ids": [*ids, unused[0] if unused else ids[0]],
        },
        {
            "vehicle_routes": [list(reversed(r)) for r in routes],
            "route_vehicle_ids": [i.lower() for i in ids],
        },
    ]
    for form in forms:
        again = generator.check_solution(instance, form)
        assert again.feasible and again.objective == solution["objective_value"], (form, again.problems)
    returned = {"objective_value": solution["objective_value"], "routes": routes, "route_vehicle_ids": ids}
    assert _score(HFVRP, instance, solution, returned).passed


def test_hfvrp_routes_and_vehicles_are_read_from_active_arcs_when_no_route_list_is_given():
    """As for the VRP, the release falls back on ``active_arcs``: each record's third entry names
    the vehicle, whose type sets the route's capacity and costs."""
    instance, solution = _case(HFVRP, "hard")
    generator = _generator(HFVRP)
    arcs = solution["active_arcs"]
    again = generator.check_solution(instance, {"active_arcs": arcs})
    assert again.feasible and again.objective == solution["objective_value"], again.problems
    first = solution["route_vehicle_ids"][0]
    unknown = [[a, b, "NO_SUCH_VEHICLE" if v == first else v] for a, b, v in arcs]
    problems = generator.check_solution(instance, {"active_arcs": unknown}).problems
    assert "route 1: unknown vehicle 'NO_SUCH_VEHICLE'" in problems, problems
    assert generator.check_solution(instance, {"active_arcs": "n/a"}).problems[0] == (
        "active_arcs is not a list of [from, to, vehicle] records"
    )


def test_hfvrp_capacity_fleet_and_vehicle_faults_are_infeasible_solutions():
    instance, solution = _case(HFVRP, "hard")
    generator = _generator(HFVRP)
    routes, ids = copy.deepcopy(solution["routes"]), solution["route_vehicle_ids"]
    types = instance["vehicle_type_parameters"]
    # every route driven by the smallest type, labelled by type: over capacity or over availability
    smallest = min(types, key=lambda t: types[t]["capacity"])
    singles = [["Depot", c, "Depot"] for c in instance["sets"]["customers"]]
    verdict = _score(
        HFVRP,
        instance,
        solution,
        {"objective_value": 1.0, "routes": singles, "route_vehicle_types": [smallest] * len(singles)},
    )
    available = types[smallest]["available_count"]
    assert verdict.category == "infeasible_solution"
    assert (
        f"more vehicles of type {smallest} than available: {len(singles)} routes, {available} available"
        in verdict.detail
    )
    # all customers of the two largest routes on one vehicle of the smallest type: over its capacity
    merged = [["Depot", *routes[0][1:-1], *routes[1][1:-1], "Depot"], *routes[2:]]
    vehicle = next(v for v, p in instance["vehicle_parameters"].items() if p["type_id"] == smallest)
    labels = [vehicle, *ids[2:]]
    problems = generator.check_solution(instance, {"routes": merged, "route_vehicle_ids": labels}).problems
    capacity = types[smallest]["capacity"]
    assert any(
        re.fullmatch(rf"route 1 \({smallest}\): load \d+ exceeds the capacity {capacity}", p)
        for p in problems
    )
    twice = generator.check_solution(
        instance, {"routes": routes, "route_vehicle_ids": [ids[0]] * len(routes)}
    ).problems
    assert f"vehicle {ids[0]} drives {len(routes)} routes" in twice
    assert generator.check_solution(instance, {"routes": routes}).problems == (
        "routes do not say which vehicle drives each (give route_vehicle_ids, one per route)",
    )
    unknown = generator.check_solution(instance, {"routes": routes, "route_vehicle_ids": ["BUS1", *ids[1:]]})
    assert "route 1: unknown vehicle 'BUS1'" in unknown.problems
    dropped = copy.deepcopy(routes)
    lost = dropped[0].pop(1)
    problems = generator.check_solution(instance, {"routes": dropped, "route_vehicle_ids": ids}).problems
    assert f"customer {lost} is not served" in problems


def test_hfvrp_feasible_but_suboptimal_plan_is_a_wrong_objective():
    generator = _generator(HFVRP)
    for package in _packages(HFVRP):
        instance, solution, _ = _load(package)
        routes, ids = solution["routes"], solution["route_vehicle_ids"]
        candidates = [list(p) for p in itertools.permutations(ids)] + [
            [*ids[:k], v, *ids[k + 1 :]] for k in range(len(ids)) for v in solution["unused_vehicles"]
        ]
        worse = []
        for labels in candidates:
            check = generator.check_solution(instance, {"routes": routes, "route_vehicle_ids": labels})
            if (
                check.feasible
                and check.objective is not None
                and check.objective > solution["objective_value"] + 1e-3
            ):
                worse.append((labels, check.objective))
        if worse:
            break
    else:
        pytest.fail("no shipped hfvrp package has a feasible costlier reassignment of its vehicles")
    labels, objective = worse[0]
    verdict = _score(
        HFVRP,
        instance,
        solution,
        {"objective_value": objective, "routes": routes, "route_vehicle_ids": labels},
    )
    assert verdict.category == "wrong_objective"
    lying = {"objective_value": solution["objective_value"], "routes": routes, "route_vehicle_ids": labels}
    verdict = _score(HFVRP, instance, solution, lying)
    assert verdict.category == "infeasible_solution" and "reported objective" in verdict.detail


def test_hfvrp_fleets_are_heterogeneous_and_matter():
    packages = _packages(HFVRP)
    if not packages:
        fail_missing_fixture(ROOT / HFVRP)
    customers: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for package in packages:
        instance, solution, meta = _load(package)
        customers[meta["difficulty"]].append(len(instance["sets"]["customers"]))
        types = instance["vehicle_type_parameters"].values()
        assert len(
            {(t["capacity"], t["fixed_activation_cost"], t["distance_multiplier"]) for t in types}
        ) == len(types)
        assert len(solution["routes"]) >= 2
        if meta["difficulty"] != "easy":
            assert len(set(solution["route_vehicle_types"])) >= 2
    # medium is at the release's scale (12-13 customers, official median 15); hard (10-11, clustered,
    # demand at up to 90 % of the fleet) is not scaled yet, so only easy is required to be smaller
    assert max(customers["easy"]) < min(customers["medium"])
    assert max(customers["easy"]) < min(customers["hard"])


# ------------------------------------------------------------------------------------------------
# shipped packages


def test_ten_packages_per_difficulty_with_official_ids():
    for name, prefix in SUBCATEGORIES.items():
        packages = _packages(name)
        if not packages:
            fail_missing_fixture(ROOT / name)
        for difficulty in DIFFICULTIES:
            ids = sorted(p.name for p in packages if p.parent.name == difficulty)
            assert ids == [f"{prefix}_{difficulty[0]}_{i:03d}" for i in range(1, 11)]


def test_tsp_regimes_grow_and_hard_defeats_the_heuristics():
    packages = _packages(TSP)
    if not packages:
        fail_missing_fixture(ROOT / TSP)
    cities: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for package in packages:
        instance, _, meta = _load(package)
        cities[meta["difficulty"]].append(len(instance["sets"]["nodes"]))
        if meta["difficulty"] != "easy":
            assert "nearest_neighbour_suboptimal" in meta["regime_tags"]
        if meta["difficulty"] == "hard":
            assert "two_opt_suboptimal" in meta["regime_tags"]
            assert instance["meta_parameters"]["layout_type"] == "clustered_euclidean"
    assert max(cities["easy"]) < min(cities["medium"]) and max(cities["medium"]) < min(cities["hard"])
    rules = {_load(p)[0]["meta_parameters"]["cost_matrix_type"] for p in packages}
    assert rules == set(routing.COST_RULES)  # every rule is shipped


# every package gets these checks in CI from `make bench` (python -m benchmark validate); here the
# first of each difficulty, so that a routing change fails fast in the unit tests
@pytest.mark.parametrize("package", [p for p in _packages() if p.name.endswith("_001")], ids=lambda p: p.name)
def test_package_is_verified_and_cross_checked(package):
    instance, solution, meta = _load(package)
    generator = _generator(meta["subcategory"])
    method, independent = generator.cross_check(instance)
    assert method == meta["verification"]["cross_check"]
    assert independent == pytest.approx(solution["objective_value"], abs=1e-6)
    check = generator.check_solution(instance, solution)
    assert check.feasible, check.problems
    reference = ReferenceSolution(solution=solution, method="shipped")
    assert generator.solution_problems(instance, reference, meta["difficulty"]) == []
    task = (package / "task_input.txt").read_text()
    assert '"objective_value"' in task and "visual_0.png" in task


# ------------------------------------------------------------------------------------------------
# validation of damaged copies


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (TSP, "distance matrix disagrees with the cost rule"),
        (TSPTW, "travel-time matrix disagrees with the rule"),
        (HFVRP, "base distance matrix disagrees with the rule"),
    ],
)
def test_validation_names_the_package_and_check_of_a_damaged_copy(tmp_path, name, message):
    packages = [p for p in _packages(name) if p.parent.name == "easy"]
    if not packages:
        fail_missing_fixture(ROOT / name / "easy")
    source = packages[0]
    rel = source.relative_to(ROOT.parent)
    damaged = tmp_path / rel
    shutil.copytree(source, damaged)
    instance = json.loads((damaged / "ground_truth/instance_data.json").read_text())
    city = instance["sets"]["nodes"][1]
    instance["coordinates"][city][0] += 1  # the location moves, its distances and the figure do not
    rewrite_json(damaged, "ground_truth/instance_data.json", instance)
    report = validate(tmp_path, processes=1)
    label = rel.as_posix()
    checks = {f.check for f in report.failures if f.package == label}
    assert {"structure", "visual_png", "regeneration"} <= checks, report.summary()
    assert any(message in f.message for f in report.failures)


# ------------------------------------------------------------------------------------------------
# replays through the harness


def _returning(value: dict[str, Any]) -> str:
    code = f"def solve():\n    return {json.dumps(value)}\n"
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nsee code\n\nPYTHON_CODE\n```python\n{code}```\n"


def _case_key(package: Path) -> str:
    return "mmopt/" + package.relative_to(ROOT.parent).as_posix()


def test_replayed_routing_answers_get_the_right_category(bench, tmp_path):
    """Answers replayed through a real benchmark session (subprocess pytest, the sandbox): a tour
    late for a window and a feasible but costlier tour (tsptw); a route over its vehicle's capacity
    and more vehicles of a type than available (hfvrp)."""
    generator = _generator(TSPTW)
    for windowed in _packages(TSPTW):
        instance, solution, _ = _load(windowed)
        late, worse = None, None
        for variant in _tw_variants(solution["tour"]):
            check = generator.check_solution(instance, {"tour": variant})
            if not check.feasible:
                late = late or variant
            elif check.objective is not None and check.objective > solution["objective_value"] + 0.01:
                worse = worse or (variant, check.objective)
        if late and worse:
            break
    else:
        pytest.fail("no shipped tsptw package has both a late and a costlier one-move neighbour")
    fleet_package = next(p for p in _packages(HFVRP) if p.parent.name == "hard")
    fleet_instance, fleet_solution, _ = _load(fleet_package)
    types = fleet_instance["vehicle_type_parameters"]
    smallest = min(types, key=lambda t: types[t]["capacity"])
    routes = fleet_solution["routes"]
    merged = [["Depot", *routes[0][1:-1], *routes[1][1:-1], "Depot"], *routes[2:]]
    vehicle = next(v for v, p in fleet_instance["vehicle_parameters"].items() if p["type_id"] == smallest)
    singles = [["Depot", c, "Depot"] for c in fleet_instance["sets"]["customers"]]
    optimum = fleet_solution["objective_value"]
    answers = {
        f"{_case_key(windowed)}/stage1/s0": {"objective_value": solution["objective_value"], "tour": late},
        f"{_case_key(windowed)}/stage1/s1": {"objective_value": worse[1], "tour": worse[0]},
        f"{_case_key(fleet_package)}/stage1/s0": {
            "objective_value": optimum,
            "routes": merged,
            "route_vehicle_ids": [vehicle, *fleet_solution["route_vehicle_ids"][2:]],
        },
        f"{_case_key(fleet_package)}/stage1/s1": {
            "objective_value": optimum,
            "routes": singles,
            "route_vehicle_types": [smallest] * len(singles),
        },
    }
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "".join(json.dumps({"case": k, "response": _returning(v)}) + "\n" for k, v in answers.items())
    )
    selection = f"{windowed.name} or {fleet_package.name}"
    run = bench(f"--model=replay:{replay}", "-k", selection, "--samples", "2", "-m", "routing")
    assert run.returncode == 1, run.output[-3000:]
    got = {r["case"]: (r["category"], r["detail"]) for r in run.records}
    assert set(got) == set(answers), run.output[-3000:]
    late_category, late_detail = got[f"{_case_key(windowed)}/stage1/s0"]
    assert late_category == "infeasible_solution" and "late for a window" in late_detail
    assert got[f"{_case_key(windowed)}/stage1/s1"][0] == "wrong_objective"
    capacity_category, capacity_detail = got[f"{_case_key(fleet_package)}/stage1/s0"]
    assert (
        capacity_category == "infeasible_solution"
        and f"exceeds the capacity {types[smallest]['capacity']}" in (capacity_detail)
    )
    fleet_category, fleet_detail = got[f"{_case_key(fleet_package)}/stage1/s1"]
    assert fleet_category == "infeasible_solution" and f"more vehicles of type {smallest} than available" in (
        fleet_detail
    )
