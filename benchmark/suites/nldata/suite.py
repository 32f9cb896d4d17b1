"""The NLData2Opt suite: a description (with or without numbers) and data tables → an AMPL model and
data file → executed with glpsol in the sandbox → EBC against the verified optimum, EF1 against the
gold model's entities matched by role (``roles.py``; the count of declared types is ``ef1_types``),
and, with ``--judge-model``, LLM-ES from a judge.

A case passes when EBC is 1 within 1e-6 relative (``metrics.PASS_RELATIVE_TOLERANCE``) on the shown
data *and* on every held-out data instance (``heldout.py``: the same model on data it never saw, in
its own names); ``scores.ebc`` is that strict EBC (the lowest), ``ebc_shown`` and ``ebc_unseen`` (the
mean over the unseen instances) are recorded beside it, and a model optimal on the shown data only
fails with ``model_data_coupling``. Failures
carry the suite's own categories (:class:`~.categories.NLDataCategory`: undefined entities, data for
undeclared parameters, infeasible, unbounded, ``unsupported_syntax`` apart from model errors, ...).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterError, CompletionRequest
from benchmark.attempt import Attempt, Reply
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.base import CaseContext, Grouping, RecordDetail, Suite, SuiteDefaults, case_request
from benchmark.suites.nldata import backends, commands, dataset, reporting
from benchmark.suites.nldata.backends import BackendChoice
from benchmark.suites.nldata.categories import FAILURE_CATEGORIES, NLDataCategory
from benchmark.suites.nldata.detail import DETAIL, NldataAttemptData
from benchmark.suites.nldata.entities import declarations, entity_counts
from benchmark.suites.nldata.execution import run_unseen, run_with_dump
from benchmark.suites.nldata.heldout import Dumped, data_names, declared_names, map_entities, unseen_data
from benchmark.suites.nldata.judge import judge_messages, oracle_judgement, parse_score
from benchmark.suites.nldata.mathprog import BACKEND, DATA_FILE, MODEL_FILE, Execution
from benchmark.suites.nldata.metrics import ebc, ebc_passes, entity_f1
from benchmark.suites.nldata.prompts import fenced, task_messages
from benchmark.suites.nldata.response import extract
from benchmark.suites.nldata.roles import RoleMatch, gold_listing, read_lp, role_match
from benchmark.suites.nldata.settings import PAPER_SETTINGS, SETTINGS, NLDataSetting
from benchmark.verdict import Verdict

_FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "nldata"


class NLDataSuite(SuiteDefaults):
    name = "nldata"
    settings: tuple[str, ...] = SETTINGS
    default_setting: str = NLDataSetting.NL_DATA.value
    #: Without ``--setting``, every case runs under the paper's nine settings (its Fig. 5 rows);
    #: ``--setting=prediction_unnamed`` runs our unnamed-pattern prediction variant.
    run_settings: tuple[str, ...] = PAPER_SETTINGS
    official_settings: tuple[str, ...] = PAPER_SETTINGS
    labels: tuple[str, ...] = ("family", "subcategory", "difficulty", "instance_id")
    groupings: tuple[Grouping, ...] = (
        Grouping("family", order=("LP", "MILP"), aliases={"LP": "lp", "MILP": "milp"}, compare=True),
        Grouping("subcategory"),
        Grouping("difficulty", order=("easy", "medium", "hard"), compare=True),
    )
    failure_categories: tuple[str, ...] = FAILURE_CATEGORIES
    detail: RecordDetail = DETAIL
    #: The judge is a model alias: the harness asks it on the run's stack, ``rescore`` replays it.
    model_options: tuple[str, ...] = ("--judge-model",)

    def __init__(self) -> None:
        self.judge_alias: str | None = None
        self.backend = BackendChoice(BACKEND, "not configured yet")

    def add_options(self, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--judge-model",
            default=None,
            help="nldata: model alias of the LLM-ES judge (default: no judge; EBC and EF1 only)",
        )
        group.addoption(
            "--nldata-backend",
            choices=backends.CHOICES,
            default="auto",
            help="nldata: what runs the AMPL files: a licensed AMPL via amplpy, GNU MathProg, or auto",
        )

    def configure(self, config: pytest.Config) -> None:
        try:
            self.backend = backends.choose(config.getoption("nldata_backend"))
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        # The harness resolves (and checks) the alias and builds its adapter on the run's stack.
        self.judge_alias = config.getoption("judge_model")

    def report_tables(self, records: Sequence[CaseRecord]) -> list[Table]:
        return reporting.report_tables(records)

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, root: Path) -> Sequence[InstanceRef]:
        return dataset.discover(root)

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        commands.add_commands(add_command)

    def hidden_paths(self, root: Path) -> tuple[Path, ...]:
        return (root,)

    def dataset_fingerprint(self, root: Path) -> dict[str, str]:
        return {
            **dataset.fingerprint(root),
            "backend": self.backend.name,
            "backend_reason": self.backend.reason,
        }

    def solve(self, case: Case, context: CaseContext) -> Attempt:
        """The model's reply, its model and data files, their sandboxed run (with glpsol's display
        of the data and LP translation, which EF1 by role and the held-out runs read), the model
        on every unseen data instance after an optimum, and the judge's reply when one is named."""
        if case.setting not in self.settings:
            raise ValueError(
                f"nldata has no setting {case.setting!r}; choose from {', '.join(self.settings)}"
            )
        task = dataset.load_task(case.instance, case.setting)
        completion = context.complete(
            task_messages(task), reference=lambda: fenced(task.gold_model, task.gold_data)
        )
        attempt = Attempt(
            replies={ANSWER: Reply(completion.text, completion.truncated)},
            data={"backend": self.backend.name},
        )
        extracted = extract(completion.text)
        if extracted.model is None or extracted.data is None:
            return attempt
        model, data = extracted.model, extracted.data
        attempt.artifacts.update({MODEL_FILE: model, DATA_FILE: data})
        execution, dumped, listing = run_with_dump(
            model, data, context.sandbox, context.limits, self.backend.name, declared_names(model)
        )
        attempt.data.update(
            {"execution": _execution_record(execution), "dumped": _dumped_record(dumped), "listing": listing}
        )
        if execution.status == "optimal" and dumped is not None:
            mapping = map_entities(dumped, task.shown)
            names = data_names(model, data)
            datas = [unseen_data(mapping, dumped, instance, names) for instance in task.unseen]
            runs = run_unseen(model, datas, context.sandbox, context.limits)
            attempt.data["unseen_runs"] = [_execution_record(run) for run in runs]
        if self.judge_alias:
            attempt.data["judge_model"] = self.judge_alias
            attempt.replies[JUDGE] = self._ask_judge(context, task, model, data)
        return attempt

    def _ask_judge(self, context: CaseContext, task: dataset.Task, model: str, data: str) -> Reply:
        assert self.judge_alias is not None
        try:
            completion = context.complete(
                judge_messages(task.gold_model, task.gold_data, model, data),
                reference=lambda: oracle_judgement(task.gold_model, task.gold_data, model, data),
                key="judge",
                model=self.judge_alias,
                temperature=0.0,
            )
        except AdapterError as exc:
            return Reply("", error=f"{exc.kind}: {exc}")
        return Reply(completion.text, completion.truncated)

    def score(self, case: Case, attempt: Attempt) -> Verdict:
        """EBC on the shown data, the held-out runs (model/data coupling), EF1 by type and by
        role, and the judge's score beside them."""
        task = dataset.load_task(case.instance, case.setting)
        reply = attempt.replies[ANSWER]
        facts = NldataAttemptData.read(attempt.data)
        gold_counts = entity_counts(task.gold_model)
        extra: dict[str, Any] = {
            "backend": facts.backend,
            "where": task.where,
            "derived": task.derived,
            "predictions": [dict(p) for p in task.predictions],
            "gold_entities": dict(gold_counts),
            "truncated": reply.truncated,
        }
        if MODEL_FILE not in attempt.artifacts:
            cut = " (the reply was cut off by the output limit)" if reply.truncated else ""
            return Verdict.fail(
                ExecutionCategory.RESPONSE_CONTRACT,
                extract(reply.text).violation + cut,
                expected_objective=task.objective,
                scores={"ebc": 0.0, "ef1": 0.0},
                extra=extra,
            )
        model, data = attempt.artifacts[MODEL_FILE], attempt.artifacts[DATA_FILE]
        counts = entity_counts(model)
        assert facts.execution is not None, "an attempt with an artifact has its run"
        execution = _execution_of(facts.execution)
        dumped = _dumped_of(facts.dumped)
        listing = facts.listing
        ebc_shown = ebc(execution.objective, task.objective)
        heldout = _heldout(task, execution, dumped, facts.unseen_runs)
        unseen_ebcs = heldout.pop("ebcs")
        roles = _roles(task, model, dumped, listing)
        scores = {
            "ebc": min([ebc_shown, *unseen_ebcs]),
            "ebc_shown": ebc_shown,
            "ebc_unseen": sum(unseen_ebcs) / len(unseen_ebcs) if unseen_ebcs else 0.0,
            "ef1": roles.f1 if roles is not None else 0.0,
            "ef1_types": entity_f1(counts, gold_counts),
        }
        extra.update(
            {
                "entities": dict(counts),
                "ef1_roles": roles.as_record() if roles is not None else None,
                "execution": execution.as_record(),
                "heldout": heldout,
            }
        )
        if JUDGE in attempt.replies:
            judgement = _judgement(str(facts.judge_model), attempt.replies[JUDGE])
            extra["judge"] = judgement
            if judgement["score"] is not None:
                scores["llm_es"] = float(judgement["score"])
        common: dict[str, Any] = {
            "artifact": {MODEL_FILE: model, DATA_FILE: data},
            "output": {"stdout": execution.log, "stderr": execution.stderr},
            "valid_code": execution.status in ("optimal", "infeasible", "unbounded"),
            "expected_objective": task.objective,
            "returned_objective": execution.objective,
            "scores": scores,
            "execution": {
                "outcome": execution.category or "ok",
                "status": execution.status,
                "wall_s": execution.wall_s,
            },
            "extra": extra,
        }
        if not ebc_passes(execution.objective, task.objective):
            category = execution.category or NLDataCategory.WRONG_OBJECTIVE
            detail = execution.error or (
                f"objective {execution.objective!r}, the verified optimum is {task.objective!r} "
                f"(EBC {ebc_shown:.4f})"
            )
            return Verdict.fail(category, detail, **common)
        if not heldout["run"]:
            detail = f"optimal on the shown data, but the unseen data could not be run: {heldout['reason']}"
            return Verdict.fail(NLDataCategory.MODEL_DATA_COUPLING, detail, **common)
        failed = [run for run in heldout["runs"] if not run["passed"]]
        if failed:
            first = failed[0]
            detail = (
                f"optimal on the shown data, but on {len(failed)} of {len(heldout['runs'])} unseen data "
                f"instances of the same schema it is not: on {first['instance']} the model gives "
                f"{first['status']} {first['objective']!r} ({first['error'] or 'wrong objective'}), the "
                f"verified optimum is {first['expected_objective']!r}; values written into the model "
                "instead of the data file? (mapping of the data names in extra.heldout.mapping)"
            )
            return Verdict.fail(NLDataCategory.MODEL_DATA_COUPLING, detail, **common)
        return Verdict(passed=True, **common)

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        """The task request :meth:`solve` sends first."""
        if case.setting not in self.settings:
            return None
        return case_request(case, task_messages(dataset.load_task(case.instance, case.setting)), max_tokens)


