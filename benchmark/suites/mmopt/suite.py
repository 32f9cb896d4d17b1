"""The MM-OptBench suite: Stage-1 official scoring over any dataset root in the package layout, and
the diagnostic settings of §3.4 (App. B, F.1, F.3).

Settings (``--setting``):

- ``stage1`` (official, default): text and visuals → model and ``solve()`` code, scored.
- ``two_stage``: Stage 1 exactly as ``stage1`` (same request, same verdict: the official numbers
  do not move), then, for a failed sample, the Stage-2 extraction compared with the public record:
  ``reading_mismatch``, ``downstream_after_matched_extraction`` or ``unresolved``.
- ``oracle_reading``: the public instance record replaces the visuals; the same answer contract.
- ``verified_extraction``: Stage 2 first; a matching extraction becomes the payload of a Stage-1
  contract answer; a non-matching one makes the case not evaluable (a skip, never a failure).

Scoring (``--scoring``): ``strict`` (default) or ``official`` (the official release's verdicts,
:mod:`benchmark.suites.mmopt.official`); the run manifest and summary say which mode scored.

The oracle answers with the package's reference model and ``solve()`` code when that code is
self-contained (our packages). The official release's ``solver_ref.py`` files are scripts that read
``instance_data.json`` from the package, which the sandbox hides; for such a package (or one
without a reference solver) the oracle's ``solve()`` returns the package's ``solution_ref.json``,
which checks that the reference solution scores as correct but tests no solver; the manifest, the
summary and each record say so. With ``--oracle-solve`` such a package is answered with our own
exact model of the subcategory instead (the one ``validate`` certifies the release with), and a
package our model cannot solve has no oracle answer (reported per case).

Each model request of a case is keyed by its interaction, ``<instance>/<interaction>/s<N>`` with
the interaction ``stage1``, ``stage2``, ``oracle_reading`` or ``verified_extraction``: the Stage-1
request of a ``two_stage`` case is the very request of the ``stage1`` case (so replay files and the
response cache answer both alike), and the Stage-2 request is shared by ``two_stage`` and
``verified_extraction``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterError, CompletionRequest, OracleUnavailable
from benchmark.attempt import Attempt, Execution, Reply
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory, InfrastructureCategory
from benchmark.messages import Message
from benchmark.reporting.render import Table
from benchmark.sandbox import Outcome
from benchmark.schema import CaseRecord
from benchmark.suites.base import (
    EXECUTION_CATEGORIES,
    CaseContext,
    Grouping,
    RecordDetail,
    Suite,
    SuiteDefaults,
    case_request,
)
from benchmark.suites.mmopt import commands
from benchmark.suites.mmopt import package as packages
from benchmark.suites.mmopt.attribution import classify_artifact
from benchmark.suites.mmopt.attribution_tables import OFFICIAL_SETTINGS, SETTINGS, attribution_tables
from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.detail import DETAIL, MmoptAttemptData, MmoptExtra
from benchmark.suites.mmopt.instance_check import check_instance
from benchmark.suites.mmopt.official import DEFAULT_SCORING, SCORING_MODES
from benchmark.suites.mmopt.prompts import oracle_response, payload_messages, stage1_messages
from benchmark.suites.mmopt.response import parse_stage1
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.stage2 import (
    Stage2Check,
    Stage2Status,
    check_stage2,
    interrupted,
    public_record,
    stage2_messages,
    stage2_reference,
)
from benchmark.verdict import InfrastructureError, NotEvaluable, Verdict

#: Stage-2 status → the two-stage attribution of the failed Stage-1 sample (App. F.3 top-level split).
ATTRIBUTION_OF_STAGE2: dict[str, str] = {
    Stage2Status.MISMATCHED: "reading_mismatch",
    Stage2Status.MATCHED: "downstream_after_matched_extraction",
    Stage2Status.UNRESOLVED: "unresolved",
}


#: The short marker of each MM-OptBench family (``-m routing``); a family added later gets its
#: marker by its entry here.
FAMILY_SHORT_NAMES: dict[str, str] = {
    "network_optimization": "network",
    "location_covering_assignment": "location",
    "scheduling_sequencing": "scheduling",
    "multi_period_system_planning": "planning",
    "routing_tour_optimization": "routing",
    "combinatorial_logical": "combinatorial",
}
#: Official Stage-1 failure categories (App. F.3, Table 9), in the order of the pipeline.
FAILURE_CATEGORIES: tuple[str, ...] = (*EXECUTION_CATEGORIES, *MmoptCategory)

_FIXTURES = commands.DEFAULT_ROOT

#: How the oracle answers a package whose reference solver cannot run in the sandbox.
ORACLE_FROM_SOLUTION = (
    "replays ground_truth/solution_ref.json from solve() when the package's solver_ref.py is "
    "missing or reads package files (the official release's scripts do): such a pass checks loading "
    "and scoring, no solver; --oracle-solve answers with our exact models instead"
)
ORACLE_FROM_OUR_MODELS = (
    "answers with our exact model of the subcategory (--oracle-solve) when the package's "
    "solver_ref.py is missing or reads package files"
)


def solution_answer(package: packages.Package, reason: str) -> str:
    """A Stage-1 contract answer whose ``solve()`` returns the package's reference solution."""
    literal = json.dumps(package.solution_ref, sort_keys=True)
    model = package.math_model.strip() or f"The verified reference solution of {package.instance_id}."
    return (
        f"ASSUMPTIONS\nThe reference solution is returned as recorded ({reason}).\n\n"
        f"MATHEMATICAL_MODEL\n{model}\n\n"
        f"PYTHON_CODE\nimport json\n\n\ndef solve():\n    return json.loads({literal!r})\n"
    )


