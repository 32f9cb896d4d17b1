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

Each model request of a case is keyed by its interaction, ``<instance>/<interaction>/s<N>`` with
the interaction ``stage1``, ``stage2``, ``oracle_reading`` or ``verified_extraction``: the Stage-1
request of a ``two_stage`` case is the very request of the ``stage1`` case (so replay files and the
response cache answer both alike), and the Stage-2 request is shared by ``two_stage`` and
``verified_extraction``.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterError, OracleUnavailable
from benchmark.cases import Case, InstanceRef
from benchmark.messages import Message
from benchmark.reporting.render import Table
from benchmark.sandbox import Outcome
from benchmark.suites.base import EXECUTION_CATEGORIES, CaseContext, Grouping
from benchmark.suites.mmopt import commands
from benchmark.suites.mmopt import package as packages
from benchmark.suites.mmopt.attribution import classify_artifact
from benchmark.suites.mmopt.attribution_tables import OFFICIAL_SETTINGS, SETTINGS, attribution_tables
from benchmark.suites.mmopt.prompts import oracle_response, payload_messages, stage1_messages
from benchmark.suites.mmopt.response import parse_stage1
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.stage2 import (
    Stage2Check,
    check_stage2,
    interrupted,
    public_record,
    stage2_messages,
    stage2_reference,
)
from benchmark.verdict import InfrastructureError, NotEvaluable, Verdict

#: Stage-2 status → the two-stage attribution of the failed Stage-1 sample (App. F.3 top-level split).
ATTRIBUTION_OF_STAGE2: dict[str, str] = {
    "mismatched": "reading_mismatch",
    "matched": "downstream_after_matched_extraction",
    "unresolved": "unresolved",
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
FAILURE_CATEGORIES: tuple[str, ...] = (*EXECUTION_CATEGORIES, "infeasible_solution", "wrong_objective")

_FIXTURES = commands.DEFAULT_ROOT
#: Names in a reference solver that show it reads the package instead of embedding its data.
_FILE_READS = ("instance_data.json", "solution_ref.json", "open(", "Path(", "json.load(")


def _oracle_answer(package: packages.Package) -> str:
    """The reference answer, or a per-case explanation of why the reference cannot run sandboxed."""
    where = package.directory / "ground_truth/solver_ref.py"
    try:
        tree = ast.parse(package.solver_ref)
    except SyntaxError as exc:
        raise OracleUnavailable(
            f"{where}: reference solver does not parse ({exc.msg}, line {exc.lineno})"
        ) from None
    solve = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"),
        None,
    )
    if solve is None or len(solve.args.args) > len(solve.args.defaults):
        raise OracleUnavailable(f"{where}: reference solver has no top-level no-argument solve()")
    reads = [token for token in _FILE_READS if token in package.solver_ref]
    if reads:
        raise OracleUnavailable(
            f"{where}: reference solver reads files from the package ({', '.join(reads)}); generated code "
            "runs in a sandbox that hides the package, so the oracle cannot answer this case"
        )
    return oracle_response(package)


def _interaction(context: CaseContext, interaction: str) -> CaseContext:
    """The context for one interaction of a case: its requests are keyed ``.../<interaction>/sN``;
    accounting and model ids stay shared with the case's context."""
    return dataclasses.replace(context, case=dataclasses.replace(context.case, setting=interaction))


