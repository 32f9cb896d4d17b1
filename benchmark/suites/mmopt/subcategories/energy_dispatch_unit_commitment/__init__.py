"""Energy dispatch and unit commitment (multi_period_system_planning family, prefix ``educ``).

Visuals: a dashboard of an economics table, a demand timeline and output-range bands, in one
figure at easy, two at medium and three at hard (App. E.4). The model returns the minimum cost and
the generation, commitment and startup plans.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="multi_period_system_planning",
    name="energy_dispatch_unit_commitment",
    id_prefix="educ",
    version="energy_dispatch_unit_commitment/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
