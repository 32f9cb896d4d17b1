"""Flexible / hybrid flow-shop scheduling (scheduling_sequencing family, prefix ``fhfss``).

The official release names this subcategory ``flexible_hybrid_flow-shop_scheduling``; a hyphen
cannot appear in a Python package name, so the folder is ``flexible_hybrid_flow_shop_scheduling``
while ``name`` (the registry key and the dataset folder) keeps the official spelling;
:func:`benchmark.suites.mmopt.subcategories.folder_module` ties the two.

Visuals: the stage architecture (stages in order, each with its parallel machines), the
processing-time matrix and, at hard, the job × machine eligibility matrix. The model returns the
minimum makespan, the machine of every job at every stage and the start times.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="scheduling_sequencing",
    name="flexible_hybrid_flow-shop_scheduling",
    id_prefix="fhfss",
    version="flexible_hybrid_flow-shop_scheduling/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
