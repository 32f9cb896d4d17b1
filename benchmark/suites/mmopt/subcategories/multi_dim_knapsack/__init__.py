"""The multi-dimensional knapsack problem (combinatorial_logical family, prefix ``mdkp``).

Visual: the resource matrix, a column per item with its value and its use of every resource, and
the capacity of each resource. The model returns the maximum total value and the selected items.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.multi_dim_knapsack import generator, renderer, templates, validator

SUBCATEGORY = ModularSubcategory(
    family="combinatorial_logical",
    name="multi_dim_knapsack",
    id_prefix="mdkp",
    version="multi_dim_knapsack/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
