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
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.artifacts import PREFIX as ARTIFACTS_PREFIX
from adapters.base import CompletionRequest, OracleUnavailable
from benchmark.attempt import Attempt, Reply
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory
from benchmark.messages import Message
from benchmark.reporting.render import Table
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
from benchmark.suites.mamo import dataset, reporting
from benchmark.suites.mamo.categories import MamoCategory
from benchmark.suites.mamo.comparison import absolute_tolerance, answers_match
from benchmark.suites.mamo.detail import DETAIL, MamoAttemptData
from benchmark.suites.mamo.execution import NOT_EXECUTED, Run, run_lp, run_python
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


class MamoSuite(SuiteDefaults):
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
    failure_categories: tuple[str, ...] = (*EXECUTION_CATEGORIES, *MamoCategory)
    detail: RecordDetail = DETAIL
    #: The modifier is a model alias: the harness asks it on the run's stack; its replies are in the attempt.
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

    def report_tables(self, records: Sequence[CaseRecord]) -> list[Table]:
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

    def _execute(self, artifact: str, ode: bool, context: CaseContext) -> Run:
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

    def solve(self, case: Case, context: CaseContext) -> Attempt:
        """Ask for the artifact (or read the answer file), run it, and let the code modifier repair
        one that did not execute; the runs are kept in the attempt's ``data`` (``raw``, and
        ``final`` when a modified artifact ran)."""
        if case.setting not in self.settings:
            raise ValueError(f"mamo has no setting {case.setting!r}; choose from {', '.join(self.settings)}")
        question = dataset.load_case(case.instance)
        attempt = Attempt(data={"lp_solver": None if question.is_ode else self.lp_solver})
        if self.artifacts_dir is not None:
            path = self.answer_file(question, case.instance)
            attempt.data["source"] = f"--artifacts {self.artifacts_dir}"
            if path.is_file():  # the same contract as a reply's artifact (fences optional)
                text = path.read_text(encoding="utf-8", errors="replace")
                attempt.replies[ANSWER] = Reply(text)
                extracted = extract(text, ode=question.is_ode)
            else:
                extracted = Extracted(None, f"no answer file {path}")
        else:
            messages = task_messages(question, self.shots)
            completion = context.complete(messages, reference=lambda: _oracle_answer(question))
            attempt.replies[ANSWER] = Reply(completion.text, completion.truncated)
            prompt = "\n".join(m.plain_text() for m in messages)
            extracted = extract(completion.text, ode=question.is_ode, prompt=prompt)
        if extracted.artifact is None:
            attempt.data["violation"] = extracted.violation
            return attempt
        name = artifact_name(question.is_ode)
        attempt.artifacts[name] = extracted.artifact
        raw = self._execute(extracted.artifact, question.is_ode, context)
        attempt.data["raw"] = dataclasses.asdict(raw)
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
            attempt.data["modifier"] = {
                "model": self.modifier_alias or "self",
                "passes": modified.passes,
                "artifact": modified.artifact,
            }
            if modified.attempt is not raw:
                attempt.artifacts[f"modified/{name}"] = modified.artifact
                attempt.data["final"] = dataclasses.asdict(modified.attempt)
        return attempt

    def score(self, case: Case, attempt: Attempt) -> Verdict:
        """The Mamo comparison of the artifact's number with the answer, before and after the
        modifier; a wrong number is ``wrong_ode_value`` (ODE) or ``wrong_objective`` (``.lp``)."""
        question = dataset.load_case(case.instance)
        answer = float(question.answer)
        reply = attempt.replies.get(ANSWER)
        truncated = reply is not None and reply.truncated
        data = MamoAttemptData.read(attempt.data)
        extra: dict[str, Any] = {
            "answer": question.answer,
            "absolute_tolerance": absolute_tolerance(question.answer),
            "where": question.where,
            "lp_solver": data.lp_solver,
        }
        if data.source is not None:
            extra.update({"source": data.source, "truncated": False})
        else:
            extra["truncated"] = truncated
        name = artifact_name(question.is_ode)
        if data.raw is None:
            cut = " (the reply was cut off by the output limit)" if truncated else ""
            scores = {"raw": 0.0, "modified": 0.0, "executed_raw": 0.0, "executed_modified": 0.0}
            return Verdict.fail(
                ExecutionCategory.RESPONSE_CONTRACT,
                str(data.violation) + cut,
                expected_objective=answer,
                scores=scores,
                extra=extra,
            )
        raw = Run(**data.raw)
        final = Run(**data.final) if data.final is not None else raw
        if data.modifier is not None:
            extra["modifier"] = data.modifier
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
        artifact = {name: attempt.artifacts[name]}
        output = {"stdout": raw.stdout, "stderr": raw.stderr}
        if data.final is not None:
            artifact[f"modified/{name}"] = attempt.artifacts[f"modified/{name}"]
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
        return Verdict.fail(
            MamoCategory.WRONG_ODE_VALUE if question.is_ode else MamoCategory.WRONG_OBJECTIVE,
            detail,
            **common,
        )

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        """The task request :meth:`solve` sends first; none when answers are read from files."""
        if self.artifacts_dir is not None or case.setting not in self.settings:
            return None
        question = dataset.load_case(case.instance)
        return case_request(case, task_messages(question, self.shots), max_tokens)


#: The interaction of the model's answer (or the answer file's text) in the attempt.
ANSWER = "answer"


def artifact_name(ode: bool) -> str:
    return "program.py" if ode else "model.lp"


#: Annotated with the protocol, so the type checker proves that the suite provides every hook.
SUITE: Suite = MamoSuite()
