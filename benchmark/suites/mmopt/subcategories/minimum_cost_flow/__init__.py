"""Minimum-cost flow on layered directed networks (network_optimization family, prefix ``mcf``).

Visual: the network with "(capacity, cost)" on every arc and each node's signed net supply. The
model returns the minimum total cost and the arc flows keyed ``"u_v"``.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.minimum_cost_flow import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="network_optimization",
    name="minimum_cost_flow",
    id_prefix="mcf",
    version="minimum_cost_flow/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
