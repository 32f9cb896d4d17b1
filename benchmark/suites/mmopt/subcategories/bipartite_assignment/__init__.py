"""Bipartite assignment (location_covering_assignment family, prefix ``ba``).

Visual: a worker × task matrix of costs (or values) with forbidden pairs crossed out, its rows split
over several figures when there are many workers. The model
returns the optimal total (minimum cost or maximum value, as the task text says) and the assignment
``{worker: task}``.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.bipartite_assignment import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="location_covering_assignment",
    name="bipartite_assignment",
    id_prefix="ba",
    version="bipartite_assignment/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
