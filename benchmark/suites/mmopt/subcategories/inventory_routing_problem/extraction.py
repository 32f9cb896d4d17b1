"""The public record of an inventory-routing instance: what the map and the tables show (Stage 2
reads it, oracle-reading hands it over). The distance matrix follows from the coordinates and the
stated rule, and generator metadata is not drawn, so neither is part of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = (
    "sets",
    "coordinates",
    "demands",
    "initial_inventory",
    "inventory_capacity",
    "holding_cost",
    "vehicle_capacity",
    "fixed_dispatch_cost",
)


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
