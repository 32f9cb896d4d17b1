"""Facility location on a spatial map (location_covering_assignment family, prefix ``fl``).

Uncapacitated at easy, capacitated single-source with tighter coverage at medium and hard (App.
D.3). Visuals: a coverage map and a data table. The model returns the minimum total cost, the open
facilities and the customer → facility assignment.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.subcategories.facility_location import (
    generator,
    official,
    renderer,
    templates,
    validator,
)

SUBCATEGORY = ModularSubcategory(
    family="location_covering_assignment",
    name="facility_location",
    id_prefix="fl",
    version="facility_location/2.0.0",
    generator=generator,
    templates=templates,
    renderer=renderer,
    validator=validator,
    official=official,
    official_id_separators={"hard": "__"},  # the official release's hard ids are fl_h__001 …
)

__all__ = ["SUBCATEGORY"]
