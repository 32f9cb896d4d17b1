"""The public record of a unit-commitment instance: what the dashboard panels show (Stage 2 reads
it, oracle-reading hands it over). Generator metadata is not drawn, so it is not part of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = (
    "sets",
    "demand",
    "cost",
    "startup_cost",
    "pmin",
    "pmax",
    "min_up",
    "min_down",
    "ramp_up",
    "ramp_down",
    "initial_status",
    "initial_output",
)


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
