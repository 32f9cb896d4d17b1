"""The result a script run in the sandbox reports: one JSON object on a line that starts with a tag.

Scripts the harness writes (a solver call on a model file, a glpsol run) print other things too, and
what they print comes back through the sandbox's bounded output; so the result travels on its own
line behind a suite's tag, and the last such line is the one that counts.
"""

from __future__ import annotations

import json
from typing import Any


def tagged_object(stdout: str, tag: str) -> dict[str, Any] | None:
    """The JSON object on the last line of ``stdout`` that starts with ``tag``; None when there is
    no such line or it does not hold a JSON object (a torn or truncated report)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(tag):
            try:
                parsed = json.loads(line[len(tag) :])
            except json.JSONDecodeError:
                return None
            return parsed if isinstance(parsed, dict) else None
    return None
