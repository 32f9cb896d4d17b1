"""The public record of a roster instance: what the staffing panel, the worker profiles and the
availability matrix show (Stage 2 reads it, oracle-reading hands it over). Index maps, the code
legend (written as a note, not data), and generator metadata are not part of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = (
    "sets",
    "shift_time_window",
    "demand",
    "shift_cost",
    "regular_shift_limit",
    "overtime_cost",
    "max_night_shifts",
    "max_consecutive_days",
    "availability_code",
)


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
