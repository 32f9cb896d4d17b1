"""The rules of a workforce roster, read from an instance in the official release's schema.

One place says which horizon rules an instance has, so the generator's models, the scoring
validator and the templates agree: the regular shift cap with overtime, the Night-shift limit and
the consecutive-day limit apply when the instance lists them (medium and hard; an easy official
instance has none), the rest rule (no Day shift right after a Night shift) only when its
``constraint_flags`` entry says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NIGHT, DAY = "N", "D"


@dataclass(frozen=True)
class Rules:
    overtime: bool
    night_limit: bool
    consecutive: bool
    rest_rule: bool


def rules(instance: Mapping[str, Any]) -> Rules:
    flags = instance.get("constraint_flags") or {}
    return Rules(
        overtime="regular_shift_limit" in instance and "overtime_cost" in instance,
        night_limit="max_night_shifts" in instance and flags.get("night_limit", True) is not False,
        consecutive="max_consecutive_days" in instance and flags.get("consecutive", True) is not False,
        rest_rule=bool(flags.get("rest_rule", False)),
    )


def allowed(instance: Mapping[str, Any], worker: str, day: str) -> list[str]:
    """The shifts ``worker`` may take on ``day`` (its availability code read through the legend)."""
    code = instance["availability_code"][worker][day]
    return list(instance["availability_legend"][code])


def windows(instance: Mapping[str, Any], worker: str) -> list[list[str]]:
    """Every run of (limit + 1) consecutive days: at most ``limit`` of them may be worked."""
    days = instance["sets"]["days"]
    span = int(instance["max_consecutive_days"][worker]) + 1
    return [days[k : k + span] for k in range(len(days) - span + 1)]
