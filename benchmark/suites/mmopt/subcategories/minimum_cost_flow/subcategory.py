"""The minimum-cost-flow subcategory object: generator stages, renderer, templates and validator."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import LayeredTopology
from benchmark.suites.mmopt.generation.protocol import (
    DerivedArtifacts,
    ExpectedLabel,
    ReferenceSolution,
    RenderedVisual,
    VerifiedRecord,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.minimum_cost_flow import generator, renderer, templates, validator


class MinimumCostFlow:
    """``network_optimization/minimum_cost_flow``: instance ids ``mcf_<e|m|h>_NNN``."""

    family = "network_optimization"
    name = "minimum_cost_flow"
    id_prefix = "mcf"
    version = "minimum_cost_flow/1.0.0"

    def sample_structure(self, rng: random.Random, difficulty: str) -> LayeredTopology:
        return generator.sample_structure(rng, difficulty)

    def instantiate(self, rng: random.Random, structure: Any, difficulty: str) -> dict[str, Any]:
        return generator.instantiate(rng, structure, difficulty)

    def structural_problems(self, instance: Mapping[str, Any], difficulty: str) -> list[str]:
        return generator.structural_problems(instance, difficulty)

    def reference_solve(self, instance: Mapping[str, Any]) -> ReferenceSolution:
        return generator.reference_solve(instance)

    def cross_check(self, instance: Mapping[str, Any]) -> tuple[str, float]:
        return generator.cross_check(instance)

    def solution_problems(
        self, instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
    ) -> list[str]:
        return generator.solution_problems(instance, reference, difficulty)

    def derive(self, record: VerifiedRecord) -> DerivedArtifacts:
        return templates.derive(record)

    def render(self, instance: Mapping[str, Any]) -> list[RenderedVisual]:
        return renderer.render(instance)

    def expected_labels(self, instance: Mapping[str, Any]) -> list[ExpectedLabel]:
        return renderer.expected_labels(instance)

    def visual_values(self, instance: Mapping[str, Any]) -> set[int]:
        return renderer.visual_values(instance)

    def check_solution(self, instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
        return validator.check_solution(instance, solution)