class MMOptSuite:
    name = "mmopt"
    settings: tuple[str, ...] = SETTINGS
    default_setting = "stage1"
    #: Official pass@k and Valid Code Rate come from Stage-1 answers only (paper §3.4).
    official_settings: tuple[str, ...] = OFFICIAL_SETTINGS
    labels: tuple[str, ...] = ("family", "subcategory", "difficulty", "instance_id")
    groupings: tuple[Grouping, ...] = (
        Grouping("family", aliases=FAMILY_SHORT_NAMES),
        Grouping("subcategory"),
        Grouping("difficulty", order=("easy", "medium", "hard")),
    )
    failure_categories: tuple[str, ...] = FAILURE_CATEGORIES

    def add_options(self, group: pytest.OptionGroup) -> None:
        """Settings are chosen with the harness's ``--setting``; nothing else to add."""

    def configure(self, config: pytest.Config) -> None:
        """Nothing to read."""

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        commands.add_commands(add_command)

    def report_tables(self, records: Sequence[Mapping[str, Any]]) -> list[Table]:
        return attribution_tables(records)

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, dataset: Path) -> Sequence[InstanceRef]:
        return packages.discover(dataset)

    def hidden_paths(self, dataset: Path) -> tuple[Path, ...]:
        return (dataset,)

    def dataset_fingerprint(self, dataset: Path) -> dict[str, str]:
        return packages.fingerprint(dataset)

    def evaluate(self, case: Case, context: CaseContext) -> Verdict:
        if case.setting not in self.settings:
            raise ValueError(f"mmopt has no setting {case.setting!r}; choose from {', '.join(self.settings)}")
        package = packages.load_package(case.instance)
        oracle = lambda: _oracle_answer(package)  # noqa: E731 - the reference travels as a callable
        if case.setting in ("stage1", "two_stage"):
            messages = stage1_messages(package, case_id=package.instance_id)
            verdict = _answer(package, _interaction(context, "stage1"), messages, oracle)
            if case.setting == "two_stage" and not verdict.passed:
                check = _stage2(package, _interaction(context, "stage2"))
                verdict.extra["stage2"] = check.as_record()
                verdict.extra["attribution"] = ATTRIBUTION_OF_STAGE2[check.status]
            return verdict
        if case.setting == "oracle_reading":
            messages = payload_messages(package, package.instance_id, public_record(package))
            return _answer(package, _interaction(context, "oracle_reading"), messages, oracle)
        check = _stage2(package, _interaction(context, "stage2"))
        if check.status != "matched" or check.structured_instance is None:
            reason = "; ".join(check.differences[:5]) if check.differences else check.detail
            detail = f"the Stage-2 extraction is {check.status} ({reason})"
            raise NotEvaluable(detail, {"stage2": check.as_record()})
        messages = payload_messages(package, package.instance_id, check.structured_instance)
        verdict = _answer(package, _interaction(context, "verified_extraction"), messages, oracle)
        verdict.extra["stage2"] = check.as_record()
        return verdict


def _answer(
    package: packages.Package,
    context: CaseContext,
    messages: Sequence[Message],
    reference: Callable[[], str],
) -> Verdict:
    """Ask for a Stage-1 contract answer, run it and score it; a failure gets its Table-9 class."""
    completion = context.complete(messages, reference=reference)
    parsed = parse_stage1(completion.text)
    notes = {"parse_notes": list(parsed.notes), "truncated": completion.truncated}
    value: dict[str, Any] | None = None
    if parsed.code is None:
        cut = " (the reply was cut off by the output limit)" if completion.truncated else ""
        verdict = Verdict.fail("response_contract", f"{parsed.violation}{cut}", extra=notes)
    else:
        execution = context.sandbox.run_solve(parsed.code, context.limits)
        if execution.outcome is Outcome.SANDBOX_ERROR:
            raise InfrastructureError("sandbox_error", execution.error)
        verdict = score_execution(
            execution,
            subcategory=package.subcategory,
            instance=package.instance_data,
            solution_ref=package.solution_ref,
            objective_only=context.objective_only,
        )
        verdict.extra.update(notes)
        value = execution.value
    if not verdict.passed:
        evidence = classify_artifact(verdict, value, package)
        verdict.extra.update({"failure_class": evidence.failure_class, "failure_evidence": evidence.evidence})
    return verdict


def _stage2(package: packages.Package, context: CaseContext) -> Stage2Check:
    """The Stage-2 follow-up; an endpoint fault leaves it unresolved ("interrupted") rather than
    losing the Stage-1 verdict it diagnoses."""
    try:
        completion = context.complete(
            stage2_messages(package, case_id=package.instance_id), reference=lambda: stage2_reference(package)
        )
    except AdapterError as exc:
        return interrupted(f"{exc.kind}: {exc}")
    return check_stage2(completion.text, package, truncated=completion.truncated)


SUITE = MMOptSuite()
