"""Our Mamo cases: deterministic from their seeds, verified by two methods, worded as scenarios,
and shipped in the counts the issue asks for."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from benchmark.suites.mamo.comparison import answer_decimals, answers_match
from benchmark.suites.mamo.dataset import TYPES, discover
from benchmark.suites.mamo.generation import build, ode, optimization
from benchmark.suites.mamo.generation.linear_model import LinearModel, NotOptimal, solve, solve_ortools, to_lp
from benchmark.suites.mamo.generation.text import DOMAINS
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "mamo"
#: Words that would name the model instead of describing the situation (Property 4).
MODEL_WORDS = (
    "differential equation",
    "derivative",
    "linear program",
    "integer program",
    "lp file",
    "solve_ivp",
)


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines()]


@pytest.mark.parametrize("kind", list(TYPES))
def test_same_seed_same_bytes(kind: str) -> None:
    make = build.ode_case if kind in ode.CONSTRUCTS else build.optimization_case
    for index in (0, 1):
        first, second = make(kind, index), make(kind, index)
        assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert make(kind, 0, base_seed=1) != make(kind, 0)


@pytest.mark.parametrize("kind", list(TYPES))
def test_shipped_cases_regenerate_from_their_seeds(kind: str) -> None:
    shipped = _records(f"{kind}.jsonl")
    make = build.ode_case if kind in ode.CONSTRUCTS else build.optimization_case
    for record in (shipped[0], shipped[-1]):
        regenerated = {"id": record["id"], **make(kind, record["id"] - 1)}
        assert json.dumps(regenerated, sort_keys=True, ensure_ascii=False) == json.dumps(
            record, sort_keys=True, ensure_ascii=False
        )


def test_manifest_counts_and_hashes_match_the_files() -> None:
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    per_category: dict[str, int] = {}
    for name, info in manifest["files"].items():
        data = (FIXTURES / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == info["sha256"]
        assert len(data.decode().splitlines()) == info["cases"]
        per_category[info["category"]] = per_category.get(info["category"], 0) + info["cases"]
    assert per_category["ordinary_differential_equation"] >= 200
    assert per_category["optimization"] >= 300
    assert {info["type"] for info in manifest["files"].values()} == set(TYPES)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_every_case_states_its_precision_and_a_scenario(name: str) -> None:
    records = _records(name)
    assert [r["id"] for r in records] == list(range(1, len(records) + 1))
    assert {r["domain"] for r in records} <= set(DOMAINS)
    assert len({r["domain"] for r in records}) >= 3
    for record in records:
        question = record["Question"].lower()
        assert "decimal place" in question or "whole number" in question
        decimals = answer_decimals(record["Answer"])
        assert ("whole number" in question) == (decimals == 0)
        assert not any(word in question for word in MODEL_WORDS), question
        assert not {"ode", "lp", "milp"} & set(question.replace("?", " ").replace(".", " ").split())
        assert float(record["Answer"]) != 0
        assert all(answers_match(value, record["Answer"]) for value in record["checks"].values())
        assert len(record["checks"]) == 2


def test_ode_cross_check_rejects_a_wrong_closed_form() -> None:
    problem = ode.cooling(random.Random(3))
    wrong = ode.OdeProblem(**{**problem.__dict__, "exact": problem.exact * 1.01})
    with pytest.raises(ode.Rejected):
        ode.solve(wrong)
    answer, values = ode.solve(problem)
    assert answer == problem.exact and abs(values["DOP853"] - answer) < 1e-7 * max(1, abs(answer))


def test_numerical_only_constructs_are_checked_by_radau_and_dop853() -> None:
    problem = ode.van_der_pol(random.Random(11))
    answer, values = ode.solve(problem)
    assert problem.exact is None and set(values) == {"Radau", "DOP853"} and answer == values["Radau"]


def test_lp_text_and_direct_model_agree_and_infeasibility_is_refused() -> None:
    model = LinearModel("Maximize", {"x": 3, "y": 2})
    model.add_variable("x", upper=4, integer=True)
    model.add_variable("y", lower=-2)
    model.add_constraint("c", {"x": 1, "y": 1}, "<=", 7.5)
    text, value, _ = solve(model)
    assert value == pytest.approx(3 * 4 + 2 * 3.5) and "Generals" in text and "-2 <= y <= +inf" in text
    model.add_constraint("contradiction", {"x": 1}, ">=", 5)
    with pytest.raises(NotOptimal):
        solve_ortools(model)
    assert "contradiction: x >= 5" in to_lp(model)


def test_every_optimization_construct_yields_a_verified_case() -> None:
    for kind, constructs in optimization.CONSTRUCTS.items():
        for index in range(len(constructs)):
            record = build.optimization_case(kind, index)
            assert record["construct"] == constructs[index].__name__
            assert set(record["checks"]) == {"highs_lp_file", "ortools_scip"}


def test_check_mode_finds_exactly_the_changed_file(tmp_path: Path) -> None:
    build.generate(tmp_path, counts={"first_order_equation": 2, "easy_lp": 2})
    assert build.check(tmp_path) == []
    (tmp_path / "easy_lp.jsonl").write_text("{}\n")
    assert build.check(tmp_path) == ["easy_lp.jsonl"]


def test_every_modelling_need_is_shipped_and_labelled() -> None:
    counts = {need: 0 for need in ode.NEEDS}
    for kind in ode.CONSTRUCTS:
        for record in _records(f"{kind}.jsonl"):
            for need in record["needs"]:
                counts[need] += 1
    assert all(count >= 5 for count in counts.values()), counts
    refs = {ref.labels["instance_id"]: ref for ref in discover(FIXTURES / "system_equation.jsonl")}
    record = next(r for r in _records("system_equation.jsonl") if r["construct"] == "three_tanks")
    assert refs[str(record["id"])].labels["needs"] == "unit_conversion+more_than_two_states+distractor"


def _draw(construct, seed: int = 0) -> ode.OdeProblem:
    for attempt in range(50):
        try:
            return construct(random.Random(seed + attempt))
        except ode.Rejected:
            continue
    raise AssertionError("no draw")


def test_an_event_question_answers_a_time_that_the_state_at_the_horizon_does_not() -> None:
    problem = next(p for p in (_draw(ode.cooling_reading, s) for s in range(20)) if p.event is not None)
    answer, values = ode.solve(problem)
    assert set(values) == {"closed_form", "DOP853"}
    assert "t_events" in ode.reference_program(problem)
    at_horizon = ode.OdeProblem(**{**problem.__dict__, "event": None, "exact": None})
    assert abs(ode.solve(at_horizon)[0] - answer) > 1


def test_ignoring_the_switch_of_a_piecewise_input_gives_another_answer() -> None:
    problem = _draw(ode.valve_mixing)
    answer, _ = ode.solve(problem)
    source = problem.rhs.split(" if t <")[0].split("= ")[1]
    always_open = ode.OdeProblem(
        **{**problem.__dict__, "rhs": problem.rhs.replace("else 0.0", f"else {source}"), "exact": None}
    )
    assert abs(ode.solve(always_open)[0] - answer) > 0.01 * abs(answer)
    with pytest.raises(ValueError, match="not supported"):
        ode.OdeProblem(**{**problem.__dict__, "event": 1.0})
