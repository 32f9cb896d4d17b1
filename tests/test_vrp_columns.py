"""The vrp hard tier's methods (feasible-subset columns with reduced-cost fixing; CP-SAT's arc
model) agree with the full ``2^n`` set-partitioning solver and the partition DP on small instances."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem import solvers


def _instance(seed: int) -> tuple[np.ndarray, list[int], int, int]:
    rng = random.Random(seed)
    points = [(rng.randint(0, 12), rng.randint(0, 12)) for _ in range(10)]
    cost = np.array([[round(math.dist(a, b) * 10) for b in points] for a in points], dtype=np.int64)
    demands = [0] + [rng.randint(1, 6) for _ in range(9)]
    vehicles = rng.randint(2, 4)
    capacity = max(max(demands), math.ceil(sum(demands) / (vehicles * 0.85)))
    return cost, demands, capacity, vehicles


def test_feasible_subset_paths_match_the_full_table() -> None:
    cost, demands, capacity, _ = _instance(1)
    full, _ = routing.subset_paths(cost).closed()
    table = routing.feasible_subset_paths(cost, demands, capacity)
    loads = routing.subset_loads(demands)
    assert table.masks.tolist() == [mask for mask in range(1, 1 << 9) if loads[mask] <= capacity]
    totals, lasts = table.closed()
    assert np.allclose(totals, full[table.masks])
    for row, mask in enumerate(table.masks.tolist()):
        order = table.order(mask, int(lasts[row]))
        assert sorted(order) == [j + 1 for j in range(9) if mask >> j & 1]
        assert routing.tour_units(cost, [0, *order]) == pytest.approx(totals[row])


@pytest.mark.parametrize("seed", range(6))
def test_columns_and_circuit_agree_with_the_partition_methods(seed: int) -> None:
    cost, demands, capacity, vehicles = _instance(seed)
    expected = routing.partition_dp_routes(cost, demands, capacity, vehicles)
    full = routing.set_partitioning_routes(cost, demands, capacity, vehicles)
    found = solvers.column_milp(cost, demands, capacity, vehicles)
    assert found is not None and full is not None and expected is not None
    assert found[0] == pytest.approx(expected) == pytest.approx(full[0])
    assert routing.routes_units(cost, found[1]) == pytest.approx(found[0])
    circuit = solvers.circuit_cpsat(cost, demands, capacity, vehicles)
    assert circuit is not None
    assert routing.routes_units(cost, circuit) == pytest.approx(expected)
    assert all(sum(demands[c] for c in route) <= capacity for route in circuit)
    assert len(circuit) <= vehicles
    # bounded by the optimum, CP-SAT still finds it; one unit below, nothing is left
    assert solvers.circuit_cpsat(cost, demands, capacity, vehicles, round(expected)) is not None
    assert solvers.circuit_cpsat(cost, demands, capacity, vehicles, round(expected) - 1) is None
