"""Job-shop scheduling (scheduling_sequencing family, prefix ``jss``).

Visual: an operation layout (one row per job, blocks with operation, machine and duration in
precedence order; not a Gantt chart). The model returns the minimum makespan and a schedule of
start times.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.job_shop_scheduling import generator, renderer, templates, validator

SUBCATEGORY = ModularSubcategory(
    family="scheduling_sequencing",
    name="job_shop_scheduling",
    id_prefix="jss",
    version="job_shop_scheduling/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