def _solved_answer(package: packages.Package) -> tuple[str, str]:
    """A Stage-1 answer whose ``solve()`` returns our exact model's solution of the package, and
    the model's name; :class:`OracleUnavailable` when our model cannot solve it."""
    from benchmark.suites.mmopt.generation.protocol import InstanceGenerator
    from benchmark.suites.mmopt.subcategories import get_subcategory

    generator = get_subcategory(package.subcategory)
    if not isinstance(generator, InstanceGenerator):
        raise OracleUnavailable(f"--oracle-solve: no exact model of ours for {package.subcategory}")
    try:
        reference = generator.reference_solve(package.instance_data)
    except Exception as exc:  # Rejected names why; a plug-in tripping on the schema is the same
        raise OracleUnavailable(
            f"--oracle-solve: our model cannot solve {package.instance_id} ({type(exc).__name__}: {exc})"
        ) from None
    literal = json.dumps(reference.solution, sort_keys=True)
    answer = (
        f"ASSUMPTIONS\nSolved by our exact model ({reference.method}).\n\n"
        f"MATHEMATICAL_MODEL\nThe subcategory's reference model of {package.instance_id}.\n\n"
        f"PYTHON_CODE\nimport json\n\n\ndef solve():\n    return json.loads({literal!r})\n"
    )
    return answer, reference.method


def _oracle_answer(package: packages.Package, note: dict[str, str], solve: bool = False) -> str:
    """The reference answer: the package's model and solver, else its reference solution or, with
    ``solve``, our exact model's answer (noted either way)."""
    reason = packages.reference_solver_problem(package)
    if reason is None:
        return oracle_response(package)
    if solve:
        answer, method = _solved_answer(package)
        note["oracle_answer"] = f"our exact model: {method} ({reason})"
        return answer
    note["oracle_answer"] = f"solution_ref.json replayed, no solver tested ({reason})"
    return solution_answer(package, reason)


ORACLE_TITLE = "Oracle answers without a runnable solver_ref.py"


def oracle_answer_tables(records: Sequence[CaseRecord]) -> list[Table]:
    """How many cases the oracle answered by replaying ``solution_ref.json`` (no solver tested)
    or with our exact models, so a run's summary says what an oracle pass on a release means."""
    counts: dict[str, int] = {}
    for record in records:
        note = MmoptExtra.read(record.extra).oracle_answer or ""
        if note:
            how = (
                "solution_ref.json replayed (no solver tested)"
                if note.startswith("solution_ref")
                else note.split(" (")[0]
            )
            counts[how] = counts.get(how, 0) + 1
    if not counts:
        return []
    return [
        Table(ORACLE_TITLE, ("answered with", "cases"), tuple((k, str(v)) for k, v in sorted(counts.items())))
    ]


def _interaction(context: CaseContext, interaction: str) -> CaseContext:
    """The context for one interaction of a case: its requests are keyed ``.../<interaction>/sN``;
    accounting and model ids stay shared with the case's context."""
    return dataclasses.replace(context, case=dataclasses.replace(context.case, setting=interaction))


