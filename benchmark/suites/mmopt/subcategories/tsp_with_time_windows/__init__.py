"""The travelling salesman problem with time windows (routing_tour_optimization, prefix ``tsptw``).

Visuals: a depot-and-customer map (visual_0, no edges and no tour) and a table of coordinates,
time windows and service times (visual_1). The travel-time rule (Euclidean, rounded to a stated
precision) is stated in the task text. The model returns the minimum total travel time and the
tour from the depot back to it.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="routing_tour_optimization",
    name="tsp_with_time_windows",
    id_prefix="tsptw",
    version="tsp_with_time_windows/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
