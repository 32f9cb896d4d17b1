"""Inventory routing (multi_period_system_planning family, prefix ``irp``).

Visuals: a depot-and-customer map without routes and a figure of tables (coordinates, stocks,
storage, holding costs, demand per customer and period, the vehicle). The model returns the
minimum cost, the trip of every period, the deliveries and the end-of-period inventories.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.inventory_routing_problem import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="multi_period_system_planning",
    name="inventory_routing_problem",
    id_prefix="irp",
    version="inventory_routing_problem/1.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official_problems=validator.official_problems,
)

__all__ = ["SUBCATEGORY"]