class MMOptSuite(SuiteDefaults):
    name = "mmopt"
    settings: tuple[str, ...] = SETTINGS
    default_setting = "stage1"
    #: Official pass@k and Valid Code Rate come from Stage-1 answers only (paper §3.4).
    official_settings: tuple[str, ...] = OFFICIAL_SETTINGS
    labels: tuple[str, ...] = ("family", "subcategory", "difficulty", "instance_id")
    groupings: tuple[Grouping, ...] = (
        Grouping("family", aliases=FAMILY_SHORT_NAMES, compare=True),
        Grouping("subcategory", split=True),
        Grouping("difficulty", order=("easy", "medium", "hard"), compare=True, split=True),
    )
    failure_categories: tuple[str, ...] = FAILURE_CATEGORIES
    detail: RecordDetail = DETAIL

    scoring: str = DEFAULT_SCORING
    oracle_solve: bool = False

    def add_options(self, group: pytest.OptionGroup) -> None:
        """Settings are chosen with the harness's ``--setting``; scoring with ``--scoring``."""
        group.addoption(
            "--scoring",
            choices=SCORING_MODES,
            default=DEFAULT_SCORING,
            help="scoring rules: strict (default, the project's checks) or official (the "
            "official release's verdicts; differences listed in the README); tbmath reads it too "
            "(official: each task's own verifier)",
        )
        group.addoption(
            "--oracle-solve",
            action="store_true",
            default=False,
            help="mmopt oracle: answer a package without a runnable solver_ref.py (the official "
            "release's) with our exact model instead of replaying its solution_ref.json",
        )

    def configure(self, config: pytest.Config) -> None:
        self.scoring = str(config.getoption("--scoring", default=DEFAULT_SCORING) or DEFAULT_SCORING)
        self.oracle_solve = bool(config.getoption("--oracle-solve", default=False))

    def run_info(self) -> dict[str, str]:
        """What the run manifest and summary record about how this suite scored."""
        oracle = ORACLE_FROM_OUR_MODELS if self.oracle_solve else ORACLE_FROM_SOLUTION
        return {"scoring": self.scoring, "oracle_for_unrunnable_references": oracle}

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        commands.add_commands(add_command)

    def report_tables(self, records: Sequence[CaseRecord]) -> list[Table]:
        return [*attribution_tables(records), *oracle_answer_tables(records)]

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, dataset: Path) -> Sequence[InstanceRef]:
        return packages.discover(dataset)

    def hidden_paths(self, dataset: Path) -> tuple[Path, ...]:
        return (dataset,)

    def dataset_fingerprint(self, dataset: Path) -> dict[str, str]:
        return packages.fingerprint(dataset)

    def solve(self, case: Case, context: CaseContext) -> Attempt:
        if case.setting not in self.settings:
            raise ValueError(f"mmopt has no setting {case.setting!r}; choose from {', '.join(self.settings)}")
        package = packages.load_package(case.instance, packages.SETTING_FILES[case.setting])
        check_instance(package.directory, package.subcategory, package.instance_data, package.solution_ref)
        note: dict[str, str] = {}
        oracle = lambda: _oracle_answer(package, note, self.oracle_solve)  # noqa: E731 - the reference travels as a callable
        attempt = Attempt(data={"scoring": self.scoring, "objective_only": context.objective_only})
        answer = ANSWER_INTERACTION[case.setting]
        if case.setting == "verified_extraction":
            _ask_stage2(package, _interaction(context, "stage2"), attempt)
            check = _stage2_check(package, attempt.replies["stage2"])
            if check.status != Stage2Status.MATCHED or check.structured_instance is None:
                raise _not_evaluable(check)
            messages = payload_messages(package, package.instance_id, check.structured_instance)
        elif case.setting == "oracle_reading":
            messages = payload_messages(package, package.instance_id, public_record(package))
        else:
            messages = stage1_messages(package, case_id=package.instance_id)
        _ask_answer(_interaction(context, answer), messages, oracle, answer, attempt)
        attempt.data.update(note)
        if case.setting == "two_stage" and not self.score(case, attempt).passed:
            _ask_stage2(package, _interaction(context, "stage2"), attempt)
        return attempt

    def score(self, case: Case, attempt: Attempt) -> Verdict:
        """Score the Stage-1 contract answer, with the run's scoring mode (kept in the attempt);
        for ``two_stage`` a failure is attributed by the Stage-2 answer when solving asked it."""
        package = packages.load_package(case.instance, packages.SETTING_FILES[case.setting])
        check = _stage2_check(package, attempt.replies["stage2"]) if "stage2" in attempt.replies else None
        if case.setting == "verified_extraction" and (
            check is None or check.status != Stage2Status.MATCHED or check.structured_instance is None
        ):
            raise _not_evaluable(check)
        verdict = _score_answer(package, attempt, ANSWER_INTERACTION[case.setting])
        if check is not None and (case.setting == "verified_extraction" or not verdict.passed):
            verdict.extra["stage2"] = check.as_record()
            if case.setting == "two_stage":
                verdict.extra["attribution"] = ATTRIBUTION_OF_STAGE2[check.status]
        data = MmoptAttemptData.read(attempt.data)
        verdict.extra["scoring"] = data.scoring
        if data.oracle_answer is not None:
            verdict.extra["oracle_answer"] = data.oracle_answer
        return verdict

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        """The case's first model request, as :meth:`solve` sends it, without the instance check
        before it: for the generation phase (``benchmark.prefetch``), which then needs no
        subcategory's scoring modules (their first import in a process takes seconds, and every
        prefetch thread would wait for it). The case itself still checks the instance before it
        scores anything; a malformed package costs its one prefetched request."""
        if case.setting not in self.settings:
            return None
        package = packages.load_package(case.instance, packages.SETTING_FILES[case.setting])
        if case.setting in ("stage1", "two_stage"):
            interaction, messages = "stage1", stage1_messages(package, case_id=package.instance_id)
        elif case.setting == "oracle_reading":
            interaction = "oracle_reading"
            messages = payload_messages(package, package.instance_id, public_record(package))
        else:
            interaction, messages = "stage2", stage2_messages(package, case_id=package.instance_id)
        return case_request(dataclasses.replace(case, setting=interaction), messages, max_tokens)


