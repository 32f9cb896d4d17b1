"""Generalized assignment (location_covering_assignment family, prefix ``gap``).

Visuals: an agent × job cost table and an agent × job resource-use table with agent capacities (one
figure, or one per table for wide instances). The model returns the minimum total cost and the
assignment ``{job: agent}``.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="location_covering_assignment",
    name="generalized_assignment_problem",
    id_prefix="gap",
    version="generalized_assignment_problem/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
