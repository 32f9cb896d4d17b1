"""Artifacts of a facility-location package, all derived from the verified record.

The task text (App. D.7 Example B) states the objective, the rules, how to read the two figures and
the output contract; every number (coordinates, costs, radii, capacities, demands) stays in the
figures. It fixes the distance rule the scorer applies: exact Euclidean distances, the total
rounded to four decimals, answers accepted within 1e-3.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.spatial import number_text
from benchmark.suites.mmopt.subcategories.facility_location.generator import (
    REGIMES,
    customer_names,
    dist,
    facility_loads,
    facility_names,
    is_capacitated,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

#: How the task text, the specification and the solver name the official ``variant_type``.
VARIANT_NAMES = {"UFL": "uncapacitated", "CFL": "capacitated_single_source"}

_TEXT = text_fragments(__name__, "task_text.toml")
_READING = _TEXT["reading"]

_CAPACITY_RULE = _TEXT["capacity_rule"]

_UNCAPACITATED_RULE = _TEXT["uncapacitated_rule"]

TASK_TEMPLATE = _TEXT["task_template"]


def _rewrap(text: str) -> str:
    """Re-flow prose paragraphs filled from templates; list blocks stay as written."""
    blocks = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        prose = not any(line.startswith("- ") for line in lines)
        blocks.append(textwrap.fill(" ".join(lines), width=100) if prose else block)
    return "\n\n".join(blocks) + "\n"


def task_input(record: VerifiedRecord) -> str:
    capacitated = is_capacitated(record.instance)
    return _rewrap(
        TASK_TEMPLATE.format(
            kind="capacitated, single-source" if capacitated else "uncapacitated",
            reading=_READING.format(
                facility_columns="capacity and coverage radius" if capacitated else "and coverage radius"
            ),
            capacity_rule=_CAPACITY_RULE if capacitated else _UNCAPACITATED_RULE,
        )
    )


def _facility_lines(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["facility"][name]) for name in facility_names(instance)]


def _customer_lines(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["customer"][name]) for name in customer_names(instance)]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    capacitated = is_capacitated(instance)
    facilities = "\n".join(
        f"  {name:>4}: at ({f['xy'][0]}, {f['xy'][1]}), opening cost {f['open_cost']}, "
        + (f"capacity {f['capacity']}, " if capacitated else "")
        + f"coverage radius {number_text(f['radius'])}"
        for name, f in _facility_lines(instance)
    )
    customers = "\n".join(
        f"  {name:>4}: at ({c['xy'][0]}, {c['xy'][1]}), demand {c['demand']}; covered by "
        + ", ".join(instance["feasible_assignments"][name])
        for name, c in _customer_lines(instance)
    )
    grid = REGIMES[record.difficulty].grid
    capacity_line = (
        "  Capacitated, single source: each facility's assigned demand is at most its capacity.\n"
        if capacitated
        else "  Uncapacitated.\n"
    )
    variant = VARIANT_NAMES[instance["variant_type"]]
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        variant=variant,
        capacity_line=capacity_line,
        n_facility=len(instance["facility"]),
        facilities=facilities,
        n_customer=len(instance["customer"]),
        customers=customers,
        grid=grid,
        capacity_column="capacity, " if capacitated else "",
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    capacitated = is_capacitated(instance)
    facility_rows = "\n".join(
        f"| {name} | {f['xy'][0]} | {f['xy'][1]} | {f['open_cost']} | "
        + (f"{f['capacity']} | " if capacitated else "")
        + f"{number_text(f['radius'])} |"
        for name, f in _facility_lines(instance)
    )
    customer_rows = "\n".join(
        f"| {name} | {c['xy'][0]} | {c['xy'][1]} | {c['demand']} |" for name, c in _customer_lines(instance)
    )
    served_by = solution["assignments"]
    loads = facility_loads(instance, served_by)
    assignment_rows = "\n".join(
        f"| {name} | {served_by[name]} | {dist(instance, served_by[name], name):.4f} |"
        for name in customer_names(instance)
    )
    capacity_constraint = (
        "- Capacity: $\\sum_{c \\in C} d_c x_{cf} \\le Q_f y_f$ for all $f \\in F$\n" if capacitated else ""
    )
    capacity_header = " $Q_f$ |" if capacitated else ""
    capacity_rule = "---:|" if capacitated else ""
    load_note = (
        "- Load of each open facility at the reference optimum (assigned demand / capacity): "
        + ", ".join(
            f"{name} {loads[name]}/{f['capacity']}"
            for name, f in _facility_lines(instance)
            if name in solution["open_facilities"]
        )
        + ".\n"
        if capacitated
        else ""
    )
    n_f, n_c = len(instance["facility"]), len(instance["customer"])
    return MATH_MODEL.format(
        variant_name=VARIANT_NAMES[instance["variant_type"]],
        instance_id=record.instance_id,
        n_f=n_f,
        n_c=n_c,
        capacity_parameter=", $Q_f$: capacity" if capacitated else "",
        capacity_constraint=capacity_constraint,
        capacity_header=capacity_header,
        capacity_rule=capacity_rule,
        facility_rows=facility_rows,
        customer_rows=customer_rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        open_facilities_joined=", ".join(solution["open_facilities"]),
        load_note=load_note,
        assignment_rows=assignment_rows,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    facilities = "\n".join(
        f"    ({name!r}, {f['xy'][0]}, {f['xy'][1]}, {f['open_cost']}, {f.get('capacity')!r}, "
        f"{f['radius']!r}),"
        for name, f in _facility_lines(instance)
    )
    customers = "\n".join(
        f"    ({name!r}, {c['xy'][0]}, {c['xy'][1]}, {c['demand']})," for name, c in _customer_lines(instance)
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=VARIANT_NAMES[instance["variant_type"]],
        facilities=facilities,
        customers=customers,
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    n_f, n_c = len(instance["facility"]), len(instance["customer"])
    covered = sum(map(len, instance["feasible_assignments"].values()))
    capacitated = is_capacitated(instance)
    tags = [
        VARIANT_NAMES[instance["variant_type"]],
        "euclidean_distance",
        "coverage_radius",
        f"facilities_{n_f}",
        f"customers_{n_c}",
    ]
    if capacitated:
        tags.append("binding_capacity" if record.difficulty == "hard" else "capacity")
    opened = len(record.reference.solution["open_facilities"])
    constraints = n_c + covered + (n_f if capacitated else 0)
    meta_extra: dict[str, Any] = {  # the official meta.json fields
        "variant_type": instance["variant_type"],
        "number_of_facilities": n_f,
        "number_of_customers": n_c,
        "total_demand": sum(c["demand"] for c in instance["customer"].values()),
        "assignment_graph_density": instance["assignment_graph_density"],
        "structural_extension": instance["structural_extension"]["type"],
        "optimal_objective_value": record.reference.objective,
    }
    if capacitated:
        meta_extra["total_capacity"] = sum(f["capacity"] for f in instance["facility"].values())
    return Descriptors(
        regime_tags=(*tags, f"open_{opened}_of_{n_f}"),
        formulation_size={  # the official names, and the project's variables / constraints
            "num_binary_y": n_f,
            "num_binary_x": covered,
            "num_variables_total": n_f + covered,
            "num_constraints_total": constraints,
            "variables": n_f + covered,
            "constraints": constraints,
        },
        meta_extra=meta_extra,
    )
