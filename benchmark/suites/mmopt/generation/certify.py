"""Certifying a release's reference solutions with our own solvers (issue 26 item 4).

The official release solved each package once, with one solver, and ships no runnable
``solver_ref.py``; an oracle run on it replays ``solution_ref.json`` and so tests no solver. A
second method is ours: for every package, the subcategory's validator checks the reference's
decisions and recomputes their objective, and the subcategory's exact reference model re-solves
the instance. The certificate says, beside the official objective, whether the reference is

``optimal``
    feasible, its objective as recomputed and as reported agree, and our optimum equals it;
``not optimal``
    feasible, but our exact model finds another optimum whose decisions our validator accepts
    under the instance's own rules (a planted or a wrong reference, or two methods that disagree:
    either way a finding);
``misreported``
    feasible, but the objective it reports is not what its decisions give;
``infeasible``
    the validator rejects its decisions;
``not certified``
    our model cannot solve the instance (it is refused by name, it raised, it ran past the budget,
    or its answer does not hold under the instance's rules, the release's stricter readings
    included: a variant we do not model, such as weighted colours, total completion time or the
    release's ramp limits on start-ups), so only the validator's verdict stands.

A package is recognised as a release package by its ``meta.json`` lacking our generator's fields
(or by having none); our own packages go through the full validation stack instead.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmark.cases import InstanceRef
from benchmark.suites.mmopt.generation.protocol import FEASIBILITY_STATUSES, InstanceGenerator
from benchmark.suites.mmopt.package import SCORING_FILES, load_package, reference_value
from benchmark.suites.mmopt.scoring import tolerance_for
from benchmark.suites.mmopt.subcategories import get_subcategory

#: Verdicts that make the validation fail (the others are findings or a limit of ours).
FAILING = ("not optimal", "misreported", "infeasible")


def is_release_package(meta: Mapping[str, Any]) -> bool:
    """Whether a package's ``meta.json`` is not one our generator wrote (the release's, or none)."""
    return "generator_version" not in meta or "checksums" not in meta


@dataclass(frozen=True)
class Certificate:
    """Our second method's verdict on one release package's ``solution_ref.json``."""

    package: str
    official: float | None  # the release's objective (1.0 / 0.0 for a feasibility status)
    recomputed: float | None  # the objective our validator recomputes from its decisions
    ours: float | None  # our exact model's optimum (None when not certified)
    verdict: str
    note: str
    seconds: float

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def row(self) -> str:
        def show(value: float | None) -> str:
            return "-" if value is None else f"{value:g}"

        return (
            f"| {self.package} | {show(self.official)} | {show(self.recomputed)} | {show(self.ours)} "
            f"| {self.verdict} | {self.note} | {self.seconds:.1f} |"
        )


TABLE_HEADER = (
    "| package | official objective | recomputed from its decisions | our optimum | certificate | note | s |",
    "|---|---|---|---|---|---|---|",
)


def _answer(solution: Mapping[str, Any]) -> float | None:
    status = str(solution.get("status", "")).lower()
    if status in FEASIBILITY_STATUSES:
        return 1.0 if status == "feasible" else 0.0
    return reference_value(dict(solution))


def certify_package(ref: InstanceRef, budget_s: float) -> Certificate:
    """Check one release package's reference with our validator and our exact model.

    A damaged package raises :class:`~benchmark.verdict.DatasetError` (the caller reports it)."""
    started = time.perf_counter()
    label = "/".join(ref.path)
    package = load_package(ref, SCORING_FILES)
    instance, solution = package.instance_data, package.solution_ref
    official = _answer(solution)
    tolerance = tolerance_for(package.subcategory)

    def done(
        verdict: str, note: str, recomputed: float | None = None, ours: float | None = None
    ) -> Certificate:
        line = " ".join(note.split())  # one table cell
        line = line if len(line) <= 160 else line[:159] + "…"
        return Certificate(label, official, recomputed, ours, verdict, line, time.perf_counter() - started)

    subcategory = get_subcategory(package.subcategory)
    if subcategory is None:
        return done("not certified", f"no plug-in for {package.subcategory}")
    try:
        check = subcategory.check_solution(instance, solution)
    except Exception as exc:  # damaged data trips the validator: a finding, not a crash
        return done("infeasible", f"the validator raised {type(exc).__name__}: {exc}")
    # the release's own readings where they are stricter than ours: what --scoring=official also
    # rejects (a validator's ``official_problems``) and rules of the release's model that our own
    # packages do not follow (``release_problems``)
    module = getattr(subcategory, "validator", None)
    release_rules = [
        rule for name in ("official_problems", "release_problems") if (rule := getattr(module, name, None))
    ]

    def release_problems(plan: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(problem for rule in release_rules for problem in rule(instance, plan))

    feasibility = str(solution.get("status", "")).lower() in FEASIBILITY_STATUSES
    recomputed = 1.0 if feasibility and check.feasible else check.objective
    if not check.feasible:
        return done("infeasible", "; ".join(check.problems[:3]), recomputed)
    if found := release_problems(solution):
        return done("infeasible", "; ".join(found[:3]), recomputed)
    if not feasibility and (official is None or recomputed is None or abs(recomputed - official) > tolerance):
        return done("misreported", "the reported objective is not what the decisions give", recomputed)
    if not isinstance(subcategory, InstanceGenerator):
        return done("not certified", "no exact model for this subcategory", recomputed)
    solve_started = time.perf_counter()
    try:
        reference = subcategory.reference_solve(instance)
    except Exception as exc:  # Rejected names why our model cannot certify it
        return done("not certified", f"{type(exc).__name__}: {exc}", recomputed)
    solve_seconds = time.perf_counter() - solve_started
    ours = _answer(reference.solution)
    if solve_seconds > budget_s:
        note = f"our solve took {solve_seconds:.1f} s, budget {budget_s:g} s"
        return done("not certified", note, recomputed, ours)
    if not feasibility:  # our answer must hold under this instance's rules, or we model another variant
        own = subcategory.check_solution(instance, reference.solution)
        stricter = release_problems(reference.solution) if own.feasible else ()
        wrong = own.objective is None or ours is None or abs(own.objective - ours) > tolerance
        if not own.feasible or stricter or wrong:
            why = "; ".join((own.problems or stricter)[:2]) or f"its decisions give {own.objective}"
            return done("not certified", f"our model solves another variant ({why})", recomputed, ours)
    if ours is None or official is None or abs(ours - official) > tolerance:
        note = f"our feasible optimum differs; exact model: {reference.method}"
        return done("not optimal", note, recomputed, ours)
    return done("optimal", reference.method, recomputed, ours)
