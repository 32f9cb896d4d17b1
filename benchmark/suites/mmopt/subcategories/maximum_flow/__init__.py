"""Maximum flow on layered directed networks (network_optimization family, prefix ``mf``).

Visual: the network with a capacity on every arc and the source and sink tagged. The model returns
the flow value, the arc flows keyed ``"u_v"`` and a minimum cut (``min_cut_S``/``min_cut_T``).
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.maximum_flow import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="network_optimization",
    name="maximum_flow",
    id_prefix="mf",
    version="maximum_flow/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
