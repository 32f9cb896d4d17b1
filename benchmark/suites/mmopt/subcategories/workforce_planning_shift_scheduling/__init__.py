"""Workforce planning and shift scheduling (multi_period_system_planning family, prefix ``wpss``).

Visuals: a staffing dashboard (daily total-staff bars, shift definitions, shift × day requirement
heatmap), the worker profile table and the availability matrix (two figures at easy and medium,
three at hard). The model returns the minimum roster cost and the roster.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling import (
    generator,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="multi_period_system_planning",
    name="workforce_planning_shift_scheduling",
    id_prefix="wpss",
    version="workforce_planning_shift_scheduling/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official_answer=validator.official_answer,
)

__all__ = ["SUBCATEGORY"]
