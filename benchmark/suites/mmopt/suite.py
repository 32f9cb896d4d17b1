"""The MM-OptBench suite: Stage-1 official scoring over any dataset root in the package layout."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.base import OracleUnavailable
from benchmark.cases import Case, InstanceRef
from benchmark.reporting.render import Table
from benchmark.sandbox import Outcome
from benchmark.suites.base import CaseContext
from benchmark.suites.mmopt import package as packages
from benchmark.suites.mmopt.prompts import oracle_response, stage1_messages
from benchmark.suites.mmopt.response import parse_stage1
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.verdict import InfrastructureError, Verdict

_FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "mmopt"
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


class MMOptSuite:
    name = "mmopt"
    settings: tuple[str, ...] = ("stage1",)
    default_setting = "stage1"

    def add_options(self, group: pytest.OptionGroup) -> None:
        """Stage-1 scoring needs nothing beyond the harness's options."""

    def configure(self, config: pytest.Config) -> None:
        """Nothing to read."""

    def report_tables(self, records: Sequence[Mapping[str, Any]]) -> list[Table]:
        return []

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, dataset: Path) -> Sequence[InstanceRef]:
        return packages.discover(dataset)

    def markers(self, instance: InstanceRef) -> tuple[str, ...]:
        return tuple(instance.labels[name] for name in ("family", "subcategory", "difficulty"))

    def hidden_paths(self, dataset: Path) -> tuple[Path, ...]:
        return (dataset,)

    def dataset_fingerprint(self, dataset: Path) -> dict[str, str]:
        return packages.fingerprint(dataset)

    def evaluate(self, case: Case, context: CaseContext) -> Verdict:
        if case.setting not in self.settings:
            raise ValueError(f"mmopt has no setting {case.setting!r}; choose from {', '.join(self.settings)}")
        package = packages.load_package(case.instance)
        completion = context.complete(
            stage1_messages(package, case_id=package.instance_id),
            reference=lambda: _oracle_answer(package),
        )
        parsed = parse_stage1(completion.text)
        notes = {"parse_notes": list(parsed.notes), "truncated": completion.truncated}
        if parsed.code is None:
            cut = " (the reply was cut off by the output limit)" if completion.truncated else ""
            return Verdict.fail("response_contract", f"{parsed.violation}{cut}", extra=notes)
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
        return verdict


SUITE = MMOptSuite()
