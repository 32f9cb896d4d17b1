"""Resource-constrained shortest path on layered directed networks (network_optimization, ``rcsp``).

Visuals: the network with "(cost, time[, energy])" on every arc and the source and sink tagged
(visual_0), and the resource budgets as a table (visual_1). The model returns the minimum cost, the
path as node names and its arcs keyed ``"u_v"``.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.resource_constrained_shortest_path import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="network_optimization",
    name="resource_constrained_shortest_path",
    id_prefix="rcsp",
    version="resource_constrained_shortest_path/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
