"""Weighted set packing (combinatorial_logical family, prefix ``sp``).

Visual: the incidence matrix, a row per candidate group with its weight, a column per item. The
model returns the maximum total weight of pairwise disjoint groups and the groups chosen.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.set_packing import generator, renderer, templates, validator

SUBCATEGORY = ModularSubcategory(
    family="combinatorial_logical",
    name="set_packing",
    id_prefix="sp",
    version="set_packing/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
