"""Every suite's own parts of a record (``scores``, ``extra``, ``attempt.data``) are typed: the
harness checks each attempt and verdict against the suite's detail models before the record is
written, so an undeclared or mistyped key is refused by name, and readers get attributes.

The verdicts here are the suites' real scoring of an answer without an artifact (cheap: no model,
no sandbox); the conformance battery (``test_suite_conformance.py``) checks the verdict of every
planted category and of the oracle through the same :func:`checked_verdict`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from benchmark.attempt import Attempt, Reply
from benchmark.cases import Case
from benchmark.categories import ExecutionCategory
from benchmark.plugin.evaluation import checked_verdict
from benchmark.schema import SuiteDetail
from benchmark.suites.base import RecordDetail, Suite, get_suite, suite_names
from benchmark.suites.mamo.detail import MamoExtra, MamoScores
from benchmark.suites.mmopt.detail import MmoptExtra
from benchmark.suites.nldata.detail import NldataExtra, NldataScores
from benchmark.suites.tbmath.detail import TbmathExtra, TbmathScores
from benchmark.verdict import Verdict

NAMES = suite_names()

#: Per suite, the attempt of an answer that holds no artifact, as the suite's ``solve`` leaves it.
NO_ARTIFACT: dict[str, Callable[[], Attempt]] = {
    "mmopt": lambda: Attempt(
        replies={"stage1": Reply("I cannot write code today.")},
        data={"scoring": "strict", "objective_only": False},
    ),
    "nldata": lambda: Attempt(
        replies={"answer": Reply("no model here")}, data={"backend": "mathprog-glpsol"}
    ),
    "mamo": lambda: Attempt(
        replies={"answer": Reply("no code")}, data={"lp_solver": "highs", "violation": "no fenced code block"}
    ),
    "tbmath": lambda: Attempt(
        data={
            "agent_limits": {"max_turns": 1},
            "scoring": "strict",
            "pass_at": 0.999,
            "baseline_given": False,
            "source": "agent",
            "artifact_base64": None,
        }
    ),
}


def _first_case(suite: Suite) -> Case:
    ref = suite.discover(suite.default_dataset())[0]
    return Case(instance=ref, setting=suite.default_setting, sample=0, temperature=0.0)


def _no_artifact_verdict(name: str) -> tuple[Suite, Verdict]:
    suite = get_suite(name)
    attempt = NO_ARTIFACT[name]()
    suite.detail.check_attempt(suite.name, attempt)
    return suite, checked_verdict(suite, suite.score(_first_case(suite), attempt))


def test_every_registered_suite_has_a_case_without_an_artifact_here() -> None:
    assert sorted(NO_ARTIFACT) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_part_refuses_an_undeclared_key_by_name(name: str) -> None:
    detail = get_suite(name).detail
    assert isinstance(detail, RecordDetail)
    checks: dict[str, Callable[[], None]] = {
        "scores": lambda: detail.check_verdict(name, Verdict(passed=True, scores={"no_such_score": 1.0})),
        "extra": lambda: detail.check_extra(name, {"no_such_key": 1}),
        "attempt.data": lambda: detail.check_attempt(name, Attempt(data={"no_such_fact": 1})),
    }
    for part, check in checks.items():
        escaped = re.escape(part)
        with pytest.raises(ValueError, match=rf"suite {name} wrote .*{escaped}\.no_such"):
            check()


@pytest.mark.parametrize("name", NAMES)
def test_the_suites_verdict_passes_its_own_models_and_a_misspelt_key_does_not(name: str) -> None:
    suite, verdict = _no_artifact_verdict(name)
    assert not verdict.passed and verdict.category == ExecutionCategory.RESPONSE_CONTRACT
    misspelt = Verdict(
        passed=False,
        category=verdict.category,
        detail=verdict.detail,
        scores=verdict.scores,
        extra={**verdict.extra, "truncatd": False},
    )
    with pytest.raises(ValueError, match=r"extra\.truncatd: Extra inputs are not permitted"):
        checked_verdict(suite, misspelt)


def test_a_mistyped_value_is_refused_with_its_key() -> None:
    suite, verdict = _no_artifact_verdict("mmopt")
    wrong = Verdict(passed=False, category=verdict.category, extra={**verdict.extra, "truncated": [1]})
    with pytest.raises(
        ValueError, match=r"MmoptExtra refuses: extra\.truncated: Input should be a valid boolean"
    ):
        checked_verdict(suite, wrong)


def test_readers_get_the_written_values_as_attributes() -> None:
    _, mmopt = _no_artifact_verdict("mmopt")
    extra = MmoptExtra.read(mmopt.extra)
    assert extra.scoring == "strict" and extra.truncated is False and extra.failure_class is not None
    _, nldata = _no_artifact_verdict("nldata")
    assert NldataScores.read(nldata.scores).ebc == 0.0 and NldataScores.read(nldata.scores).llm_es is None
    assert NldataExtra.read(nldata.extra).backend == "mathprog-glpsol"
    _, mamo = _no_artifact_verdict("mamo")
    assert (
        MamoScores.read(mamo.scores).executed_raw == 0.0 and MamoExtra.read(mamo.extra).lp_solver == "highs"
    )
    _, tbmath = _no_artifact_verdict("tbmath")
    assert TbmathScores.read(tbmath.scores).o_eval == 0.0
    flags = TbmathExtra.read(tbmath.extra).task_flags
    assert flags.gate in ("gated", "ungated") and flags.config_format


def test_an_absent_optional_key_reads_as_its_default_and_an_alias_as_its_key() -> None:
    extra = MmoptExtra.read({"schema": "official"})
    assert extra.schema_ == "official" and extra.stage2 is None and extra.parse_notes == []
    with pytest.raises(ValueError, match="schema_"):
        MmoptExtra.check({"schema_": "official"})
    assert issubclass(MmoptExtra, SuiteDetail)


def test_reading_passes_over_keys_an_older_harness_wrote_at_any_depth() -> None:
    older = {"attribution": "unresolved", "retired_key": 1, "stage2": {"status": "matched", "retired": 2}}
    extra = MmoptExtra.read(older)
    assert extra.attribution == "unresolved" and extra.stage2 is not None and extra.stage2.status == "matched"
    with pytest.raises(ValueError, match="retired_key"):
        MmoptExtra.check(older)
