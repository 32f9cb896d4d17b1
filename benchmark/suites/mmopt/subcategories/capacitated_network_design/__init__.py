"""Capacitated network design on layered directed networks (network_optimization family, ``cnd``).

Visual: the network with "(capacity, unit cost, fixed cost)" on every arc and each node's signed
net supply. The model returns the minimum total cost, the opened arcs and the arc flows, both keyed
``"u_v"`` (single commodity).
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.capacitated_network_design import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="network_optimization",
    name="capacitated_network_design",
    id_prefix="cnd",
    version="capacitated_network_design/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
