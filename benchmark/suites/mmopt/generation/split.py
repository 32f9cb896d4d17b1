"""Held-out splits: a fresh MM-OptBench set from seeds disjoint from the shipped ones.

When the public packages may have leaked into a model's training data, a user generates a split
of their own (``python -m benchmark generate --split NAME --seed-base N --out DIR``): every
registered generator, the same construction protocol and checks, new instances. The split's
seeds are disjoint from the shipped ones by construction, not by luck: a shipped seed is a 63-bit
digest (below 2^63, see :func:`~.seeds.instance_seed`), a split seed sets bit 63 on top of a digest
of (name, seed base, subcategory, difficulty, index). The same name and seed base always give the
same seeds, hence byte-identical packages; another name or seed base gives another split.

Each package's ``meta.json`` records the split (``"split": {"name", "seed_base"}``) and a dataset
version of its own, ``<shipped version>+split.<name>.<seed base>``, which the manifest carries too
and the run manifest reports when ``pytest --dataset DIR`` runs the split.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmark.suites.mmopt.generation.seeds import digest_int

SPLIT_SEED_FLAG = 1 << 63  # every shipped seed is below this, every split seed at or above it
DEFAULT_PER_DIFFICULTY = 2
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


@dataclass(frozen=True)
class Split:
    """A named held-out split; ``seed_base`` lets one name be drawn afresh (a new base, new seeds)."""

    name: str
    seed_base: int

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(
                f"split name {self.name!r}: use 1-40 lower-case letters, digits, '-' or '_', "
                "starting with a letter or digit"
            )
        if isinstance(self.seed_base, bool) or not isinstance(self.seed_base, int) or self.seed_base < 0:
            raise ValueError(f"split seed base {self.seed_base!r}: use a non-negative integer")

    def version(self, base_version: str) -> str:
        """The split's dataset version: the generator release it was drawn with, and the split."""
        return f"{base_version}+split.{self.name}.{self.seed_base}"

    def seed(self, subcategory: str, difficulty: str, index: int) -> int:
        """The seed of the ``index``-th (1-based) instance of a subcategory and difficulty."""
        key = f"mmopt-split/{self.name}/{self.seed_base}/{subcategory}/{difficulty}/{index}"
        return SPLIT_SEED_FLAG | digest_int(key)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "seed_base": self.seed_base}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Split:
        return cls(name=str(data["name"]), seed_base=data["seed_base"])


def is_split_seed(seed: int) -> bool:
    return seed >= SPLIT_SEED_FLAG
