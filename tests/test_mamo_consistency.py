"""The self-consistency checks: every shipped Mamo case passes them, and each check fails on a
planted bad case of the kind it exists for."""

from __future__ import annotations

import copy
import json
import random

import pytest

from benchmark.suites.mamo.generation import build, consistency, ode
from benchmark.suites.mamo.generation.text import agree
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "mamo"
SHIPPED = [pytest.param(name, id=name) for name in sorted(p.name for p in FIXTURES.glob("*.jsonl"))]


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines()]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_case_passes_every_check(name: str) -> None:
    found = {r["id"]: consistency.problems(r) for r in _records(name)}
    assert {case: p for case, p in found.items() if p} == {}
    assert all(r["unit"] == consistency.asked_unit(r["Question"]) for r in _records(name))


def _tank_record() -> dict:
    return build.ode_case("system_equation", 1)  # index 1 is the connected-tanks construct


def test_a_tank_system_that_does_not_conserve_volume_fails() -> None:
    record = _tank_record()
    assert record["construct"] == "connected_tanks" and consistency.check_conservation(record) == []
    bad = copy.deepcopy(record)
    bad["parameters"]["flows"][0][2] += 3  # more enters tank 1 than leaves it
    (finding,) = consistency.check_conservation(bad)
    assert "tank 1 is said to keep its volume" in finding and "tank 2" not in finding


def test_a_continuous_lp_asked_for_a_whole_number_fails() -> None:
    record = build.optimization_case("easy_lp", 3)  # portfolio: continuous amounts of money
    assert "Generals" not in record["reference"] and consistency.check_rounding(record) == []
    asked = record["Question"][: record["Question"].rindex("?") + 1]
    bad = {**record, "Answer": str(round(float(record["Answer"])))}
    bad["Question"] = asked + " Round the answer to the nearest whole number."
    assert consistency.check_rounding(bad) == [
        "a whole-number answer is asked for a quantity with continuous variables"
    ]
    mismatched = {**record, "Question": bad["Question"]}
    assert "does not match" in consistency.check_rounding(mismatched)[0]


def test_an_unused_number_fails_unless_declared_a_distractor() -> None:
    record = build.ode_case("first_order_equation", 1)
    asked = record["Question"].rindex("?") + 1
    planted = record["Question"][:asked] + " The room is 437.5 metres away." + record["Question"][asked:]
    bad = {**record, "Question": planted}
    assert consistency.check_numbers(bad) == [
        "number 437.5 in the text is neither used by the reference nor a distractor"
    ]
    assert consistency.check_numbers({**bad, "distractors": [437.5]}) == []


@pytest.mark.parametrize(
    ("planted", "finding"),
    [
        ("A tank holds  litres of brine.", "a doubled space"),
        ("A tank holds {volume} litres of brine.", "an unfilled slot"),
        ("The production of  of salt rose .", "a doubled space"),
        ("Water drains for 1 minutes.", "'1 minutes' should be singular"),
        ("Depot A ships to town 1; Depot a is closed.", "spelled inconsistently"),
        ("The the tank is full.", "a doubled word"),
        ("Output of the of plant fell.", "an empty slot between words"),
    ],
)
def test_slot_filling_slips_fail_the_render_check(planted: str, finding: str) -> None:
    found = consistency.check_render({"Question": planted})
    assert any(finding in f for f in found), found


def test_a_clean_sentence_passes_the_render_check_and_agree_fixes_plurals() -> None:
    assert consistency.check_render({"Question": "Depot A ships 1 tonne to town 2 after 1.5 hours."}) == []
    assert agree("after 1 seconds and 11 seconds, 1 tonnes") == "after 1 second and 11 seconds, 1 tonne"


def test_a_question_without_an_asked_unit_fails() -> None:
    record = build.ode_case("first_order_equation", 1)
    assert consistency.check_units(record) == []
    question = record["Question"].split("What is")[0] + "What is the value after a while? Round it."
    assert consistency.check_units({**record, "Question": question, "unit": None}) == [
        "the asking sentence names no unit for the answer"
    ]


def test_generation_refuses_an_inconsistent_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    original = ode.CONSTRUCTS["first_order_equation"][0]

    def with_unused_number(rng: random.Random) -> ode.OdeProblem:
        problem = original(rng)
        return ode.OdeProblem(**{**problem.__dict__, "question": problem.question + " It is 271.5 km away."})

    monkeypatch.setitem(ode.CONSTRUCTS, "first_order_equation", (with_unused_number,))
    with pytest.raises(build.GenerationError, match=r"number 271\.5"):
        build.ode_case("first_order_equation", 0)


def test_a_naive_reading_that_gets_the_answer_fails_the_nontriviality_check() -> None:
    record = build.optimization_case("complex_lp", 8)  # the delivery tour
    assert record["construct"] == "delivery_tour" and consistency.check_nontrivial(record) == []
    assert record["nontriviality"]["no_subtour_elimination"] < float(record["Answer"])
    bad = {**record, "nontriviality": {**record["nontriviality"], "lp_relaxation": float(record["Answer"])}}
    assert consistency.check_nontrivial(bad) == [
        f"the naive reading 'lp_relaxation' gives the answer too ({float(record['Answer']):g})"
    ]


def test_complex_cases_are_at_the_public_level() -> None:
    records = _records("complex_lp.jsonl")
    assert len({r["construct"] for r in records}) >= 15
    for record in records:
        if record["method"] == "MILP":
            assert "lp_relaxation" in record["nontriviality"], record["id"]
        assert record["nontriviality"], f"{record['construct']} declares no naive reading"


def test_a_declared_distractor_must_be_stated_and_unused() -> None:
    records = [r for r in _records("system_equation.jsonl") if "distractor" in r["needs"]]
    assert records and all(consistency.check_numbers(r) == [] for r in records)
    record = records[0]
    (depth,) = record["distractors"]
    assert consistency.check_numbers({**record, "distractors": []}) == [
        f"number {depth:g} in the text is neither used by the reference nor a distractor"
    ]
    used = record["parameters"]["hours"]
    assert consistency.check_numbers({**record, "distractors": [depth, used]}) == [
        f"distractor {used:g} is also a number the reference uses"
    ]
    assert consistency.check_numbers({**record, "distractors": [depth, 987.25]}) == [
        "distractor 987.25 does not appear in the text"
    ]
