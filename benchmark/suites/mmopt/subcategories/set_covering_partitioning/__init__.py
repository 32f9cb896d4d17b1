"""Set covering and set partitioning (location_covering_assignment family, prefix ``scp``).

Visual: an incidence matrix, a row per subset with its selection cost, a column per element. The
model returns the minimum total cost and the names of the selected subsets; whether each element
must be covered at least once (covering) or exactly once (partitioning) is stated in the task text
and recorded as ``variant`` in the instance data.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.set_covering_partitioning import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="location_covering_assignment",
    name="set_covering_partitioning",
    id_prefix="scp",
    version="set_covering_partitioning/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
