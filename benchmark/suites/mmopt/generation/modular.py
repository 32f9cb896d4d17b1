"""A subcategory assembled from the modules of its folder.

Every subcategory folder splits its work the same way: ``generator`` (sampling, instantiation,
structural checks, reference solve, cross-check, nontriviality), ``templates`` (the artifacts
derived from the verified record), ``renderer`` (visuals and the labels they must show) and
``validator`` (scoring-time feasibility), and optionally ``official`` (the release's rules).
:class:`ModularSubcategory` binds those modules to the
:class:`~benchmark.suites.mmopt.generation.protocol.InstanceGenerator` protocol, so a folder's
``__init__.py`` names its modules instead of writing a class that only forwards calls. Each field
is typed with the protocol of :mod:`.contracts` it must satisfy, so mypy names a hook a folder
omits, and :meth:`ModularSubcategory.__post_init__` refuses such a folder at registration.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmark.suites.mmopt.generation.contracts import (
    GeneratorModule,
    RendererModule,
    TemplatesModule,
    ValidatorModule,
)
from benchmark.suites.mmopt.generation.protocol import (
    DerivedArtifacts,
    ExpectedLabel,
    ReferenceSolution,
    RenderedVisual,
    VerifiedRecord,
)
from benchmark.suites.mmopt.subcategories.base import (
    OfficialAnswer,
    OfficialProblems,
    OfficialRules,
    SolutionCheck,
    missing_members,
)


@dataclass(frozen=True)
class ModularSubcategory:
    family: str
    name: str
    id_prefix: str
    version: str  # bump when the generator's output changes; meta.json records it
    generator: GeneratorModule
    templates: TemplatesModule
    renderer: RendererModule
    validator: ValidatorModule
    #: the release's scoring rules, for a subcategory whose instances may be in its schema
    official: OfficialRules | None = None
    #: the answer narrowed to what the release's scorer reads (``--scoring=official``)
    official_answer: OfficialAnswer | None = None
    #: what the release's scorer also rejects in an answer the validator accepts
    official_problems: OfficialProblems | None = None
    #: difficulty → the separator before the number where the official release's ids differ
    official_id_separators: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Refuse a folder whose modules lack a hook, naming it: mypy sees only the folders it
        checks, this sees every folder that registers."""
        parts: list[tuple[str, object, type]] = [
            ("generator", self.generator, GeneratorModule),
            ("templates", self.templates, TemplatesModule),
            ("renderer", self.renderer, RendererModule),
            ("validator", self.validator, ValidatorModule),
        ]
        if self.official is not None:
            parts.append(("official", self.official, OfficialRules))
        gaps = [
            f"{role} {getattr(part, '__name__', type(part).__name__)} lacks {', '.join(missing)}"
            for role, part, protocol in parts
            if (missing := missing_members(part, protocol))
        ]
        if gaps:
            raise TypeError(f"subcategory {self.name!r}: " + "; ".join(gaps))

    def rules_for(self, instance: Mapping[str, Any]) -> OfficialRules | None:
        """The official rules when ``instance`` is in their schema, else None: its validator
        scores it. The one place the choice is made, in this order: the rules declared by the
        folder, asked by their own ``reads``; the validator for everything else."""
        if self.official is not None and self.official.reads(instance):
            return self.official
        return None

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
        """The one assembly of a package's texts: the folder's four text hooks and its
        :class:`~.protocol.Descriptors` (tags, formulation size, meta fields), which differ per
        subcategory and so stay in its ``templates``."""
        descriptors = self.templates.describe(record)
        return DerivedArtifacts(
            task_input=self.templates.task_input(record),
            canonical_specification=self.templates.canonical_specification(record),
            math_model=self.templates.math_model(record),
            solver_ref=self.templates.solver_ref(record),
            regime_tags=descriptors.regime_tags,
            formulation_size=descriptors.formulation_size,
            meta_extra=descriptors.meta_extra,
        )

    def render(self, instance: Mapping[str, Any]) -> list[RenderedVisual]:
        return list(self.renderer.render(instance))

    def expected_labels(self, instance: Mapping[str, Any]) -> list[ExpectedLabel]:
        return list(self.renderer.expected_labels(instance))

    def visual_values(self, instance: Mapping[str, Any]) -> set[int]:
        return set(self.renderer.visual_values(instance))

    def check_solution(self, instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
        check: SolutionCheck = self.validator.check_solution(instance, solution)
        return check
