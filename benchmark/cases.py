"""What a case is: one (suite, instance, setting, sample) tuple, and its stable names.

Every name derived here is a contract: the case key keys result records, replay files and resume;
the test id is what ``-k`` matches and what JUnit dashboards show. Both are pure functions of the
case, so every xdist worker derives the same ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class InstanceRef:
    """An instance a suite offers, cheap to list (read from a manifest, not from the package).

    ``path`` is the instance's place in the suite's taxonomy, e.g.
    ``("network_optimization", "maximum_flow", "easy", "mf_e_001")``; ``labels`` carries the named
    parts (family, subcategory, difficulty, instance_id, or a suite's own) for reports and markers.
    """

    suite: str
    path: tuple[str, ...]
    labels: Mapping[str, str]
    location: Path

    @property
    def key(self) -> str:
        return "/".join((self.suite, *self.path))


@dataclass(frozen=True)
class Case:
    """One pytest item: an instance under a setting, sampled once at a given temperature."""

    instance: InstanceRef
    setting: str
    sample: int
    temperature: float
    markers: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        """``mmopt/network_optimization/maximum_flow/easy/mf_e_001/stage1/s0``."""
        return f"{self.instance.key}/{self.setting}/s{self.sample}"

    @property
    def test_id(self) -> str:
        """``mmopt/network_optimization/maximum_flow/easy/mf_e_001-stage1-s0``: what ``-k`` sees."""
        return f"{self.instance.key}-{self.setting}-s{self.sample}"

    @property
    def suite(self) -> str:
        return self.instance.suite

    def label(self, name: str) -> str | None:
        return self.instance.labels.get(name)
