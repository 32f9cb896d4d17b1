"""Graph (vertex) colouring (combinatorial_logical family, prefix ``gc``).

Two task variants, as in the official release: *decision* instances ask whether the graph can be
coloured with the k colours shown in the figure (some can, some provably cannot: a feasibility-type
answer, scored on status and on the returned colouring), *optimization* instances ask for the
chromatic number and a colouring that attains it. Visual: the adjacency matrix, and for decision
instances the number of colours available.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.graph_coloring import generator, renderer, templates, validator

SUBCATEGORY = ModularSubcategory(
    family="combinatorial_logical",
    name="graph_coloring",
    id_prefix="gc",
    version="graph_coloring/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
