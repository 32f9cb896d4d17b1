"""Artifacts of a p-median / p-center package, all derived from the verified record.

The task text names the variant and its objective, the reading of both figures and the output
contract; p, coordinates and weights stay in the figures. It fixes the distance rule the scorer
applies: exact Euclidean distances, the objective rounded to four decimals, accepted within 1e-3.
"""

from __future__ import annotations

import textwrap

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.p_median_center.generator import (
    P_CENTER,
    P_MEDIAN,
    TITLES,
    dist,
    grid_size,
    is_median,
    points,
    sites,
    weight,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
_READING = _TEXT["reading"]

_OBJECTIVE = {
    P_MEDIAN: _TEXT["objective_median"],
    P_CENTER: _TEXT["objective_center"],
}

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
    median = is_median(record.instance)
    return _rewrap(
        TASK_TEMPLATE.format(
            title=TITLES[record.instance["variant_type"]],
            reading=_READING.format(weights=" and weight" if median else ""),
            objective=_OBJECTIVE[record.instance["variant_type"]],
            measure="total weighted distance" if median else "largest distance",
        )
    )


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    median = is_median(instance)
    site_lines = "\n".join(f"  {name:>4}: at ({x}, {y})" for name, x, y in sites(instance))
    point_lines = "\n".join(
        f"  {name:>4}: at ({x}, {y})" + (f", weight {weight(instance, name)}" if median else "")
        for name, x, y in points(instance)
    )
    grid = grid_size(instance)
    p = instance["p_value"]
    objective = (
        "  minimize sum over demand points of weight x Euclidean distance to the assigned site"
        if median
        else "  minimize the maximum over demand points of the Euclidean distance to the assigned site"
    )
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        title=TITLES[instance["variant_type"]],
        difficulty=record.difficulty,
        p=p,
        n_sites=len(sites(instance)),
        n_points=len(points(instance)),
        site_lines=site_lines,
        point_lines=point_lines,
        objective=objective,
        grid=grid,
        weight_column=", weight" if median else "",
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    median = is_median(instance)
    assigned = solution["assignments"]
    site_rows = "\n".join(f"| {name} | {x} | {y} |" for name, x, y in sites(instance))
    point_rows = "\n".join(
        f"| {name} | {x} | {y} |" + (f" {weight(instance, name)} |" if median else "")
        for name, x, y in points(instance)
    )
    assignment_rows = "\n".join(
        f"| {name} | {assigned[name]} | {dist(instance, name, assigned[name]):.4f} |"
        for name, _, _ in points(instance)
    )
    if median:
        objective = "$$\\min \\; \\sum_{i \\in D} \\sum_{j \\in S} w_i \\, \\delta_{ij} \\, x_{ij}$$"
        variables = ""
        extra = ""
    else:
        objective = "$$\\min \\; z$$"
        variables = "- $z \\ge 0$: the largest assignment distance\n"
        extra = "- Bound: $z \\ge \\sum_{j \\in S} \\delta_{ij} x_{ij}$ for all $i \\in D$\n"
    weight_header = " $w_i$ |" if median else ""
    weight_rule = "---:|" if median else ""
    return MATH_MODEL.format(
        title=TITLES[instance["variant_type"]],
        instance_id=record.instance_id,
        n_sites=len(sites(instance)),
        n_points=len(points(instance)),
        p_value=instance["p_value"],
        weight_parameter="- $w_i$: weight of demand point $i$\n" if median else "",
        variables=variables,
        objective=objective,
        extra=extra,
        site_rows=site_rows,
        weight_header=weight_header,
        weight_rule=weight_rule,
        point_rows=point_rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        open_sites_joined=", ".join(solution["open_sites"]),
        assignment_rows=assignment_rows,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    site_lines = "\n".join(f"    ({name!r}, {x}, {y})," for name, x, y in sites(instance))
    point_lines = "\n".join(
        f"    ({name!r}, {x}, {y}, {weight(instance, name)})," for name, x, y in points(instance)
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=instance["variant_type"],
        title=TITLES[instance["variant_type"]],
        p=instance["p_value"],
        sites=site_lines,
        points=point_lines,
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    n_s, n_d = len(sites(instance)), len(points(instance))
    center = not is_median(instance)
    variant = instance["variant_type"]
    return Descriptors(
        regime_tags=(TITLES[variant], "euclidean_distance", f"p_{instance['p_value']}", f"sites_{n_s}"),
        formulation_size={
            "variables": n_s + n_s * n_d + (1 if center else 0),
            "binary_variables": n_s + n_s * n_d,
            "constraints": 1 + n_d + n_s * n_d + (n_d if center else 0),
            "sites": n_s,
            "demand_points": n_d,
            "p": instance["p_value"],
        },
        meta_extra={  # the official release's meta.json fields
            "variant_type": variant,
            "number_of_candidates": n_s,
            "number_of_demand_points": n_d,
            "p_value": instance["p_value"],
            "distance_metric": instance["distance_metric"],
        },
    )
