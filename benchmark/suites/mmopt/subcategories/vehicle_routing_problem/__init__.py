"""The capacitated vehicle routing problem (routing_tour_optimization family, prefix ``vrp``).

Visuals: a depot-and-customer map (visual_0, no edges, no routes) and a table of coordinates and
demands under the fleet line (visual_1: number of identical vehicles and their capacity). The
travel cost rule is stated in the task text. The model returns the minimum total cost and the routes.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="routing_tour_optimization",
    name="vehicle_routing_problem",
    id_prefix="vrp",
    version="vehicle_routing_problem/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