#: The interactions of a case in its attempt: the model's answer and the judge's reply.
ANSWER = "answer"
JUDGE = "judge"


def _judgement(judge_model: str, reply: Reply) -> dict[str, Any]:
    """The judge's score of the candidate (None, with why, when its reply has none)."""
    if reply.error is not None:
        return {"model": judge_model, "score": None, "error": reply.error}
    score = parse_score(reply.text)
    return {
        "model": judge_model,
        "score": score,
        "reply": reply.text[-2000:],
        "error": None if score is not None else "the judge's reply has no SCORE: 0-10 line",
    }


def _execution_record(execution: Execution) -> dict[str, Any]:
    return dataclasses.asdict(execution)


def _execution_of(stored: Mapping[str, Any]) -> Execution:
    return Execution(**{**stored, "ampl_only": tuple(stored["ampl_only"])})


def _dumped_record(dumped: Dumped | None) -> dict[str, Any] | None:
    """glpsol's display of the data as JSON: a parameter's values as ``[key parts, value]`` pairs."""
    if dumped is None:
        return None
    return {
        "sets": {name: list(members) for name, members in dumped.sets.items()},
        "params": {name: [[list(k), v] for k, v in values.items()] for name, values in dumped.params.items()},
    }


def _dumped_of(stored: Mapping[str, Any] | None) -> Dumped | None:
    if stored is None:
        return None
    return Dumped(
        {name: tuple(members) for name, members in stored["sets"].items()},
        {name: {tuple(k): v for k, v in pairs} for name, pairs in stored["params"].items()},
    )


