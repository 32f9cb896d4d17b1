"""A subcategory assembled from the modules of its folder.

Every subcategory folder splits its work the same way: ``generator`` (sampling, instantiation,
structural checks, reference solve, cross-check, nontriviality), ``templates`` (the artifacts
derived from the verified record), ``renderer`` (visuals and the labels they must show) and
``validator`` (scoring-time feasibility). :class:`ModularSubcategory` binds those modules to the
:class:`~benchmark.suites.mmopt.generation.protocol.InstanceGenerator` protocol, so a folder's
``__init__.py`` names its modules instead of writing a class that only forwards calls.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from benchmark.suites.mmopt.generation.protocol import (
    DerivedArtifacts,
    ExpectedLabel,
    ReferenceSolution,
    RenderedVisual,
    VerifiedRecord,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck


@dataclass(frozen=True)
class ModularSubcategory:
    family: str
    name: str
    id_prefix: str
    version: str  # bump when the generator's output changes; meta.json records it
    generator: ModuleType
    templates: ModuleType
    renderer: ModuleType
    validator: ModuleType
    #: difficulty → the separator before the number where the official release's ids differ
    official_id_separators: Mapping[str, str] = field(default_factory=dict)

    def sample_structure(self, rng: random.Random, difficulty: str) -> Any:
        return self.generator.sample_structure(rng, difficulty)

    def instantiate(self, rng: random.Random, structure: Any, difficulty: str) -> dict[str, Any]:
        instance: dict[str, Any] = self.generator.instantiate(rng, structure, difficulty)
        return instance

    def structural_problems(self, instance: Mapping[str, Any], difficulty: str) -> list[str]:
        return list(self.generator.structural_problems(instance, difficulty))

    def reference_solve(self, instance: Mapping[str, Any]) -> ReferenceSolution:
        solution: ReferenceSolution = self.generator.reference_solve(instance)
        return solution

    def cross_check(self, instance: Mapping[str, Any]) -> tuple[str, float]:
        method, objective = self.generator.cross_check(instance)
        return method, objective

    def solution_problems(
        self, instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
    ) -> list[str]:
        return list(self.generator.solution_problems(instance, reference, difficulty))

    def derive(self, record: VerifiedRecord) -> DerivedArtifacts:
        artifacts: DerivedArtifacts = self.templates.derive(record)
        return artifacts

    def render(self, instance: Mapping[str, Any]) -> list[RenderedVisual]:
        return list(self.renderer.render(instance))

    def expected_labels(self, instance: Mapping[str, Any]) -> list[ExpectedLabel]:
        return list(self.renderer.expected_labels(instance))

    def visual_values(self, instance: Mapping[str, Any]) -> set[int]:
        return set(self.renderer.visual_values(instance))

    def check_solution(self, instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
        check: SolutionCheck = self.validator.check_solution(instance, solution)
        return check
