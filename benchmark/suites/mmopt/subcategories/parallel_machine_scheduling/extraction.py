"""The public record of a parallel-machine instance: what the table shows (Stage 2 reads it,
oracle-reading hands it over). Base times, speeds, weights and generator metadata are not drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = ("sets", "eligibility", "effective_processing_time", "setup_time", "release_time")


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
