"""Parity with the official MM-OptBench release, on a shipped sample of its packages.

``tests/data/official_mmopt/`` holds real packages of the official release (attribution and
licence in its README), at least one per subcategory we ship. Everything here is driven by that
folder: a package added there (with its mutant in ``mutants.json``) is tested with no code change.

For every package: its official reference solution, returned by ``solve()``, scores correct under
both ``--scoring`` modes; three mutants get the official verdict under ``official`` and are
rejected under ``strict`` (a feasibility-type package, whose answer is a status, has no objective
to shift, so two); and no check reads an instance key the official schema lacks.

A subcategory is checked by its folder's ``official.py`` rules when it has one; a subcategory
built on the official schema from the start may instead have its validator read the official
instance directly (then ``OPTIONAL_KEYS`` in its validator module lists the keys it may look up
that an instance may lack).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from benchmark.cases import InstanceRef
from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.feasibility import is_feasibility_type
from benchmark.suites.mmopt.official import official_rules, official_schema
from benchmark.suites.mmopt.package import SETTING_FILES, Package, discover, load_package
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories import all_subcategories, get_subcategory
from benchmark.verdict import Verdict

SAMPLE = Path(__file__).parent / "data" / "official_mmopt"
MUTANTS: dict[str, Any] = json.loads((SAMPLE / "mutants.json").read_text(encoding="utf-8"))
REFS = discover(SAMPLE)
MODES = ("official", "strict")


def _key(ref: InstanceRef) -> str:
    return "/".join(ref.path)


def _has_objective(ref: InstanceRef) -> bool:
    """Whether the reference answer is an optimum (a feasibility-type answer is a status only)."""
    solution = json.loads((ref.location / "ground_truth" / "solution_ref.json").read_text(encoding="utf-8"))
    return not is_feasibility_type(solution)


@pytest.fixture(params=REFS, ids=_key)
def package(request: pytest.FixtureRequest) -> Package:
    return load_package(request.param, SETTING_FILES["stage1"])


@pytest.fixture(params=[ref for ref in REFS if _has_objective(ref)], ids=_key)
def optimization_package(request: pytest.FixtureRequest) -> Package:
    return load_package(request.param, SETTING_FILES["stage1"])


def _score(package: Package, value: Mapping[str, Any], scoring: str, instance: Any = None) -> Verdict:
    ran = ExecutionResult(
        outcome=Outcome.OK, value=dict(value), stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    return score_execution(
        ran,
        subcategory=package.subcategory,
        instance=package.instance_data if instance is None else instance,
        solution_ref=package.solution_ref,
        objective_only=False,
        scoring=scoring,
    )


def _optional_keys(package: Package) -> set[str]:
    rules = official_rules(package.subcategory)
    if rules is not None:
        return set(rules.OPTIONAL_KEYS)
    validator = getattr(get_subcategory(package.subcategory), "validator", None)
    return set(getattr(validator, "OPTIONAL_KEYS", ()))


def _objective_aliases(package: Package) -> set[str]:
    rules = official_rules(package.subcategory)
    keys = {"objective_value", "objective_exact", "objective"}
    if rules is not None:
        keys |= set(getattr(rules, "OBJECTIVE_KEYS", ())) | set(rules.REFERENCE_KEYS)
    return keys


def _mutant_spec(package: Package) -> dict[str, Any]:
    key = "/".join((package.family, package.subcategory, package.difficulty, package.instance_id))
    assert key in MUTANTS, f"tests/data/official_mmopt/mutants.json has no entry for {key}"
    return dict(MUTANTS[key])


def _with_infeasible_decision(package: Package) -> dict[str, Any]:
    spec = _mutant_spec(package)["infeasible_decision"]
    answer = copy.deepcopy(package.solution_ref)
    target = answer
    for step in spec["path"][:-1]:
        target = target[step]
    assert spec["path"][-1] in target or isinstance(target, dict), spec
    target[spec["path"][-1]] = spec["value"]
    return answer


def _with_objective_shifted(package: Package) -> dict[str, Any]:
    aliases = _objective_aliases(package)
    answer = copy.deepcopy(package.solution_ref)
    shifted = [key for key in answer if key in aliases and isinstance(answer[key], int | float)]
    assert shifted, "the reference solution reports no objective under an official alias"
    for key in shifted:
        answer[key] += 1.0
    return answer


def test_the_sample_covers_every_subcategory_with_official_rules() -> None:
    sampled = {ref.labels["subcategory"] for ref in REFS}
    with_rules = {name for name in all_subcategories() if official_rules(name) is not None}
    assert len(with_rules) >= 10
    missing = sorted(with_rules - sampled)
    assert not missing, f"add an official package for {missing} to tests/data/official_mmopt/"
    listed = set(MUTANTS) - {"_about"}
    assert listed == {_key(ref) for ref in REFS}
    assert sampled <= set(all_subcategories())


def test_every_sample_package_is_read_in_the_official_schema(package: Package) -> None:
    if official_rules(package.subcategory) is not None:
        assert official_schema(package.subcategory, package.instance_data) is not None
    assert package.task_text and package.visuals


@pytest.mark.parametrize("scoring", MODES)
def test_the_official_reference_scores_correct(package: Package, scoring: str) -> None:
    verdict = _score(package, package.solution_ref, scoring)
    assert verdict.passed, verdict.detail
    assert verdict.extra["decisions_checked"]
    if official_rules(package.subcategory) is not None:
        assert verdict.extra["schema"] == "official"


@pytest.mark.parametrize("scoring", MODES)
def test_a_reference_nested_under_solution_scores_correct(package: Package, scoring: str) -> None:
    assert _score(package, {"solution": package.solution_ref}, scoring).passed


@pytest.mark.parametrize("scoring", MODES)
def test_an_objective_changed_in_every_alias_is_rejected(optimization_package: Package, scoring: str) -> None:
    verdict = _score(optimization_package, _with_objective_shifted(optimization_package), scoring)
    assert not verdict.passed and verdict.category == "infeasible_solution", verdict.detail


@pytest.mark.parametrize("scoring", MODES)
def test_an_infeasible_decision_is_rejected(package: Package, scoring: str) -> None:
    verdict = _score(package, _with_infeasible_decision(package), scoring)
    assert not verdict.passed and verdict.category == "infeasible_solution", verdict.detail


def test_a_flipped_status_gets_the_official_verdict(package: Package) -> None:
    flipped = {**package.solution_ref, "status": "infeasible"}
    official = _score(package, flipped, "official")
    assert official.passed is not _mutant_spec(package)["official_reads_status"], official.detail
    assert not _score(package, flipped, "strict").passed


MALFORMED_VALUES: tuple[Any, ...] = (
    "x",
    None,
    True,
    [],
    {},
    [["a"]],
    [{"from": "a"}],
    {"a": {"b": "c"}},
    -1e308,
)


def test_a_malformed_answer_is_a_failure_not_an_exception(package: Package) -> None:
    for scoring in MODES:
        for value in (
            {},
            {"status": "optimal"},
            {"solution": [1, 2]},
            {k: "x" for k in package.solution_ref},
        ):
            assert not _score(package, value, scoring).passed
        for key in package.solution_ref:  # each field of the reference, broken in turn: never a crash
            for broken in MALFORMED_VALUES:
                _score(package, {**package.solution_ref, key: broken}, scoring)


class _AuditedDict(dict):  # type: ignore[type-arg]
    """A dict that records every key looked up and absent, wrapping nested dicts as they are read."""

    def __init__(self, data: Mapping[str, Any], absent: set[str]) -> None:
        super().__init__(data)
        self._absent = absent

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, dict) and not isinstance(value, _AuditedDict):
            return _AuditedDict(value, self._absent)
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        return value

    def __getitem__(self, key: Any) -> Any:
        if not super().__contains__(key):
            self._absent.add(str(key))
        return self._wrap(super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        if not super().__contains__(key):
            self._absent.add(str(key))
            return default
        return self._wrap(super().__getitem__(key))

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        return (self._wrap(v) for v in super().values())

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        return ((k, self._wrap(v)) for k, v in super().items())


def test_no_check_reads_a_key_the_official_schema_lacks(package: Package) -> None:
    # Answers that name only the instance's own entities: a lookup of an absent key is then a read of
    # a field the schema lacks (an infeasible mutant may name unknown entities, so it is left out).
    absent: set[str] = set()
    instance = _AuditedDict(package.instance_data, absent)
    answers = [package.solution_ref, {"solution": package.solution_ref}]
    if not is_feasibility_type(package.solution_ref):
        answers.append(_with_objective_shifted(package))
    for scoring in MODES:
        for answer in answers:
            _score(package, answer, scoring, instance=instance)
    unexpected = absent - _optional_keys(package)
    assert not unexpected, f"the official check read keys this official instance lacks: {sorted(unexpected)}"
