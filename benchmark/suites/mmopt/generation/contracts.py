"""What each module of a subcategory folder must provide, as protocols a type checker can see.

A folder's ``__init__.py`` binds its modules into a
:class:`~benchmark.suites.mmopt.generation.modular.ModularSubcategory`, whose fields are typed with
these protocols: mypy accepts a module where a protocol is expected and reports a missing or
mistyped function by name (``Argument "templates" ... "describe" has incompatible type``), and
:func:`~benchmark.suites.mmopt.subcategories.base.missing_members` repeats that check at
registration for a folder the checker never saw.

Parameters are positional-only, so a module may name them as it likes. The optional parts are
protocols or callables of their own: the known-cause planting and the Stage-2 public record here,
the official release's rules and its reading of an answer in
:mod:`benchmark.suites.mmopt.subcategories.base` (the scorer's side, which must not import the
generation package); a folder that has one declares it, and the caller has the default for the
others.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from benchmark.suites.mmopt.subcategories.base import SolutionCheck

if TYPE_CHECKING:
    from benchmark.suites.mmopt.generation.protocol import (
        Descriptors,
        ExpectedLabel,
        ReferenceSolution,
        RenderedVisual,
        VerifiedRecord,
    )
    from benchmark.suites.mmopt.package import Package


class GeneratorModule(Protocol):
    """Stages 2-5 and 8 of the construction protocol (:mod:`..generation.protocol`)."""

    def sample_structure(self, rng: random.Random, difficulty: str, /) -> Any: ...

    def instantiate(self, rng: random.Random, structure: Any, difficulty: str, /) -> dict[str, Any]: ...

    def structural_problems(self, instance: Mapping[str, Any], difficulty: str, /) -> list[str]: ...

    def reference_solve(self, instance: Mapping[str, Any], /) -> ReferenceSolution: ...

    def cross_check(self, instance: Mapping[str, Any], /) -> tuple[str, float]: ...

    def solution_problems(
        self, instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str, /
    ) -> list[str]: ...


class TemplatesModule(Protocol):
    """Stage 6: the package's texts and descriptors, from the verified record.

    The four texts and :meth:`describe` are what differs between subcategories; the shared
    :meth:`~benchmark.suites.mmopt.generation.modular.ModularSubcategory.derive` assembles them."""

    def task_input(self, record: VerifiedRecord, /) -> str: ...

    def canonical_specification(self, record: VerifiedRecord, /) -> str: ...

    def math_model(self, record: VerifiedRecord, /) -> str: ...

    def solver_ref(self, record: VerifiedRecord, /) -> str: ...

    def describe(self, record: VerifiedRecord, /) -> Descriptors: ...


class RendererModule(Protocol):
    """Stage 7: the visuals and what the drawn-label and text audits read off them."""

    def render(self, instance: Mapping[str, Any], /) -> list[RenderedVisual]: ...

    def expected_labels(self, instance: Mapping[str, Any], /) -> list[ExpectedLabel]: ...

    def visual_values(self, instance: Mapping[str, Any], /) -> set[int]: ...


class ValidatorModule(Protocol):
    """Scoring-time feasibility of returned decisions (also run on every reference at generation)."""

    def check_solution(
        self, instance: Mapping[str, Any], solution: Mapping[str, Any], /
    ) -> SolutionCheck: ...


class PlantingModule(Protocol):
    """A folder's own known-cause answers (:mod:`benchmark.suites.mmopt.planting`): the data-level
    causes built from its reference model, and the effect a misread must have."""

    MISREAD_EFFECT: tuple[str, str]

    def misread(self, package: Package, /) -> tuple[str, dict[str, Any]]: ...

    def drop_constraint(self, package: Package, /) -> str: ...

    def heuristic(self, package: Package, /) -> str: ...


class ExtractionModule(Protocol):
    """The Stage-2 public record of an instance whose ``instance_data.json`` holds more than the
    model may be shown (:mod:`benchmark.suites.mmopt.stage2`)."""

    def public_record(self, instance: Mapping[str, Any], /) -> dict[str, Any]: ...
