"""Resource-constrained project scheduling (scheduling_sequencing family, prefix ``rcpsp``).

Visuals: the precedence network (``visual_0.png``) and the resource-demand panel
(``visual_1.png``). The model returns the minimum makespan and the activity start times.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.rcpsp import generator, renderer, templates, validator

SUBCATEGORY = ModularSubcategory(
    family="scheduling_sequencing",
    name="rcpsp",
    id_prefix="rcpsp",
    version="rcpsp/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
)

__all__ = ["SUBCATEGORY"]
