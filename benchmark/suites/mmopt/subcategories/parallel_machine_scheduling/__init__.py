"""Parallel-machine scheduling (scheduling_sequencing family, prefix ``pms``).

Visual: a job × machine table of processing times with eligibility (a dash where a machine may not
run a job), plus a setup column at medium and hard and a release column where an instance has
release times; the hard tier's 42-54 job rows are split over several figures. The model returns the
minimum makespan, the job → machine assignment and the schedule.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="scheduling_sequencing",
    name="parallel_machine_scheduling",
    id_prefix="pms",
    version="parallel_machine_scheduling/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official_problems=validator.official_problems,
)

__all__ = ["SUBCATEGORY"]
