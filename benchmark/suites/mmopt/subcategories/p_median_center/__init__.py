"""p-median / p-center on a spatial map (location_covering_assignment family, prefix ``pmc``).

p-median (total weighted distance) at easy and medium, p-center (largest distance) at hard; the
variant is named in the task text and in ``instance_data.json``. Visuals: a site map and a data
table that also states p. The model returns the optimum, the selected sites and the point → site
assignment.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.p_median_center import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="location_covering_assignment",
    name="p_median_center",
    id_prefix="pmc",
    version="p_median_center/3.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
)

__all__ = ["SUBCATEGORY"]
