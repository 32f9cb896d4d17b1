"""The fine failure taxonomy (MM-OptBench App. F.3, Table 9), decided from evidence.

Every failed sample whose artifact was scored (Stage 1, oracle-reading, verified-extraction) gets
one downstream class from what its artifact did, never from guesswork about intent:

- ``other_code_artifact``: no usable ``solve()`` artifact, or a return value that carries no
  objective (response contract, output format);
- ``execution_level``: the code does not compile, import, run or finish (syntax, dependency,
  runtime, timeout);
- ``structural_modeling``: the code ran and its answer shows that the encoded problem is not the
  instance: returned decisions that violate the instance, an objective better than the verified
  optimum, a reported objective its own decisions do not give, or a claim that an instance with an
  optimum is infeasible or unbounded;
- ``solution_procedure``: decisions that are feasible for the instance with an objective worse than
  the verified optimum (a heuristic, an early stop, a wrong exact procedure);
- ``undecidable``: the evidence does not separate the last two (no decisions to check, no
  validator, an unknown objective sense, a solver status without a solution).

Under ``two_stage`` the top-level split of App. F.3 comes first: a Stage-2 reading mismatch puts
the failure upstream (``upstream_reading``) and an unusable Stage-2 answer keeps it ``unresolved``;
only failures whose extraction matched are counted in the downstream classes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmark.categories import CaseOutcome, ExecutionCategory
from benchmark.schema import CaseRecord
from benchmark.suites.mmopt.detail import MmoptExtra
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.scoring import check_decisions, normalize_result, read_objective, tolerance_for
from benchmark.verdict import Verdict

DOWNSTREAM_CLASSES: tuple[str, ...] = (
    "other_code_artifact",
    "execution_level",
    "structural_modeling",
    "solution_procedure",
    "undecidable",
)
#: Every fine category, in Table 9's order, with the two Stage-2 outcomes that are not downstream.
FINE_CATEGORIES: tuple[str, ...] = ("upstream_reading", *DOWNSTREAM_CLASSES, "unresolved")
FINE_LABELS: dict[str, str] = {
    "upstream_reading": "Upstream reading / extraction",
    "other_code_artifact": "Other code / artifact",
    "execution_level": "Execution-level",
    "structural_modeling": "Structural modeling",
    "solution_procedure": "Solution-procedure / algorithmic",
    "undecidable": "Modeling or procedure (undecidable)",
    "unresolved": "Unresolved (Stage 2 unusable)",
}
#: Table 12's compact labels: modeling/algorithmic merges structural, procedure and undecidable.
COMPACT_GROUP: dict[str, str] = {
    "structural_modeling": "modeling_algorithmic",
    "solution_procedure": "modeling_algorithmic",
    "undecidable": "modeling_algorithmic",
    "execution_level": "runtime",
    "other_code_artifact": "other_code_artifact",
}

_ARTIFACT_CATEGORIES = frozenset({ExecutionCategory.RESPONSE_CONTRACT, ExecutionCategory.OUTPUT_FORMAT})
_EXECUTION_CATEGORIES = frozenset(
    {
        ExecutionCategory.SYNTAX,
        ExecutionCategory.DEPENDENCY,
        ExecutionCategory.RUNTIME,
        ExecutionCategory.TIMEOUT,
    }
)
#: Statuses that say the encoded problem has no optimum; the instance has one, so the model is wrong.
_NO_OPTIMUM_STATUSES = frozenset({"infeasible", "unbounded", "infeasible_or_unbounded", "no_solution"})
_OBJECTIVE_SECTION = re.compile(r"^#+\s*objective\b(?P<body>.*?)(?=^#+\s|\Z)", re.I | re.M | re.S)
_MAX = re.compile(r"\\max\b|\bmax(?:imi[sz]e)?\b", re.I)
_MIN = re.compile(r"\\min\b|\bmin(?:imi[sz]e)?\b", re.I)


@dataclass(frozen=True)
class ArtifactEvidence:
    """The downstream class of a failed artifact and the observation that decided it."""

    failure_class: str
    evidence: str


def objective_sense(math_model: str) -> str | None:
    """``"max"`` or ``"min"`` from the objective section of ``math_model.md`` (the whole text when
    it has no such section); None when neither or both appear first-equal."""
    section = _OBJECTIVE_SECTION.search(math_model)
    text = section.group("body") if section else math_model
    found_max, found_min = _MAX.search(text), _MIN.search(text)
    if found_max and (not found_min or found_max.start() < found_min.start()):
        return "max"
    if found_min:
        return "min"
    return None


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def classify_artifact(
    verdict: Verdict, value: Mapping[str, Any] | None, package: Package
) -> ArtifactEvidence:
    """The Table-9 downstream class of a failed verdict, from the returned value and the validator."""
    category = verdict.category or ""
    if category in _ARTIFACT_CATEGORIES:
        return ArtifactEvidence("other_code_artifact", f"{category}: {_first_line(verdict.detail)}")
    if category in _EXECUTION_CATEGORIES:
        return ArtifactEvidence("execution_level", f"{category}: {_first_line(verdict.detail)}")
    if value is None:
        return ArtifactEvidence("undecidable", f"{category}: no returned value to examine")
    result = normalize_result(value)
    status = str(result.get("status", "")).strip().lower()
    expected = package.expected_objective
    if str(package.solution_ref.get("status", "")).lower() == "infeasible":  # the right answer was to say so
        return ArtifactEvidence(
            "structural_modeling", f"the instance is infeasible but solve() reported {status!r}"
        )
    if status in _NO_OPTIMUM_STATUSES:
        return ArtifactEvidence(
            "structural_modeling",
            f"solve() reported {status!r} for an instance with a verified optimum: "
            "the encoded problem is not the instance",
        )
    _, returned, problem = read_objective(result)
    if problem is not None and status and status not in ("optimal", "feasible"):
        return ArtifactEvidence("undecidable", f"solve() reported status {status!r} and no objective")
    tolerance = tolerance_for(package.subcategory)
    check = check_decisions(package.subcategory, package.instance_data, value)
    feasible: bool | None = None
    objective = returned
    if check is not None:
        if not check.feasible:
            shown = "; ".join(check.problems[:3]) or "infeasible decisions"
            return ArtifactEvidence(
                "structural_modeling", f"returned decisions violate the instance: {shown}"
            )
        feasible = True
        if check.objective is not None:
            objective = check.objective
            if returned is not None and abs(returned - check.objective) > tolerance:
                return ArtifactEvidence(
                    "structural_modeling",
                    f"reported objective {returned:g} but its own decisions give {check.objective:g}",
                )
    if objective is None or expected is None:  # no objective, or a decision instance without one
        return ArtifactEvidence("undecidable", f"{category}: no objective to compare")
    sense = objective_sense(package.math_model)
    if sense is None:
        return ArtifactEvidence("undecidable", "the objective sense is not stated in math_model.md")
    gap = (objective - expected) if sense == "max" else (expected - objective)
    if gap > tolerance:
        return ArtifactEvidence(
            "structural_modeling",
            f"objective {objective:g} is better than the verified optimum {expected:g}: "
            "the encoded problem is a relaxation or a different problem",
        )
    if gap < -tolerance:
        if feasible:
            return ArtifactEvidence(
                "solution_procedure",
                f"feasible decisions with objective {objective:g}, worse than the verified optimum "
                f"{expected:g}",
            )
        return ArtifactEvidence(
            "undecidable",
            f"objective {objective:g} is worse than the optimum {expected:g}, but no validator "
            "checked the decisions",
        )
    return ArtifactEvidence("undecidable", f"{category}: {_first_line(verdict.detail)}")


def fine_category(record: CaseRecord) -> str | None:
    """The Table-9 category of a failed record under its setting's protocol (None if it passed or
    was not scored)."""
    if record.outcome != CaseOutcome.FAILED:
        return None
    extra = MmoptExtra.read(record.extra)
    if extra.attribution == "reading_mismatch":
        return "upstream_reading"
    if extra.attribution == "unresolved":
        return "unresolved"
    failure_class = extra.failure_class
    return failure_class if failure_class in DOWNSTREAM_CLASSES else "undecidable"
