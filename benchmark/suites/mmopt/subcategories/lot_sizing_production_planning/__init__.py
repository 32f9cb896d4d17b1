"""Capacitated lot sizing and production planning (multi_period_system_planning family, prefix ``lspp``).

Visuals: a demand grid with the shared capacity row and a cost table (one figure at easy, two
otherwise). The model returns the minimum cost and the production, inventory and setup plans.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="multi_period_system_planning",
    name="lot_sizing_production_planning",
    id_prefix="lspp",
    version="lot_sizing_production_planning/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
