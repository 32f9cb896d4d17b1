"""The heterogeneous-fleet vehicle routing problem (routing_tour_optimization, prefix ``hfvrp``).

Visuals: a depot-and-customer map (visual_0, no edges, no routes) and the customer and fleet
tables (visual_1: per vehicle type the number available, capacity, fixed activation cost and cost
per unit of distance). The base-distance rule is stated in the task text. The model returns the
minimum total cost, the routes and the vehicle that drives each.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="routing_tour_optimization",
    name="heterogeneous_fleet_vrp",
    id_prefix="hfvrp",
    version="heterogeneous_fleet_vrp/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
