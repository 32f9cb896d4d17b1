"""Canonical JSON text, so that regeneration can be compared byte for byte."""

from __future__ import annotations

import json
from typing import Any


def dumps_canonical(value: Any) -> str:
    """Sorted keys, two-space indent, ASCII only, one trailing newline."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=True) + "\n"
