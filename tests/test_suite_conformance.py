"""Every registered suite keeps the :class:`~benchmark.suites.base.Suite` contract end to end.

One battery, parametrized over the registry (:func:`benchmark.suites.base.suite_names`), so a suite
added later is covered or fails by name: it declares every hook of the protocol; a small sample of
its shipped data regenerates byte for byte with its own generator; its oracle passes on a sample
that holds every value of each coarse grouping it declares; for every failure category it declares
an answer planted from the case's own reference answer is scored as exactly that category (and
again after the attempt's JSON round trip, as ``rescore`` reads it); and each infrastructure
category is raised as its kind where it can be produced for real (a damaged copy of an instance, a
sandbox that cannot start, a model endpoint with no answer, a case the suite cannot solve).

How each category is planted is the suite's business, so it is written per suite below
(:data:`PLANS`); a category that cannot be planted in a suite is listed there with the reason, and
a declared category that is neither planted nor listed fails the battery.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterError, Completion, CompletionRequest, ModelAdapter, OracleUnavailable
from adapters.oracle import OracleAdapter
from adapters.planted import damage_code
from adapters.replay import ReplayAdapter
from benchmark.attempt import Attempt
from benchmark.cases import Case, InstanceRef
from benchmark.categories import InfrastructureCategory
from benchmark.plugin.evaluation import checked_verdict
from benchmark.sandbox import BwrapSandbox, Limits, Sandbox, create_sandbox
from benchmark.suites.base import CaseContext, Suite, get_suite, suite_names
from benchmark.verdict import DatasetError, InfrastructureError, NotEvaluable, Verdict
from tests.conftest import REPO

NAMES: tuple[str, ...] = suite_names()
RUN_LIMITS = Limits(wall_timeout_s=120.0)
#: A planted timeout: an answer that never ends, stopped after 2 s whatever the machine's load.
LOOP_LIMITS = Limits(wall_timeout_s=2.0)

#: A reply to one request, given the request and the oracle's reply to it.
Answer = Callable[[CompletionRequest, str], str]


# ----------------------------------------------------------------------------- how plants are made


@dataclass(frozen=True)
class Plant:
    """One failure category planted in one suite: on the first instance ``where`` accepts, every
    request is answered by ``answer(ref)`` (the oracle's reply, damaged)."""

    answer: Callable[[InstanceRef], Answer]
    where: Callable[[InstanceRef], bool] = lambda ref: True
    limits: Limits = RUN_LIMITS


@dataclass(frozen=True)
class Plan:
    """How the battery plants every category of one suite, damages one of its instances and
    regenerates a sample of its data (the differences from the shipped files; ``[]``: identical)."""

    plants: Mapping[str, Plant]
    damaged: Callable[[InstanceRef, Path], InstanceRef]
    regeneration_differences: Callable[[Suite, Path], list[str]]
    not_plantable: Mapping[str, str] = field(default_factory=dict)
    """Declared categories no answer can produce, each with the reason."""


class PlantingAdapter:
    """Answers each request with the plant's damage of the oracle's reply."""

    name = "planting"

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def describe(self) -> dict[str, object]:
        return {"adapter": self.name, "model_id": self.name}

    def complete(self, request: CompletionRequest) -> Completion:
        reference = request.reference() if request.reference is not None else ""
        return Completion(text=self.answer(request, reference), model_id=self.name, finish_reason="stop")


def _replace_json(path: Path, ref_id: str, id_field: str, change: Mapping[str, Any]) -> None:
    """Rewrite the JSONL line of ``path`` whose ``id_field`` is ``ref_id`` with ``change`` applied."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        obj = json.loads(line)
        if str(obj.get(id_field)) == ref_id:
            lines[number] = json.dumps({**obj, **change})
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return
    raise AssertionError(f"{path}: no line with {id_field} {ref_id}")


def _copied(ref: InstanceRef, tmp: Path) -> InstanceRef:
    """``ref`` moved onto a copy of its file or folder under ``tmp``."""
    target = tmp / ref.location.name
    if ref.location.is_dir():
        shutil.copytree(ref.location, target)
    else:
        shutil.copyfile(ref.location, target)
    return dataclasses.replace(ref, location=target)


# ----------------------------------------------------------------------------- mmopt

_CODE = "PYTHON_CODE\n"


def _mmopt_code(change: Callable[[str], str]) -> Callable[[str], str]:
    """A Stage-1 answer whose PYTHON_CODE section is ``change`` of the reference's."""

    def damage(answer: str) -> str:
        head, _, code = answer.rpartition(_CODE)
        assert head, "the mmopt reference answer has no PYTHON_CODE section"
        return head + _CODE + change(code)

    return damage


def _mmopt_result(edit: str) -> Callable[[str], str]:
    """The reference's ``solve()``, its result dict changed by the statement ``edit`` (on ``result``)."""
    return _mmopt_code(
        lambda code: (
            code.replace("def solve(", "def _reference_solve(")
            + f"\n\ndef solve():\n    result = _reference_solve()\n    {edit}\n    return result\n"
        )
    )


def _mmopt(damage: Callable[[str], str], limits: Limits = RUN_LIMITS) -> Plant:
    return Plant(
        lambda ref: lambda request, reference: damage(reference),
        # an optimization instance whose decisions the validator recomputes (maximum flow)
        where=lambda ref: ref.labels["subcategory"] == "maximum_flow",
        limits=limits,
    )


def _mmopt_damaged(ref: InstanceRef, tmp: Path) -> InstanceRef:
    copied = _copied(ref, tmp)
    (copied.location / "ground_truth/instance_data.json").write_text("{", encoding="utf-8")
    return copied


def _mmopt_regeneration(suite: Suite, tmp: Path) -> list[str]:
    """``check-regeneration`` (in-process) on a root holding copies of the oracle sample's easy
    packages (a medium or hard one takes seconds to regenerate)."""
    from benchmark.suites.mmopt.generation import check_regeneration

    root = suite.default_dataset()
    shipped = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    labels = {"/".join(ref.path) for ref in oracle_sample(suite.name) if ref.labels["difficulty"] == "easy"}
    entries = [entry for entry in shipped["packages"] if entry["path"] in labels]
    assert len(entries) == len(labels), "a sampled package is not in the manifest"
    for label in labels:
        shutil.copytree(root / label, tmp / label)
    (tmp / "manifest.json").write_text(json.dumps({**shipped, "packages": entries}), encoding="utf-8")
    return check_regeneration(tmp)


MMOPT = Plan(
    plants={
        "response_contract": _mmopt(lambda answer: "I would model this, but I will not write any code."),
        "syntax": _mmopt(_mmopt_code(lambda code: damage_code(code, "syntax"))),
        "dependency": _mmopt(_mmopt_code(lambda code: damage_code(code, "missing_package"))),
        "runtime": _mmopt(_mmopt_result("raise RuntimeError('planted')")),
        "timeout": _mmopt(_mmopt_code(lambda code: damage_code(code, "infinite_loop")), LOOP_LIMITS),
        "output_format": _mmopt(_mmopt_result("result = 'the answer is 42'")),
        # the reported objective is not what the returned decisions give
        "infeasible_solution": _mmopt(_mmopt_result("result['objective_value'] += 1000")),
        # the optimal decisions, reported as if the instance had no optimum
        "wrong_objective": _mmopt(_mmopt_result("result['status'] = 'infeasible'")),
    },
    damaged=_mmopt_damaged,
    regeneration_differences=_mmopt_regeneration,
)


# ----------------------------------------------------------------------------- mamo


def _mamo_question(ref: InstanceRef) -> Any:
    from benchmark.suites.mamo import dataset

    return dataset.load_case(ref)


def _mamo_fenced(ode: bool, change: Callable[[InstanceRef, str], str]) -> Callable[[InstanceRef], Answer]:
    """The reference artifact changed by ``change`` (fenced as the oracle fences it)."""
    from benchmark.suites.mamo.prompts import fenced

    def answer(ref: InstanceRef) -> Answer:
        artifact = _mamo_question(ref).reference
        return lambda request, reference: (
            fenced(change(ref, artifact), ode=ode) if not request.case_key.endswith("/modify1") else reference
        )

    return answer


def _mamo(ode: bool, change: Callable[[InstanceRef, str], str], limits: Limits = RUN_LIMITS) -> Plant:
    return Plant(
        _mamo_fenced(ode, change),
        where=lambda ref: (
            ref.labels["family"] == ("ordinary_differential_equation" if ode else "optimization")
        ),
        limits=limits,
    )


def _far_from_answer(ref: InstanceRef, program: str) -> str:
    """The program printing a number the answer cannot match: 2|answer| + 1."""
    return program + f"\nprint({2 * abs(float(_mamo_question(ref).answer)) + 1!r})\n"


def _lp_infeasible(ref: InstanceRef, lp: str) -> str:
    """Two contradicting constraints on a new variable (the file still reads and solves)."""
    head, found, tail = lp.partition("Subject To\n")
    assert found, "the mamo reference .lp has no 'Subject To' section"
    return head + found + " zz_low: zz_new >= 1\n zz_high: zz_new <= 0\n" + tail


def _mamo_damaged(ref: InstanceRef, tmp: Path) -> InstanceRef:
    copied = _copied(ref, tmp)
    _replace_json(copied.location, ref.path[-1], "id", {"Answer": ""})
    return copied


def _mamo_regeneration(suite: Suite, tmp: Path) -> list[str]:
    """The first question of every file, regenerated with the shipped base seed."""
    from benchmark.suites.mamo.generation.build import generate

    root = suite.default_dataset()
    shipped = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    generate(
        tmp, counts={info["type"]: 1 for info in shipped["files"].values()}, base_seed=shipped["base_seed"]
    )
    return [
        f"{name}: its first line differs from its regeneration"
        for name in shipped["files"]
        if (tmp / name).read_text().splitlines()[0] != (root / name).read_text().splitlines()[0]
    ]


MAMO = Plan(
    plants={
        "response_contract": _mamo(True, lambda ref, program: "I cannot solve this one."),
        "syntax": _mamo(True, lambda ref, program: damage_code(program, "syntax")),
        "dependency": _mamo(True, lambda ref, program: damage_code(program, "missing_package")),
        "runtime": _mamo(True, lambda ref, program: program + "\nraise RuntimeError('planted')\n"),
        "timeout": _mamo(True, lambda ref, program: program + "\nwhile True:\n    pass\n", LOOP_LIMITS),
        "output_format": _mamo(True, lambda ref, program: program + "\nprint('done')\n"),
        "wrong_ode_value": _mamo(True, _far_from_answer),
        # an .lp model that reads and solves but is infeasible: no optimum to be the answer
        "wrong_objective": _mamo(False, _lp_infeasible),
    },
    damaged=_mamo_damaged,
    regeneration_differences=_mamo_regeneration,
)


# ----------------------------------------------------------------------------- nldata

_OBJECTIVE = re.compile(r"\b(maximize|minimize)\s+\w+\s*:(.*?);", re.S)


def _nldata_task(ref: InstanceRef) -> Any:
    from benchmark.suites.nldata import dataset

    return dataset.load_task(ref, "nl_data")


def _nldata(change: Callable[[InstanceRef, str, str], tuple[str, str]], **kw: Any) -> Plant:
    """The gold model and data file of the case, changed by ``change(ref, model, data)``."""
    from benchmark.suites.nldata.prompts import fenced

    def answer(ref: InstanceRef) -> Answer:
        task = _nldata_task(ref)
        return lambda request, reference: fenced(*change(ref, task.gold_model, task.gold_data))

    return Plant(answer, **kw)


def _model(addition: str) -> Callable[[InstanceRef, str, str], tuple[str, str]]:
    return lambda ref, model, data: (model + addition, data)


def _objective(
    rewrite: Callable[[str, str], str], before: str = ""
) -> Callable[[InstanceRef, str, str], tuple[str, str]]:
    """The gold model with its objective's expression rewritten (``rewrite(sense, expression)``),
    ``before`` declared ahead of it."""

    def change(ref: InstanceRef, model: str, data: str) -> tuple[str, str]:
        found = _OBJECTIVE.search(model)
        assert found, "the nldata gold model has no objective"
        start, end = found.span(2)
        return model[: found.start()] + before + model[found.start() : start] + rewrite(
            found[1], found[2]
        ) + model[end:], data

    return change


def _constant_objective(ref: InstanceRef, model: str, data: str) -> tuple[str, str]:
    """The shown optimum written into the model, no data read: right on the shown data only."""
    sense = _OBJECTIVE.search(model)
    assert sense
    bound = ">=" if sense[1] == "minimize" else "<="
    value = float(_nldata_task(ref).objective)
    return f"var z;\n{sense[1]} total: z;\ns.t. floor: z {bound} {value!r};\n", "data;\nend;\n"


def _unseen_optimum_differs(ref: InstanceRef) -> bool:
    task = _nldata_task(ref)
    return any(abs(u.objective - task.objective) > 1e-3 * max(1.0, abs(task.objective)) for u in task.unseen)


def _nldata_damaged(ref: InstanceRef, tmp: Path) -> InstanceRef:
    copied = _copied(ref, tmp)
    _replace_json(copied.location, ref.path[-1], "id", {"objective": "unknown"})
    return copied


def _nldata_regeneration(suite: Suite, tmp: Path) -> list[str]:
    """The first record of every domain, regenerated (``generate(per_domain=1)``)."""
    from benchmark.suites.nldata.generation import generate

    root = suite.default_dataset()
    return [
        f"{name}: its first line differs from its regeneration"
        for name, text in generate(per_domain=1).items()
        if name != "manifest.json" and text.splitlines()[0] != (root / name).read_text().splitlines()[0]
    ]


NLDATA = Plan(
    plants={
        "response_contract": Plant(lambda ref: lambda request, reference: "The model is a simple LP."),
        "unsupported_syntax": _nldata(_model("param zz_let;\nlet zz_let := 1;\n")),
        "syntax": _nldata(_model("s.t. zz_syntax: 1 * * 2 >= 0;\n")),
        "undefined_entity": _nldata(_model("s.t. zz_undefined: zz_nowhere >= 0;\n")),
        "undeclared_data_parameter": _nldata(
            lambda ref, model, data: (model, data.replace("end;", "param zz_extra := 1;\nend;"))
        ),
        "missing_data": _nldata(_model("param zz_missing;\ncheck zz_missing >= 0;\n")),
        # bounds glpsol refuses to solve with
        "runtime": _nldata(_model("var zz_bounds >= 5, <= 1;\ns.t. zz_use: zz_bounds >= 0;\n")),
        "timeout": _nldata(_model("check sum{zz_i in 1..2000000000} zz_i >= 0;\n"), limits=LOOP_LIMITS),
        "infeasible": _nldata(_model("var zz_v >= 0;\ns.t. zz_infeasible: zz_v <= -1;\n")),
        "unbounded": _nldata(
            _objective(
                lambda sense, e: (" zz_u + (" if sense == "maximize" else " -zz_u + (") + e + ")",
                "var zz_u >= 0;\n",
            )
        ),
        "wrong_objective": _nldata(
            _objective(lambda sense, e: " 2 * (" + e + ")"),
            where=lambda ref: _nldata_task(ref).objective != 0,
        ),
        "model_data_coupling": _nldata(_constant_objective, where=_unseen_optimum_differs),
    },
    damaged=_nldata_damaged,
    regeneration_differences=_nldata_regeneration,
)


# ----------------------------------------------------------------------------- tbmath


def _tbmath_task(ref: InstanceRef) -> Any:
    from benchmark.suites.tbmath import tasks

    return tasks.load_task(ref.location)


def _python(code: str) -> str:
    return f"```python\n{code}\n```"


#: Where a tbmath failure is planted unless a plant needs another task: its references run in well
#: under a second (the first task in order, battery_arbitrage, takes seconds).
TBMATH_PLANTED = "call_center_staffing"


def _tbmath(
    first_turn: Callable[[InstanceRef, str], str],
    where: Callable[[InstanceRef], bool] = lambda ref: ref.path[-1] == TBMATH_PLANTED,
) -> Plant:
    """The agent's first turn is ``first_turn(ref, the oracle's first turn)``; later turns are the
    oracle's ("the artifact is written")."""

    def answer(ref: InstanceRef) -> Answer:
        return lambda request, reference: (
            first_turn(ref, reference) if request.case_key.endswith("/turn0") else reference
        )

    return Plant(answer, where)


def _then(code: str) -> Callable[[InstanceRef, str], str]:
    """The oracle's program, then ``code`` (which may rewrite the artifact at ``ARTIFACT``)."""

    def first_turn(ref: InstanceRef, reference: str) -> str:
        program = reference.strip().removeprefix("```python").removesuffix("```")
        return _python(program + "\n" + code)

    return first_turn


def _range_check(ref: InstanceRef) -> tuple[list[str | int], float] | None:
    """(the path of a scalar the task's gate bounds, a value outside the bound), from the task's
    first ``range`` check on a path without object wildcards."""
    from benchmark.suites.tbmath import paths

    task = _tbmath_task(ref)
    for check in task.feasibility or ():
        if check["form"] != "range" or ".*" in check["path"]:
            continue
        parts = [0 if part == "*" else part for part in paths.parse(check["path"])]
        if isinstance(check.get("min"), int | float):
            return parts, float(check["min"]) - 1.0
        if isinstance(check.get("max"), int | float):
            return parts, float(check["max"]) + 1.0
    return None


def _out_of_range(ref: InstanceRef, reference: str) -> str:
    found = _range_check(ref)
    assert found is not None
    parts, value = found
    code = (
        "import json\nplanted = json.load(open(ARTIFACT))\nnode = planted\n"
        f"for part in {parts[:-1]!r}:\n    node = node[part]\n"
        f"node[{parts[-1]!r}] = {value!r}\njson.dump(planted, open(ARTIFACT, 'w'))\n"
    )
    return _then(code)(ref, reference)


def _worse_reference(ref: InstanceRef) -> str | None:
    """The script of a reference of the task's panel that its pass rule fails: a decision condition
    on which the reference's recorded value is worse than the certified optimum by more than the
    condition's tolerance (a feasible answer, the panel's references all pass the gate)."""
    from benchmark.suites.tbmath import pass_rule

    task = _tbmath_task(ref)
    rule = pass_rule.load(task.root, task.metrics)
    scripts = {s.reference_id: s.script for s in task.reference_scripts}
    for reference in task.references:
        if reference.reference_id == task.primary_reference or reference.reference_id not in scripts:
            continue
        for condition in rule.conditions if rule is not None else ():
            value = reference.values.get(condition.path)
            if condition.optimum is None or not isinstance(value, int | float):
                continue
            gap = value - condition.target if condition.optimum == "min" else condition.target - value
            if gap > 2 * condition.width:
                script: Path = scripts[reference.reference_id]
                return f"ARTIFACT = {task.artifact_path!r}\n" + script.read_text()
    return None


def _tbmath_damaged(ref: InstanceRef, tmp: Path) -> InstanceRef:
    copied = _copied(ref, tmp)
    (copied.location / "tests/score_config.json").write_text("{", encoding="utf-8")
    return copied


#: The task whose generation the battery checks: its data and panel rebuild in about a second.
TBMATH_REGENERATED = "price_setting"


def _tbmath_regeneration(suite: Suite, tmp: Path) -> list[str]:
    """``tbmath-generate --check`` (in-process) on a root holding a copy of one task."""
    from benchmark.suites.tbmath.generation import main

    shutil.copytree(suite.default_dataset() / TBMATH_REGENERATED, tmp / TBMATH_REGENERATED)
    return (
        [] if main(["--check", str(tmp)]) == 0 else [f"{TBMATH_REGENERATED}: tbmath-generate --check failed"]
    )


TBMATH = Plan(
    plants={
        "response_contract": _tbmath(lambda ref, reference: "I will not write the artifact."),
        "output_format": _tbmath(_then("open(ARTIFACT, 'w').write('not json')\n")),
        "infeasible_solution": _tbmath(
            _out_of_range, where=lambda ref: ref.path[-1] == TBMATH_PLANTED and _range_check(ref) is not None
        ),
        "wrong_objective": _tbmath(
            lambda ref, reference: _python(_worse_reference(ref) or ""),
            where=lambda ref: _worse_reference(ref) is not None,
        ),
    },
    damaged=_tbmath_damaged,
    regeneration_differences=_tbmath_regeneration,
)

PLANS: dict[str, Plan] = {"mmopt": MMOPT, "mamo": MAMO, "nldata": NLDATA, "tbmath": TBMATH}


# ----------------------------------------------------------------------------- the battery's tools


def _hooks() -> tuple[str, ...]:
    """Every member of the Suite protocol: its attributes and its methods."""
    methods = [name for name, value in vars(Suite).items() if callable(value) and not name.startswith("_")]
    return tuple(sorted({*Suite.__annotations__, *methods}))


HOOKS = _hooks()
METHODS = frozenset(name for name in HOOKS if callable(getattr(Suite, name, None)))


def missing_hooks(suite: object) -> list[str]:
    """The protocol members ``suite`` lacks (a method that is not callable counts as missing)."""
    return [
        name
        for name in HOOKS
        if not hasattr(suite, name) or (name in METHODS and not callable(getattr(suite, name)))
    ]


def _plan(name: str) -> Plan:
    plan = PLANS.get(name)
    if plan is None:
        pytest.fail(f"suite {name} is registered but the battery has no plan for it: add one to PLANS")
    return plan


@cache
def _instances(name: str) -> tuple[InstanceRef, ...]:
    suite = get_suite(name)
    return tuple(suite.discover(suite.default_dataset()))


@cache
def oracle_sample(name: str) -> tuple[InstanceRef, ...]:
    """Few instances that together hold every value of each coarse grouping the suite declares
    (``compare=True``; every grouping when none is): the instance covering the most values still
    missing first, in discovery order among equals."""
    suite = get_suite(name)
    labels = [g.label for g in suite.groupings if g.compare] or [g.label for g in suite.groupings]
    refs = _instances(name)

    def values(ref: InstanceRef) -> set[tuple[str, str]]:
        return {(label, ref.labels[label]) for label in labels if label in ref.labels}

    missing = set().union(*(values(ref) for ref in refs))
    chosen: list[InstanceRef] = []
    while missing:
        best = max(refs, key=lambda ref: len(values(ref) & missing))
        chosen.append(best)
        missing -= values(best)
    return tuple(chosen)


def _case(suite: Suite, ref: InstanceRef, setting: str | None = None) -> Case:
    return Case(instance=ref, setting=setting or suite.default_setting, sample=0, temperature=0.0)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    hidden = [
        path for name in NAMES for path in get_suite(name).hidden_paths(get_suite(name).default_dataset())
    ]
    with create_sandbox(hidden) as box:
        yield box


@pytest.fixture
def configured(pytestconfig: pytest.Config) -> Callable[[str], Suite]:
    """A fresh copy of a registered suite, configured from this session's defaults of its options
    (the registered object is the harness's and stays as it is)."""

    def make(name: str) -> Suite:
        suite = copy.copy(get_suite(name))
        suite.configure(pytestconfig)
        return suite

    return make


def _solve(suite: Suite, case: Case, adapter: ModelAdapter, sandbox: Sandbox, limits: Limits) -> Attempt:
    context = CaseContext(
        case=case, adapter=adapter, sandbox=sandbox, limits=limits, models=lambda alias: adapter
    )
    return suite.solve(case, context)


def _verdict(suite: Suite, case: Case, attempt: Attempt) -> Verdict:
    """The harness's verdict (an undeclared category is refused), and the same verdict again from
    the attempt's JSON, as ``rescore`` reads it."""
    verdict = checked_verdict(suite, suite.score(case, attempt))
    stored = Attempt.from_record(json.loads(json.dumps(attempt.as_record())))
    again = suite.score(case, stored)
    assert (again.passed, again.category) == (verdict.passed, verdict.category), (
        f"{suite.name}: the stored attempt scores {again.category}, the attempt {verdict.category}"
    )
    return verdict


# ----------------------------------------------------------------------------- 1. hooks


@pytest.mark.parametrize("name", NAMES)
def test_the_suite_declares_every_hook_of_the_protocol(name: str) -> None:
    _plan(name)
    suite = get_suite(name)
    assert missing_hooks(suite) == [], f"suite {name} lacks {', '.join(missing_hooks(suite))}"
    assert isinstance(suite, Suite)


class _Without:
    """A registered suite with one hook taken away: a suite that forgot to write it."""

    def __init__(self, suite: Suite, hook: str) -> None:
        self._suite, self._hook = suite, hook

    def __getattr__(self, name: str) -> Any:
        if name == self._hook:
            raise AttributeError(name)
        return getattr(self._suite, name)


@pytest.mark.parametrize("hook", ["score", "failure_categories", "first_request"])
def test_a_suite_lacking_a_hook_is_named_with_it(hook: str) -> None:
    broken = _Without(get_suite(NAMES[0]), hook)
    assert missing_hooks(broken) == [hook]
    assert not isinstance(broken, Suite)


def test_the_protocol_has_the_hooks_the_harness_calls() -> None:
    assert {"solve", "score", "discover", "failure_categories", "first_request", "case_steps"} <= set(HOOKS)


# ----------------------------------------------------------------------------- 2. regeneration


@pytest.mark.parametrize("name", NAMES)
def test_a_sample_of_the_shipped_data_regenerates_byte_for_byte(name: str, tmp_path: Path) -> None:
    assert _plan(name).regeneration_differences(get_suite(name), tmp_path) == []


# ----------------------------------------------------------------------------- 3. the oracle


def _oracle_cases() -> list[tuple[str, str]]:
    return [(name, ref.key) for name in NAMES for ref in oracle_sample(name)]


def test_the_oracle_sample_holds_every_value_of_the_coarse_groupings() -> None:
    for name in NAMES:
        suite, sample = get_suite(name), oracle_sample(name)
        for grouping in (g for g in suite.groupings if g.compare):
            every = {ref.labels.get(grouping.label) for ref in _instances(name)}
            assert {ref.labels.get(grouping.label) for ref in sample} == every, (name, grouping.label)
        assert len(sample) < len(_instances(name)), name


@pytest.mark.parametrize(("name", "key"), _oracle_cases())
def test_the_oracle_passes(name: str, key: str, configured: Callable[[str], Suite], sandbox: Sandbox) -> None:
    suite = configured(name)
    (ref,) = (r for r in oracle_sample(name) if r.key == key)
    case = _case(suite, ref)
    verdict = _verdict(suite, case, _solve(suite, case, OracleAdapter(), sandbox, RUN_LIMITS))
    assert verdict.passed, f"{name}: the oracle fails {key} [{verdict.category}] {verdict.detail}"


# ----------------------------------------------------------------------------- 4. planted failures


def _declared() -> list[tuple[str, str]]:
    return [(name, str(category)) for name in NAMES for category in get_suite(name).failure_categories]


@pytest.mark.parametrize(("name", "category"), _declared())
def test_a_planted_answer_of_each_category_is_scored_as_it(
    name: str, category: str, configured: Callable[[str], Suite], sandbox: Sandbox
) -> None:
    plan = _plan(name)
    if category in plan.not_plantable:
        assert plan.not_plantable[category].strip()
        return
    plant = plan.plants.get(category)
    assert plant is not None, (
        f"suite {name} declares {category}, which the battery neither plants nor lists as not plantable"
    )
    suite = configured(name)
    ref = next((r for r in _instances(name) if plant.where(r)), None)
    assert ref is not None, f"{name}: no instance takes the planted {category}"
    case = _case(suite, ref)
    attempt = _solve(suite, case, PlantingAdapter(plant.answer(ref)), sandbox, plant.limits)
    verdict = _verdict(suite, case, attempt)
    got = "passed" if verdict.passed else verdict.category
    assert got == category, (
        f"{name}: the planted {category} answer on {ref.key} scored {got}: {verdict.detail}"
    )


def test_every_plan_plants_or_explains_only_declared_categories() -> None:
    for name in NAMES:
        plan, declared = _plan(name), set(get_suite(name).failure_categories)
        assert set(plan.plants) <= declared, (name, sorted(set(plan.plants) - declared))
        assert set(plan.not_plantable) <= declared, (name, sorted(set(plan.not_plantable) - declared))
        assert not set(plan.plants) & set(plan.not_plantable), name


# ----------------------------------------------------------------------------- infrastructure

INFRASTRUCTURE_PRODUCED = ("api_error", "sandbox_error", "dataset_error", "harness_error")


def test_the_battery_produces_every_infrastructure_category() -> None:
    assert set(INFRASTRUCTURE_PRODUCED) == set(InfrastructureCategory)


@pytest.mark.parametrize("name", NAMES)
def test_a_damaged_instance_is_a_dataset_error(
    name: str, configured: Callable[[str], Suite], sandbox: Sandbox, tmp_path: Path
) -> None:
    suite = configured(name)
    ref = _plan(name).damaged(oracle_sample(name)[0], tmp_path)
    with pytest.raises(DatasetError) as raised:
        _solve(suite, _case(suite, ref), OracleAdapter(), sandbox, RUN_LIMITS)
    assert str(tmp_path) in str(raised.value), raised.value


def _broken_bwrap(tmp: Path) -> str:
    """An executable named bwrap that fails as bwrap does where user namespaces are forbidden."""
    fake = tmp / "fakebin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "bubblewrap 0.0-fake"; exit 0; fi\n'
        'echo "bwrap: No permissions to create new namespace" >&2\nexit 1\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return str(fake)


@pytest.mark.parametrize("name", NAMES)
def test_a_sandbox_that_cannot_start_is_a_sandbox_error(
    name: str, configured: Callable[[str], Suite], tmp_path: Path
) -> None:
    suite = configured(name)
    broken = BwrapSandbox([REPO], bwrap=_broken_bwrap(tmp_path))
    with pytest.raises(InfrastructureError) as raised:
        _solve(suite, _case(suite, oracle_sample(name)[0]), OracleAdapter(), broken, RUN_LIMITS)
    assert raised.value.category == InfrastructureCategory.SANDBOX_ERROR
    assert "No permissions to create new namespace" in str(raised.value)


@pytest.mark.parametrize("name", NAMES)
def test_an_endpoint_without_an_answer_is_an_api_error(
    name: str, configured: Callable[[str], Suite], sandbox: Sandbox, tmp_path: Path
) -> None:
    suite = configured(name)
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"case": "another/case/s0", "response": "unused"}) + "\n")
    with pytest.raises(AdapterError, match="no recorded response"):
        _solve(suite, _case(suite, oracle_sample(name)[0]), ReplayAdapter(replay), sandbox, RUN_LIMITS)


@pytest.mark.parametrize("name", NAMES)
def test_a_case_the_suite_cannot_solve_is_a_harness_error(
    name: str, configured: Callable[[str], Suite], sandbox: Sandbox
) -> None:
    """Any exception that is none of the kinds above is recorded as a ``harness_error``: a setting
    the suite does not have is one, named by the suite."""
    suite = configured(name)
    case = _case(suite, oracle_sample(name)[0], setting="no_such_setting")
    with pytest.raises(Exception) as raised:
        _solve(suite, case, OracleAdapter(), sandbox, RUN_LIMITS)
    kinds = (AdapterError, DatasetError, InfrastructureError, NotEvaluable, OracleUnavailable)
    assert not isinstance(raised.value, kinds) and "no_such_setting" in str(raised.value)