#: The interaction whose reply is the case's Stage-1 contract answer, by setting.
ANSWER_INTERACTION: dict[str, str] = {
    "stage1": "stage1",
    "two_stage": "stage1",
    "oracle_reading": "oracle_reading",
    "verified_extraction": "verified_extraction",
}


def _ask_answer(
    context: CaseContext,
    messages: Sequence[Message],
    reference: Callable[[], str],
    interaction: str,
    attempt: Attempt,
) -> None:
    """Ask for a Stage-1 contract answer and run its ``solve()`` in the sandbox."""
    completion = context.complete(messages, reference=reference)
    attempt.replies[interaction] = Reply(completion.text, completion.truncated)
    parsed = parse_stage1(completion.text)
    if parsed.code is None:
        return
    execution = context.sandbox.run_solve(parsed.code, context.limits)
    if execution.outcome is Outcome.SANDBOX_ERROR:
        raise InfrastructureError(InfrastructureCategory.SANDBOX_ERROR, execution.error)
    attempt.artifacts[SOLVE_FILE] = parsed.code
    attempt.executions[SOLVE_FILE] = Execution.of(execution)


SOLVE_FILE = "solve.py"


def _score_answer(package: packages.Package, attempt: Attempt, interaction: str) -> Verdict:
    """Score a Stage-1 contract answer from its reply and its run; a failure gets its Table-9 class."""
    reply = attempt.replies[interaction]
    parsed = parse_stage1(reply.text)
    notes = {"parse_notes": list(parsed.notes), "truncated": reply.truncated}
    value: dict[str, Any] | None = None
    run = attempt.executions.get(SOLVE_FILE)
    if parsed.code is None or run is None:
        cut = " (the reply was cut off by the output limit)" if reply.truncated else ""
        verdict = Verdict.fail(ExecutionCategory.RESPONSE_CONTRACT, f"{parsed.violation}{cut}", extra=notes)
    else:
        execution = run.result()
        data = MmoptAttemptData.read(attempt.data)
        verdict = score_execution(
            execution,
            subcategory=package.subcategory,
            instance=package.instance_data,
            solution_ref=package.solution_ref,
            objective_only=data.objective_only,
            scoring=data.scoring,
        )
        verdict.extra.update(notes)
        verdict.artifact = {SOLVE_FILE: attempt.artifacts[SOLVE_FILE]}
        verdict.output = {"stdout": execution.stdout, "stderr": execution.stderr}
        value = execution.value
    if not verdict.passed:
        evidence = classify_artifact(verdict, value, package)
        verdict.extra.update({"failure_class": evidence.failure_class, "failure_evidence": evidence.evidence})
    return verdict


def _ask_stage2(package: packages.Package, context: CaseContext, attempt: Attempt) -> None:
    """The Stage-2 follow-up; an endpoint fault leaves it unresolved ("interrupted") rather than
    losing the Stage-1 verdict it diagnoses."""
    try:
        completion = context.complete(
            stage2_messages(package, case_id=package.instance_id), reference=lambda: stage2_reference(package)
        )
    except AdapterError as exc:
        attempt.replies["stage2"] = Reply("", error=f"{exc.kind}: {exc}")
        return
    attempt.replies["stage2"] = Reply(completion.text, completion.truncated)


def _stage2_check(package: packages.Package, reply: Reply) -> Stage2Check:
    if reply.error is not None:
        return interrupted(reply.error)
    return check_stage2(reply.text, package, truncated=reply.truncated)


def _not_evaluable(check: Stage2Check | None) -> NotEvaluable:
    """A verified-extraction case whose extraction did not match: skipped, never a failure."""
    if check is None:
        return NotEvaluable("the Stage-2 extraction was not asked")
    reason = "; ".join(check.differences[:5]) if check.differences else check.detail
    detail = f"the Stage-2 extraction is {check.status} ({reason})"
    return NotEvaluable(detail, {"stage2": check.as_record()})


#: Annotated with the protocol, so the type checker proves that the suite provides every hook.
SUITE: Suite = MMOptSuite()
