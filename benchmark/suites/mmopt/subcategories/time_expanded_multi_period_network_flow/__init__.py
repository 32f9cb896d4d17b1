"""Time-expanded multi-period network flow (network_optimization family, ``tempnf``).

The official release names this subcategory ``time-expanded_multi-period_network_flow``; a hyphen
cannot appear in a Python package name, so the folder is ``time_expanded_multi_period_network_flow``
while ``name`` (the registry key and the dataset folder) keeps the official spelling.

Visuals: the base network with arc ids and tagged warehouses (visual_0), the per-period arc table
(visual_1), the node table of per-period net supplies (visual_2) and the warehouse table of initial
inventories, storage capacities and per-period holding costs (visual_3). The model returns the
minimum cost, the flows per period and the warehouses' end-of-period inventories.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="network_optimization",
    name="time-expanded_multi-period_network_flow",
    id_prefix="tempnf",
    version="time-expanded_multi-period_network_flow/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
