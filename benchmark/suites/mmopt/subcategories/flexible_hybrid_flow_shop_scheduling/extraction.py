"""The public record of a flexible flow-shop instance: what the stage panel, the processing-time
matrix and (at hard) the eligibility matrix show. Derived loads and metadata are not drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PUBLIC_FIELDS = ("sets", "common_stage_order", "processing_time", "eligible_machines")


def public_record(instance: Mapping[str, Any]) -> dict[str, Any]:
    return {field: instance[field] for field in PUBLIC_FIELDS if field in instance}
