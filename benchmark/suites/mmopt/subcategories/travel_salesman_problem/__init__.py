"""The travelling salesman problem (routing_tour_optimization family, prefix ``tsp``).

Visuals: a city map (visual_0, no edges and no tour) and a coordinate table (visual_1). The travel
cost rule (Euclidean, rounded to a stated precision or exact) is stated in the task text. The model
returns the minimum tour cost and the tour as a list of city names from the start city back to it.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.travel_salesman_problem import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="routing_tour_optimization",
    name="travel_salesman_problem",
    id_prefix="tsp",
    version="travel_salesman_problem/1.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