def _heldout(
    task: dataset.Task,
    execution: Execution,
    dumped: Dumped | None,
    unseen_runs: Sequence[Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """The model on every unseen instance, its data written in the candidate's names. Run only
    after an optimal solve on the shown data (anything else fails already); ``ebcs`` is one EBC
    per unseen instance, all 0 when the held-out data could not be run."""
    count = len(task.unseen)
    if execution.status != "optimal":
        return {"instances": count, "run": False, "reason": "no optimum on the shown data", "runs": [],
                "ebcs": [0.0] * count}  # fmt: skip
    if dumped is None or unseen_runs is None:
        reason = "glpsol could not display the sets and parameters of the data file"
        return {"instances": count, "run": False, "reason": reason, "runs": [], "ebcs": [0.0] * count}
    mapping = map_entities(dumped, task.shown)
    runs = [_execution_of(run) for run in unseen_runs]
    out = []
    for position, (instance, run) in enumerate(zip(task.unseen, runs, strict=True), start=1):
        out.append(
            {
                "instance": f"u{position}",
                "sizes": {name: len(members) for name, members in instance.sets.items()},
                "expected_objective": instance.objective,
                "objective": run.objective,
                "status": run.status,
                "category": run.category,
                "error": run.error,
                "ebc": ebc(run.objective, instance.objective),
                "passed": ebc_passes(run.objective, instance.objective),
            }
        )
    return {
        "instances": count,
        "run": True,
        "backend": BACKEND,
        "mapping": mapping.as_record(),
        "runs": out,
        "ebcs": [run["ebc"] for run in out],
    }


def _roles(task: dataset.Task, model: str, dumped: Dumped | None, listing: str | None) -> RoleMatch | None:
    """EF1 by role (``roles.py``); None when glpsol could not translate the candidate's model."""
    if dumped is None or listing is None:
        return None
    mapping = map_entities(dumped, task.shown)
    gold = declarations(task.gold_model)
    theirs = declarations(model)

    def matched(kind: str, mapped: dict[str, str]) -> tuple[int, int, int]:
        ours = {d.name for d in gold if d.kind == kind}
        names = [d.name for d in theirs if d.kind == kind]
        return len({mapped[n] for n in names if n in mapped} & ours), len(names), len(ours)

    params = {name: gold_name for name, (gold_name, _) in mapping.params.items()}
    gold_lp = gold_listing(task.gold_model, task.gold_data)
    try:
        candidate = read_lp(listing)
        return role_match(candidate, gold_lp, (matched("set", mapping.sets), matched("parameter", params)))
    except (ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError):
        # an LP translation we cannot read is scored as no match, never a lost case
        return None


#: Annotated with the protocol, so the type checker proves that the suite provides every hook.
SUITE: Suite = NLDataSuite()
