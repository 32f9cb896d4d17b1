"""The public record of a lot-sizing instance: what the demand grid and the cost table show (Stage 2
reads it, oracle-reading hands it over). ``big_m`` (a modelling constant) and generator metadata are
not drawn, so they are not part of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = (
    "sets",
    "demand",
    "capacity",
    "production_cost",
    "holding_cost",
    "setup_cost",
    "setup_time",
    "initial_inventory",
)


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
