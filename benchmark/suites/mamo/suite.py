"""The Mamo suite: ODE and LP/MILP word problems, answers checked by running the model's artifact.

Per case: the k-shot prompt → the model's reply (or, with ``--artifacts DIR``, the answer file an
external agent wrote) → the artifact (Python or ``.lp``) → the sandbox →
a number compared with the answer (``comparison.py``) → when the artifact did not execute, the
code-modifier pass (``modifier.py``) and a second score. The official verdict is the raw one (Table
4's main numbers); the modified result is recorded beside it in ``scores`` and reported as the
improvement (Table 4's subscripts, Table 5).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.artifacts import PREFIX as ARTIFACTS_PREFIX
from adapters.base import OracleUnavailable
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory
from benchmark.messages import Message
from benchmark.reporting.render import Table
from benchmark.suites.base import EXECUTION_CATEGORIES, CaseContext, Grouping
from benchmark.suites.mamo import dataset, reporting
from benchmark.suites.mamo.comparison import absolute_tolerance, answers_match
from benchmark.suites.mamo.execution import NOT_EXECUTED, Attempt, run_lp, run_python
from benchmark.suites.mamo.lp_solvers import SOLVERS, solver_script
from benchmark.suites.mamo.modifier import modify
from benchmark.suites.mamo.prompts import DEFAULT_SHOTS, MAX_SHOTS, fenced, task_messages
from benchmark.suites.mamo.response import Extracted, extract
from benchmark.verdict import Verdict

_FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "mamo"


def _oracle_answer(case: dataset.MamoCase) -> str:
    if case.reference is None:
        raise OracleUnavailable(
            f"{case.where}: this question has no reference artifact (the public Mamo release ships "
            "only Question and Answer), so the oracle cannot answer it; run a model instead"
        )
    return fenced(case.reference, ode=case.is_ode)


class MamoSuite:
    name = "mamo"
    settings: tuple[str, ...] = ("fewshot",)
    default_setting = "fewshot"
    official_settings: tuple[str, ...] = ("fewshot",)
    labels: tuple[str, ...] = ("family", "subcategory", "difficulty", "needs", "instance_id", "file")
    groupings: tuple[Grouping, ...] = (
        Grouping("family", compare=True),
        Grouping("subcategory"),
        Grouping("difficulty", order=("easy", "medium", "hard"), compare=True),
        Grouping("needs", order=("direct",), markers=False),
    )
    #: ``wrong_ode_value``: an ODE program ran and printed a number that is not the answer (there is no
    #: objective to be wrong about); ``wrong_objective``: an ``.lp`` model's optimum is not the answer.
    failure_categories: tuple[str, ...] = (*EXECUTION_CATEGORIES, "wrong_ode_value", "wrong_objective")
    #: The modifier is a model alias: the harness asks it on the run's stack, ``rescore`` replays it.
    model_options: tuple[str, ...] = ("--modifier-model",)

    def __init__(self) -> None:
        self.shots = DEFAULT_SHOTS
        self.modifier_passes = 1
        self.modifier_alias: str | None = None
        self.lp_solver = "highs"
        self._lp_script = ""
        self.artifacts_dir: Path | None = None

    def add_options(self, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--shots",
            type=int,
            default=DEFAULT_SHOTS,
            help=f"mamo: few-shot examples (0-{MAX_SHOTS}, default 3)",
        )
        group.addoption(
            "--modifier-model",
            default=None,
            help="mamo: model alias of the code modifier (default: the model under test itself)",
        )
        group.addoption(
            "--modifier-passes",
            type=int,
            default=1,
            help="mamo: code-modifier passes on failing artifacts (0 = off)",
        )
        group.addoption(
            "--lp-solver",
            choices=tuple(SOLVERS),
            default="highs",
            help="mamo: solver that reads the .lp files",
        )

    def model_source(self, config: pytest.Config) -> str | None:
        """``--artifacts DIR`` is the run's model source when no ``--model`` is given."""
        artifacts = config.getoption("artifacts")
        return f"{ARTIFACTS_PREFIX}{artifacts}" if artifacts else None

    def answer_file(self, question: dataset.MamoCase, instance: InstanceRef) -> Path:
        """Where an external agent puts its answer: ``DIR/<file>/<id>.py`` (ODE) or ``.lp``, the
        question's own path (ids repeat across files)."""
        assert self.artifacts_dir is not None
        *folders, case_id = instance.path
        return self.artifacts_dir.joinpath(*folders, f"{case_id}.{'py' if question.is_ode else 'lp'}")

    def configure(self, config: pytest.Config) -> None:
        artifacts = config.getoption("artifacts")
        self.artifacts_dir = Path(artifacts) if artifacts else None
        if self.artifacts_dir is not None and not self.artifacts_dir.is_dir():
            raise pytest.UsageError(f"--artifacts {artifacts}: not a directory")
        shots, passes = config.getoption("shots"), config.getoption("modifier_passes")
        if not 0 <= shots <= MAX_SHOTS:
            raise pytest.UsageError(f"--shots must be between 0 and {MAX_SHOTS}, got {shots}")
        if passes < 0:
            raise pytest.UsageError(f"--modifier-passes must be 0 or more, got {passes}")
        self.shots, self.modifier_passes = shots, passes
        self.lp_solver = config.getoption("lp_solver")
        try:
            self._lp_script = solver_script(self.lp_solver)
        except ValueError as exc:
            raise pytest.UsageError(f"--lp-solver: {exc}") from None
        # The harness resolves (and checks) the alias and builds its adapter on the run's stack.
        self.modifier_alias = config.getoption("modifier_model")

    def report_tables(self, records: Sequence[Mapping[str, Any]]) -> list[Table]:
        return reporting.report_tables(records)

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, root: Path) -> Sequence[InstanceRef]:
        return dataset.discover(root)

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        """Generation is ``python -m benchmark.suites.mamo.generation``; nothing to add here."""

    def hidden_paths(self, root: Path) -> tuple[Path, ...]:
        return (root,)

    def dataset_fingerprint(self, root: Path) -> dict[str, str]:
        return dataset.fingerprint(root)

    def _execute(self, artifact: str, ode: bool, context: CaseContext) -> Attempt:
        if ode:
            return run_python(artifact, context.sandbox, context.limits)
        return run_lp(artifact, self._lp_script, context.sandbox, context.limits)

    def _asker(self, context: CaseContext) -> Callable[[list[Message], int, Callable[[], str]], str]:
        def ask(messages: list[Message], number: int, reference: Callable[[], str]) -> str:
            completion = context.complete(
                messages, reference=reference, key=f"modify{number}", model=self.modifier_alias
            )
            return completion.text

        return ask

    def evaluate(self, case: Case, context: CaseContext) -> Verdict:
        if case.setting not in self.settings:
            raise ValueError(f"mamo has no setting {case.setting!r}; choose from {', '.join(self.settings)}")
        question = dataset.load_case(case.instance)
        answer = float(question.answer)
        extra: dict[str, Any] = {
            "answer": question.answer,
            "absolute_tolerance": absolute_tolerance(question.answer),
            "where": question.where,
            "lp_solver": None if question.is_ode else self.lp_solver,
        }
        if self.artifacts_dir is not None:
            path = self.answer_file(question, case.instance)
            extra.update({"source": f"--artifacts {self.artifacts_dir}", "truncated": False})
            truncated = False
            if path.is_file():  # the same contract as a reply's artifact (fences optional)
                extracted = extract(path.read_text(encoding="utf-8", errors="replace"), ode=question.is_ode)
            else:
                extracted = Extracted(None, f"no answer file {path}")
        else:
            messages = task_messages(question, self.shots)
            completion = context.complete(messages, reference=lambda: _oracle_answer(question))
            extra["truncated"] = truncated = completion.truncated
            prompt = "\n".join(m.plain_text() for m in messages)
            extracted = extract(completion.text, ode=question.is_ode, prompt=prompt)
        if extracted.artifact is None:
            cut = " (the reply was cut off by the output limit)" if truncated else ""
            scores = {"raw": 0.0, "modified": 0.0, "executed_raw": 0.0, "executed_modified": 0.0}
            return Verdict.fail(
                ExecutionCategory.RESPONSE_CONTRACT,
                extracted.violation + cut,
                expected_objective=answer,
                scores=scores,
                extra=extra,
            )
        raw = self._execute(extracted.artifact, question.is_ode, context)
        final = raw
        # An answer file has no model to repair it unless a modifier model is named.
        can_modify = self.artifacts_dir is None or self.modifier_alias is not None
        if raw.category in NOT_EXECUTED and self.modifier_passes > 0 and can_modify:
            modified = modify(
                extracted.artifact,
                raw,
                ode=question.is_ode,
                passes=self.modifier_passes,
                ask=self._asker(context),
                execute=lambda artifact: self._execute(artifact, question.is_ode, context),
            )
            final = modified.attempt
            extra["modifier"] = {
                "model": self.modifier_alias or "self",
                "passes": modified.passes,
                "artifact": modified.artifact,
            }
        raw_correct = raw.value is not None and answers_match(raw.value, question.answer)
        final_correct = final.value is not None and answers_match(final.value, question.answer)
        extra["raw"] = raw.as_record()
        extra["modified"] = final.as_record()
        scores = {
            "raw": float(raw_correct),
            "modified": float(final_correct),
            "executed_raw": float(raw.executed),
            "executed_modified": float(final.executed),
        }
        name = "program.py" if question.is_ode else "model.lp"
        artifact = {name: extracted.artifact}
        output = {"stdout": raw.stdout, "stderr": raw.stderr}
        if final is not raw:
            artifact[f"modified/{name}"] = extra["modifier"]["artifact"]
            output.update({"modified/stdout": final.stdout, "modified/stderr": final.stderr})
        common: dict[str, Any] = {
            "artifact": artifact,
            "output": output,
            "valid_code": raw.executed,
            "expected_objective": answer,
            "returned_objective": raw.value,
            "scores": scores,
            "execution": {"outcome": raw.category or "ok", "wall_s": raw.wall_s, "error": raw.error},
            "extra": extra,
        }
        if raw_correct:
            return Verdict(passed=True, **common)
        if raw.category is not None:
            return Verdict.fail(raw.category, raw.error, **common)
        detail = f"returned {raw.value!r}, the answer is {question.answer} (Mamo comparison rule)"
        return Verdict.fail("wrong_ode_value" if question.is_ode else "wrong_objective", detail, **common)


SUITE = MamoSuite()
