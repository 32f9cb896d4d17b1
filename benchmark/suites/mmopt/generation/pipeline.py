"""The construction protocol (MM-OptBench App. D.2; DESIGN §6) run for one instance.

Stages, each of which can reject the candidate with a counted reason:

1. sample a structure for the difficulty regime, 2. instantiate parameters, 3. structural checks,
4. exact reference solve with an optimality certificate (within a runtime budget),
5. independent cross-check that must agree on the objective, and the subcategory's own scoring
   validator run on the reference solution (the generator and the scorer must agree on feasibility),
6. nontriviality judged on the verified optimum,
7. derive every artifact from the one verified record; the generated ``solver_ref.py`` is executed
   and must reproduce the optimum; the task text may not state any value the visual carries,
8. render the visuals from public data only and audit the drawn labels (every value drawn exactly,
   nothing else with digits, no overlaps, legible size).

A candidate that passes everything is accepted; otherwise a fresh candidate is drawn from the next
attempt's random stream. Harness bugs (a generator returning non-JSON data, say) are exceptions,
not rejections.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.suites.mmopt.generation.protocol import (
    ACCEPTED_STATUSES,
    DerivedArtifacts,
    InstanceGenerator,
    ReferenceSolution,
    Rejected,
    RenderedVisual,
    VerifiedRecord,
)
from benchmark.suites.mmopt.generation.rendering import label_problems
from benchmark.suites.mmopt.generation.seeds import attempt_rng

MAX_ATTEMPTS = 200
SOLVE_BUDGET_S = 20.0  # generous: these instances solve in milliseconds; a slow one is suspect
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)(?!\.\d)")
_VISUAL_NAME = re.compile(r"visual_\d+\.png")


class GenerationError(RuntimeError):
    """No acceptable candidate within :data:`MAX_ATTEMPTS`, or a generator broke its contract."""


@dataclass
class BuiltInstance:
    """An accepted candidate with everything the package writer needs."""

    record: VerifiedRecord
    artifacts: DerivedArtifacts
    visuals: list[RenderedVisual]
    rejections: Counter[str] = field(default_factory=Counter)


def _objectives_agree(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def _json_roundtrip(value: Any, what: str) -> None:
    """Artifacts are derived from JSON-shaped records; a tuple or int key would silently change
    meaning on the way through ``instance_data.json``, so refuse it here."""
    try:
        again = json.loads(json.dumps(value, sort_keys=True))
    except (TypeError, ValueError) as exc:
        raise GenerationError(f"{what} is not JSON-serializable: {exc}") from None
    if again != value:
        raise GenerationError(f"{what} does not survive a JSON round trip (tuples or non-string keys?)")


def run_solver_source(source: str) -> dict[str, Any]:
    """Execute a generated ``solver_ref.py`` in a fresh namespace and return ``solve()``'s dict.

    In-process, because every package is checked and a subprocess per instance (importing the solver
    library again) would dominate generation time; the test suite runs the shipped files as
    subprocesses.
    """
    namespace: dict[str, Any] = {"__name__": "solver_ref"}
    exec(compile(source, "solver_ref.py", "exec"), namespace)
    result = namespace["solve"]()
    if not isinstance(result, dict):
        raise Rejected("artifact: solver_ref.solve() did not return a dict")
    as_json: dict[str, Any] = json.loads(json.dumps(result))
    return as_json


def text_value_problems(task_input: str, visual_values: set[int], optimum: float) -> list[str]:
    """Numbers in the task text that the reader should take from the visual, or the optimum itself."""
    text = _VISUAL_NAME.sub(" ", task_input)
    problems = []
    for token in _NUMBER.findall(text):
        number = float(token)
        if number.is_integer() and int(number) in visual_values:
            problems.append("artifact: task text states a value the visual carries")
        if _objectives_agree(number, optimum):
            problems.append("artifact: task text leaks the optimum")
    return problems


def _candidate(
    generator: InstanceGenerator, difficulty: str, instance_id: str, seed: int, attempt: int
) -> BuiltInstance:
    rng = attempt_rng(seed, attempt)
    structure = generator.sample_structure(rng, difficulty)
    instance = generator.instantiate(rng, structure, difficulty)
    _json_roundtrip(instance, f"{generator.name} instance data")
    for problem in generator.structural_problems(instance, difficulty):
        raise Rejected(problem)

    started = time.perf_counter()
    reference = generator.reference_solve(instance)
    if time.perf_counter() - started > SOLVE_BUDGET_S:
        raise Rejected("reference: solve exceeded the runtime budget")
    _json_roundtrip(reference.solution, f"{generator.name} reference solution")
    if reference.solution.get("status") not in ACCEPTED_STATUSES:
        raise Rejected("reference: not certified optimal")

    method, objective = generator.cross_check(instance)
    if not _objectives_agree(objective, reference.objective):
        raise Rejected("cross-check: independent method disagrees", f"{objective} vs {reference.objective}")
    for problem in reference_decision_problems(generator, instance, reference):
        raise Rejected(problem)
    for problem in generator.solution_problems(instance, reference, difficulty):
        raise Rejected(problem)

    record = VerifiedRecord(
        instance_id=instance_id,
        family=generator.family,
        subcategory=generator.name,
        difficulty=difficulty,
        seed=seed,
        attempt=attempt,
        generator_version=generator.version,
        instance=instance,
        reference=reference,
        cross_check_method=method,
        cross_check_objective=objective,
    )
    artifacts = generator.derive(record)
    for problem in text_value_problems(
        artifacts.task_input, generator.visual_values(instance), reference.objective
    ):
        raise Rejected(problem)
    for problem in replay_problems(generator, instance, reference, run_solver_source(artifacts.solver_ref)):
        raise Rejected(problem)

    visuals = generator.render(instance)  # public data only: the record's solution is not passed
    if not visuals:
        raise GenerationError(f"{generator.name} rendered no visual")
    for problem in visual_audit_problems(generator, instance, visuals):
        raise Rejected("visual: label audit failed", problem)
    return BuiltInstance(record=record, artifacts=artifacts, visuals=visuals)


def reference_decision_problems(
    generator: InstanceGenerator, instance: Mapping[str, Any], reference: ReferenceSolution
) -> list[str]:
    """The scoring validator must accept the reference's decisions and recompute its objective; a
    feasibility-type "infeasible" answer has no decisions, a "feasible" one no objective."""
    if reference.solution.get("status") == "infeasible":
        return []
    verdict = generator.check_solution(instance, reference.solution)
    if not verdict.feasible:
        return ["cross-check: validator rejects the reference solution"]
    if reference.is_feasibility_type:
        return []
    if verdict.objective is None or not _objectives_agree(verdict.objective, reference.objective):
        return ["cross-check: validator recomputes a different objective"]
    return []


def replay_problems(
    generator: InstanceGenerator,
    instance: Mapping[str, Any],
    reference: ReferenceSolution,
    replayed: Mapping[str, Any],
) -> list[str]:
    """What a shipped ``solver_ref.py``'s result gets wrong: the optimum (or, feasibility-type, the
    status) and feasible decisions."""
    if reference.is_feasibility_type:
        if replayed.get("status") != reference.solution["status"]:
            return ["artifact: solver_ref.py does not reproduce the status"]
    else:
        value = replayed.get("objective_value")
        if not isinstance(value, int | float) or not _objectives_agree(float(value), reference.objective):
            return ["artifact: solver_ref.py does not reproduce the optimum"]
    if (
        reference.solution.get("status") != "infeasible"
        and not generator.check_solution(instance, replayed).feasible
    ):
        return ["artifact: solver_ref.py returns an infeasible solution"]
    return []


def visual_audit_problems(
    generator: InstanceGenerator, instance: Mapping[str, Any], visuals: Sequence[RenderedVisual]
) -> list[str]:
    """The label audit of every visual against the instance record, each problem prefixed with the
    visual's file name; shared by generation and :mod:`.validate` so both judge a visual alike."""
    expected = generator.expected_labels(instance)
    problems = []
    for index, visual in enumerate(visuals):
        wanted = expected if len(visuals) == 1 else [e for e in expected if _on_visual(e.key, index)]
        problems += [f"visual_{index}.png: {problem}" for problem in label_problems(visual, wanted)]
    return problems


def _on_visual(key: str, index: int) -> bool:
    """Multi-visual generators prefix keys with ``v<index>/``; unprefixed keys belong to visual 0."""
    prefix, sep, _ = key.partition("/")
    if sep and prefix.startswith("v") and prefix[1:].isdigit():
        return int(prefix[1:]) == index
    return index == 0


def build_instance(
    generator: InstanceGenerator, difficulty: str, instance_id: str, seed: int
) -> BuiltInstance:
    """Run the protocol until a candidate is accepted; the rejection reasons are counted."""
    rejections: Counter[str] = Counter()
    for attempt in range(MAX_ATTEMPTS):
        try:
            built = _candidate(generator, difficulty, instance_id, seed, attempt)
        except Rejected as rejected:
            rejections[rejected.reason] += 1
            continue
        built.rejections = rejections
        return built
    common = ", ".join(f"{reason} ×{count}" for reason, count in rejections.most_common(3))
    raise GenerationError(f"{instance_id}: no acceptable candidate in {MAX_ATTEMPTS} attempts ({common})")
