"""Maximum flow on layered directed networks (network_optimization family, prefix ``mf``).

Visual: the network with a capacity on every arc and the source and sink tagged. The model returns
the flow value, the arc flows keyed ``"u_v"`` and a minimum cut (``min_cut_S``/``min_cut_T``).
"""

from __future__ import annotations

from benchmark.suites.mmopt.subcategories.maximum_flow.subcategory import MaximumFlow

SUBCATEGORY = MaximumFlow()

__all__ = ["SUBCATEGORY", "MaximumFlow"]
