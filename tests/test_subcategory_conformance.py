"""Every registered MM-OptBench subcategory keeps the plug-in contract end to end.

For each one, a small instance is generated from a fixed seed and written as a package; its
reference solution must pass the subcategory's own validator and the scorer; its reference solver,
run in the sandbox, must pass as the oracle's answer does; and every failure the suite plants
(:mod:`benchmark.suites.mmopt.planting`) in it must be scored as the category the plan states.
A folder that omits a hook is refused, by the type checker and at registration, with the name.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import mypy.api
import pytest

from adapters.planted import CODE_FAULTS, damage_code
from benchmark.sandbox import Limits, Sandbox, create_sandbox
from benchmark.suites.mmopt import subcategories
from benchmark.suites.mmopt.generation.contracts import PlantingModule
from benchmark.suites.mmopt.generation.dataset import DATASET_VERSION
from benchmark.suites.mmopt.generation.modular import ModularSubcategory
from benchmark.suites.mmopt.generation.package import write_package
from benchmark.suites.mmopt.generation.pipeline import build_instance
from benchmark.suites.mmopt.generation.protocol import InstanceGenerator
from benchmark.suites.mmopt.package import Package, discover, load_package
from benchmark.suites.mmopt.planting import FLOW_SUBCATEGORIES, plant
from benchmark.suites.mmopt.response import parse_stage1
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories import all_subcategories, folder_module, folder_part
from benchmark.suites.mmopt.subcategories.maximum_flow import templates as max_flow_templates
from benchmark.suites.mmopt.tolerances import objective_tolerance
from benchmark.verdict import Verdict
from tests.conftest import FIXTURES, REPO
from tests.mmopt_support import score_answer

NAMES: tuple[str, ...] = tuple(all_subcategories())
SEED = 20261203  # a fixed seed, so the battery reruns the same instances
#: The data-level causes a subcategory plants where it has a model to damage; relax_integrality is
#: planted in the flow subcategories only (their LP relaxation is integral: it must pass).
DATA_CAUSES: tuple[str, ...] = ("misread_value", "drop_constraint", "heuristic")
RUN_LIMITS = Limits(wall_timeout_s=120.0)
LOOP_LIMITS = Limits(wall_timeout_s=3.0)  # infinite_loop: a timeout, whatever the machine's load


def test_the_battery_covers_all_26_subcategories() -> None:
    assert len(NAMES) == 26
    assert all(isinstance(sub, InstanceGenerator) for sub in all_subcategories().values())


@dataclass(frozen=True)
class Built:
    package: Package
    generator: InstanceGenerator


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("conformance")


@cache
def _built(name: str, root: Path, difficulty: str = "easy", offset: int = 0) -> Built:
    """An instance of ``name`` from seed :data:`SEED` + ``offset``, written and read back as a package."""
    generator = all_subcategories()[name]
    assert isinstance(generator, InstanceGenerator)
    instance_id = f"{generator.id_prefix}_{difficulty[0]}_{901 + offset:03d}"
    built = build_instance(generator, difficulty, instance_id, SEED + offset)
    write_package(root, built, DATASET_VERSION)
    (ref,) = (r for r in discover(root) if r.labels["instance_id"] == instance_id)
    return Built(load_package(ref), generator)


#: Where a cause is planted: the first of these instances the planting accepts. A folder's
#: planting refuses an instance where its damage would not have a certain effect (a heuristic that
#: happens to be optimal on a small instance), so a second seed or a medium instance may be needed.
PLANT_CANDIDATES: tuple[tuple[str, int], ...] = (("easy", 0), ("easy", 1), ("easy", 2), ("medium", 0))


def _planted(name: str, cause: str, root: Path) -> tuple[Built, dict[str, Any]]:
    refusals = []
    for difficulty, offset in PLANT_CANDIDATES:
        built = _built(name, root, difficulty, offset)
        try:
            return built, plant(built.package, cause)
        except ValueError as refused:
            refusals.append(str(refused))
    raise AssertionError(f"{cause} could be planted in no instance of {name}: {refusals}")


@pytest.fixture(scope="module")
def sandbox(root: Path) -> Iterator[Sandbox]:
    with create_sandbox([root, FIXTURES]) as box:
        yield box


def _score(built: Built, sandbox: Sandbox, code: str, limits: Limits = RUN_LIMITS) -> Verdict:
    """The Stage-1 verdict on an answer whose PYTHON_CODE is ``code``, as the suite reaches it:
    the reply parsed, its ``solve()`` run in the sandbox, the run scored (strict)."""
    package = built.package
    parsed = parse_stage1(f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nnone\n\nPYTHON_CODE\n{code}")
    if parsed.code is None:
        return Verdict.fail("response_contract", parsed.violation or "no code")
    return score_execution(
        sandbox.run_solve(parsed.code, limits),
        subcategory=package.subcategory,
        instance=package.instance_data,
        solution_ref=package.solution_ref,
        objective_only=False,
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_generated_reference_passes_its_validator_and_the_scorer(name: str, root: Path) -> None:
    built = _built(name, root)
    package, generator = built.package, built.generator
    assert package.subcategory == name and package.instance_id.startswith(generator.id_prefix)
    check = generator.check_solution(package.instance_data, package.solution_ref)
    assert check.feasible, check.problems
    reference = package.solution_ref
    if str(reference.get("status")) == "optimal":
        assert check.objective is not None
        assert abs(check.objective - float(reference["objective_value"])) <= objective_tolerance(name)
    assert generator.structural_problems(package.instance_data, "easy") == []
    assert package.task_text.strip() and package.solver_ref.strip()
    answered = score_answer(name, package.instance_data, reference, reference)
    assert answered.passed, (answered.category, answered.detail)


@pytest.mark.parametrize("name", NAMES)
def test_the_reference_solver_is_an_answer_the_scorer_passes(name: str, root: Path, sandbox: Sandbox) -> None:
    verdict = _score(_built(name, root), sandbox, _built(name, root).package.solver_ref)
    assert verdict.passed, (verdict.category, verdict.detail)


def _planted_cases() -> list[tuple[str, str]]:
    cases = [(name, fault) for name in NAMES for fault in CODE_FAULTS]
    for name in NAMES:
        if name in FLOW_SUBCATEGORIES or folder_module(name, "planting") is not None:
            cases += [(name, cause) for cause in DATA_CAUSES]
        if name in FLOW_SUBCATEGORIES:
            cases.append((name, "relax_integrality"))
    return cases


@pytest.mark.parametrize(("name", "cause"), _planted_cases())
def test_a_planted_failure_is_scored_as_planned(name: str, cause: str, root: Path, sandbox: Sandbox) -> None:
    built, entry = _planted(name, cause, root)
    code = entry.get("stage1_code") or damage_code(built.package.solver_ref, entry["code_fault"])
    verdict = _score(built, sandbox, code, LOOP_LIMITS if cause == "infinite_loop" else RUN_LIMITS)
    expected = entry["expected"]["stage1_category"]
    assert (None if verdict.passed else verdict.category) == expected, verdict.detail


def test_every_subcategory_with_data_causes_is_planted_with_them() -> None:
    """The data-level causes reach more than the flow subcategories (the scheduling and planning
    folders plant their own), so the battery above exercises the folder planting protocol."""
    planted = {name for name, cause in _planted_cases() if cause == "misread_value"}
    assert set(FLOW_SUBCATEGORIES) < planted and len(planted) >= 10


def _without(module: types.ModuleType, hook: str) -> types.ModuleType:
    """A copy of ``module`` lacking ``hook``: a folder that forgot to write it."""
    copy = types.ModuleType(f"{module.__name__}_without_{hook}")
    copy.__dict__.update({k: v for k, v in vars(module).items() if k not in (hook, "__name__")})
    return copy


def test_a_folder_missing_a_hook_is_refused_with_its_name() -> None:
    sub = all_subcategories()["maximum_flow"]
    assert isinstance(sub, ModularSubcategory)
    with pytest.raises(TypeError, match=r"'maximum_flow': templates \S+ lacks describe"):
        ModularSubcategory(
            family=sub.family,
            name=sub.name,
            id_prefix=sub.id_prefix,
            version=sub.version,
            generator=sub.generator,
            templates=_without(max_flow_templates, "describe"),
            renderer=sub.renderer,
            validator=sub.validator,
        )


def test_a_declared_subcategory_missing_a_member_is_refused_at_registration() -> None:
    @dataclass(frozen=True)
    class Incomplete:
        family: str = "network_optimization"
        name: str = "incomplete"
        id_prefix: str = "inc"

    folder = types.ModuleType("incomplete_folder")
    folder.SUBCATEGORY = Incomplete()  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="lacks check_solution, official, official_answer"):
        subcategories._declared(folder)


def test_an_optional_module_is_checked_against_its_protocol_by_name() -> None:
    assert folder_part("rcpsp", "planting", PlantingModule) is not None
    with pytest.raises(TypeError, match="lacks MISREAD_EFFECT, drop_constraint, heuristic, misread"):
        folder_part("maximum_flow", "validator", PlantingModule)


def test_the_type_checker_names_the_hook_a_folder_omits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # the project's mypy configuration, and the package it checks against
    monkeypatch.setenv("MYPYPATH", str(tmp_path))
    folder = tmp_path / "newfolder"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    source = (REPO / "benchmark/suites/mmopt/subcategories/maximum_flow/templates.py").read_text()
    (folder / "templates.py").write_text(source.split("\ndef describe(")[0])
    (folder / "sub.py").write_text(
        "from benchmark.suites.mmopt.generation.modular import ModularSubcategory\n"
        "from benchmark.suites.mmopt.subcategories.maximum_flow import generator, renderer, validator\n"
        "from newfolder import templates\n\n"
        "SUBCATEGORY = ModularSubcategory(family='f', name='n', id_prefix='n', version='n/1',\n"
        "    generator=generator, templates=templates, renderer=renderer, validator=validator)\n"
    )
    out, _, status = mypy.api.run(
        ["--strict", "--cache-dir", str(tmp_path / "cache"), str(folder / "sub.py")]
    )
    assert status == 1, out
    assert '"TemplatesModule" protocol member' in out and "describe" in out, out
