"""Minimum-cost flow on layered directed networks (network_optimization family, prefix ``mcf``).

Visual: the network with "(capacity, cost)" on every arc and each node's signed net supply. The
model returns the minimum total cost and the arc flows keyed ``"u_v"``.
"""

from __future__ import annotations

from benchmark.suites.mmopt.subcategories.minimum_cost_flow.subcategory import MinimumCostFlow

SUBCATEGORY = MinimumCostFlow()

__all__ = ["SUBCATEGORY", "MinimumCostFlow"]
