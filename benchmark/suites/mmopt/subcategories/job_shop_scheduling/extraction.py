"""The public record of a job-shop instance: what the operation layout shows (Stage 2 reads it,
oracle-reading hands it over). Generator metadata (regime names, sizes, bottleneck flags) and the
derived operation list are not drawn, so they are not part of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = ("sets", "machine_assignment", "processing_time")


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS}
