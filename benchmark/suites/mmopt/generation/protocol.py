"""The generator plug-in interface: one method per stage of the construction protocol.

MM-OptBench App. D.2 fixes eight stages for every family; :mod:`.pipeline` runs them in order and
this module says what a subcategory must supply for each. A subcategory object (the module-level
``SUBCATEGORY`` of its folder) implements both this protocol and the scoring-time
:class:`~benchmark.suites.mmopt.subcategories.base.Subcategory` validator, so the generator and the
scorer can never disagree about what a feasible solution is: the pipeline runs the validator on the
reference solution before accepting an instance.

A stage that finds a candidate unusable raises :class:`Rejected` (or returns problem strings); the
pipeline counts the reason and samples a fresh candidate. Reasons are generic phrases without
instance numbers so that the counts aggregate into a useful rejection histogram.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from benchmark.suites.mmopt.subcategories.base import Subcategory


class Rejected(Exception):
    """A candidate failed a stage; ``reason`` is the generic phrase counted in the report."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


#: Statuses of a feasibility-type answer (DESIGN §4): the instance asks whether any solution exists
#: (e.g. a colouring with k colours), and the verified answer is the status itself.
FEASIBILITY_STATUSES = frozenset({"feasible", "infeasible"})
ACCEPTED_STATUSES = frozenset({"optimal"}) | FEASIBILITY_STATUSES


def answer_value(solution: Mapping[str, Any]) -> float | None:
    """The verified answer as one number, so reference, cross-check and re-solve compare alike: the
    optimum, or for a feasibility-type answer 1.0 (a solution exists) or 0.0 (none exists)."""
    status = str(solution.get("status", "")).lower()
    if status in FEASIBILITY_STATUSES:
        return 1.0 if status == "feasible" else 0.0
    value = solution.get("objective_value")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ReferenceSolution:
    """The certified optimum of a candidate, in exactly the ``solution_ref.json`` shape.

    ``solution`` holds status, objective_value, objective_exact (when the optimum is integral) and
    the family's decisions; ``method`` names the exact solver for the provenance record.
    """

    solution: dict[str, Any]
    method: str

    @property
    def objective(self) -> float:
        value = answer_value(self.solution)
        if value is None:
            raise ValueError(
                "reference solution has neither a numeric objective_value nor a feasibility status"
            )
        return value

    @property
    def is_feasibility_type(self) -> bool:
        return str(self.solution.get("status", "")).lower() in FEASIBILITY_STATUSES


@dataclass(frozen=True)
class ExpectedLabel:
    """A public value the visual must show: ``key`` names the element (``"arc:1_3"``), ``text`` is
    the exact string the renderer must draw for it."""

    key: str
    text: str


@dataclass(frozen=True)
class DrawnLabel:
    """A text the renderer drew, as the quality checks see it.

    ``bbox`` is ``(x0, y0, x1, y1)`` in pixels of the saved PNG (origin top left), including any
    background box, so overlap tests match what a reader sees.
    """

    key: str
    text: str
    bbox: tuple[float, float, float, float]
    fontsize_pt: float


@dataclass(frozen=True)
class RenderedVisual:
    """One PNG (``visual_<index>.png``) and the labels drawn on it."""

    png: bytes
    labels: tuple[DrawnLabel, ...]
    width_px: int
    height_px: int


@dataclass(frozen=True)
class VerifiedRecord:
    """The one source of truth every artifact of a package is derived from (App. D.1.4)."""

    instance_id: str
    family: str
    subcategory: str
    difficulty: str
    seed: int
    attempt: int
    generator_version: str
    instance: dict[str, Any]
    reference: ReferenceSolution
    cross_check_method: str
    cross_check_objective: float


@dataclass(frozen=True)
class DerivedArtifacts:
    """The text artifacts and descriptors a generator derives from a :class:`VerifiedRecord`.

    ``meta_extra`` is merged into ``meta.json`` (e.g. solver names); it must hold no runtimes or
    timestamps, since regeneration has to reproduce every JSON byte for byte.
    """

    task_input: str
    canonical_specification: str
    math_model: str
    solver_ref: str
    regime_tags: tuple[str, ...]
    formulation_size: dict[str, int]
    meta_extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Descriptors:
    """What a subcategory's templates say about a verified record besides its texts: the regime
    tags, the formulation size and the ``meta.json`` fields of its own (each subcategory counts
    and tags different things, so this is the per-folder hook of the shared
    :meth:`~benchmark.suites.mmopt.generation.modular.ModularSubcategory.derive`)."""

    regime_tags: tuple[str, ...]
    formulation_size: dict[str, int]
    meta_extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class InstanceGenerator(Subcategory, Protocol):
    """What a subcategory supplies so that :mod:`.pipeline` can build its instances.

    Every method is deterministic given its ``rng``; none may touch global random state.
    """

    version: str  # bump when the generator's output changes, so meta.json records which rules made it

    def sample_structure(self, rng: random.Random, difficulty: str) -> Any:
        """Stage 2: the discrete structure (topology, layout …) for the difficulty regime."""
        ...

    def instantiate(self, rng: random.Random, structure: Any, difficulty: str) -> dict[str, Any]:
        """Stage 3: numerical parameters on the structure → the public ``instance_data`` dict."""
        ...

    def structural_problems(self, instance: Mapping[str, Any], difficulty: str) -> list[str]:
        """Stage 4: validity and regime checks before solving; an empty list means the candidate passes."""
        ...

    def reference_solve(self, instance: Mapping[str, Any]) -> ReferenceSolution:
        """Stage 5: exact solve with an optimality certificate; raise :class:`Rejected` otherwise."""
        ...

    def cross_check(self, instance: Mapping[str, Any]) -> tuple[str, float]:
        """Stage 5b: (method name, optimal objective) by an independent method."""
        ...

    def solution_problems(
        self, instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
    ) -> list[str]:
        """Stage 8 nontriviality judged on the verified optimum (e.g. binding capacities)."""
        ...

    def derive(self, record: VerifiedRecord) -> DerivedArtifacts:
        """Stage 6: task text, specification, model and solver source from the verified record."""
        ...

    def render(self, instance: Mapping[str, Any]) -> list[RenderedVisual]:
        """Stage 7: the visuals, drawn from public instance data only (never the solution)."""
        ...

    def expected_labels(self, instance: Mapping[str, Any]) -> list[ExpectedLabel]:
        """Every public value the visual must carry, for the drawn-label audit."""
        ...

    def visual_values(self, instance: Mapping[str, Any]) -> set[int]:
        """Numbers the reader must take from the visual; none may appear in the task text."""
        ...
