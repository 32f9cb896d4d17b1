"""Artifacts of a TSPTW package, all derived from the verified record.

The task text fixes the travel-time rule in words, the timing semantics and the output contract;
coordinates, windows and service times stay in the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows.generator import (
    grid_size,
    heuristic_summary,
    travel_rule,
    uses_big_m,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")
DP_SOLVER_TEMPLATE = resource_text(__name__, "solver_ref_dp.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def rule_text(instance: dict) -> str:  # type: ignore[type-arg]
    return routing.rule_sentence(travel_rule(instance)).replace("cities", "locations")


def task_input(record: VerifiedRecord) -> str:
    title = "Travelling salesman problem with time windows (routing and tour optimization)"
    return task_text(title, READING, TASK.format(rule=rule_text(record.instance)), contract=CONTRACT)


def _rows(instance: dict) -> list[tuple[str, int, int, int, int, int]]:  # type: ignore[type-arg]
    return [
        (n, *instance["coordinates"][n], *instance["time_windows"][n], instance["service_times"][n])
        for n in instance["sets"]["nodes"]
    ]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({x}, {y}), window [{a}, {b}], service {s}" for n, x, y, a, b, s in _rows(instance)
    )
    grid = grid_size(instance)
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        number_customers=meta["number_customers"],
        rows=rows,
        travel_time_rule=meta["travel_time_rule"],
        rule_text=rule_text(instance),
        layout_type=meta["layout_type"],
        window_tightness_type=meta["window_tightness_type"],
        service_time_type=meta["service_time_type"],
        grid=grid,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = travel_rule(instance)
    windowless, greedy = heuristic_summary(instance)
    rows = "\n".join(f"| {n} | {x} | {y} | {a} | {b} | {s} |" for n, x, y, a, b, s in _rows(instance))
    starts = ", ".join(f"{n} {t:g}" for n, t in solution["service_start_times"].items())
    greedy_note = "gets stuck (some window can no longer be met)" if greedy is None else f"costs {greedy:g}"
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_customers=len(instance["sets"]["customers"]),
        rule=rule,
        rule_text=rule_text(instance),
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        tour_joined=" → ".join(solution["tour"]),
        starts=starts,
        windowless=windowless,
        greedy_note=greedy_note,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    names = instance["sets"]["nodes"]
    depot, decimals = instance["depot"], routing.rule_decimals(travel_rule(instance))
    coordinates = {n: tuple(instance["coordinates"][n]) for n in names}
    windows = {n: tuple(instance["time_windows"][n]) for n in names}
    service = {n: instance["service_times"][n] for n in names}
    # the reference's own method: the big-M MILP would take 5-10 s at the hard tier's size
    if uses_big_m(instance):
        return SOLVER_TEMPLATE.format(
            instance_id=record.instance_id, depot=depot, coordinates=coordinates, windows=windows,
            service=service, decimals=decimals,
        )  # fmt: skip
    return DP_SOLVER_TEMPLATE.format(
        instance_id=record.instance_id, depot=depot, coordinates=coordinates, windows=windows,
        service=service, decimals=decimals,
    )  # fmt: skip


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = meta["number_customers"] + 1
    windowless, greedy = heuristic_summary(instance)
    optimum = float(record.reference.solution["objective_value"])
    tags = [
        meta["layout_type"],
        meta["travel_time_rule"],
        f"customers_{meta['number_customers']}",
        f"windows_{meta['window_tightness_type']}",
        f"service_{meta['service_time_type']}",
        f"windows_cost_{round((optimum / windowless - 1) * 100)}pct",
    ]
    if greedy is None:
        tags.append("greedy_gets_stuck")
    elif abs(greedy - optimum) > 1e-9:
        tags.append("greedy_suboptimal")
    if record.reference.solution["binding_time_window_nodes"]:
        tags.append("binding_windows_on_optimal_tour")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * (n - 1) + n + 1,
            "constraints": 2 * n + n * (n - 1),
            "customers": meta["number_customers"],
        },
    )
