"""``--shard I/N``: N machines each run a disjoint, balanced share of one run's cases.

Collection order is deterministic (dataset order × setting × sample), so dealing the collected
cases out round-robin gives every shard the same share on every machine (sizes differ by at most
one) and mixes families and difficulties evenly across shards. ``python -m benchmark merge``
combines the shard run folders back into one run (:mod:`benchmark.reporting.merge`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based, as people count machines in a CI matrix."""
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def take(self, items: Sequence[T]) -> list[T]:
        return [item for position, item in enumerate(items) if position % self.count == self.index - 1]


def parse_shard(text: str) -> Shard:
    match = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"cannot read --shard {text!r}: expected I/N with 1 <= I <= N, e.g. --shard 2/3")
    return Shard(int(match.group(1)), int(match.group(2)))
