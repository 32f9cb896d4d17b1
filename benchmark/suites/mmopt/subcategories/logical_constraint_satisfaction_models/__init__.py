"""Logical constraint satisfaction models (combinatorial_logical family, prefix ``lcsm``).

A pure feasibility problem in the official release's schema: Boolean variables, CNF clauses,
implications, at-most-one groups and (medium, hard) at-most-k cardinality rows; hard instances
also embed an all-different block (tasks given pairwise different slots, one-hot encoded). Both
satisfiable and unsatisfiable instances are shipped: the answer is a status, and a satisfying
assignment when one exists (DESIGN §4). Visual: the clause-variable matrix, split into panels
when it has many rows (App. E.6).
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="combinatorial_logical",
    name="logical_constraint_satisfaction_models",
    id_prefix="lcsm",
    version="logical_constraint_satisfaction_models/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
