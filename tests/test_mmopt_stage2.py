"""Stage 2: the extraction prompt's contract, the parse-failure subtypes, and a fair comparison with
the public instance record (shipped flow packages only)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from benchmark.messages import ImagePart
from benchmark.suites.mmopt.extraction import compare_extraction
from benchmark.suites.mmopt.package import Package, discover, load_package
from benchmark.suites.mmopt.stage2 import (
    check_stage2,
    parse_stage2,
    public_record,
    stage2_messages,
    stage2_reference,
    structured_instance_shape,
)
from tests.conftest import FIXTURES


def _package(instance_id: str) -> Package:
    return load_package(next(r for r in discover(FIXTURES) if r.path[-1] == instance_id))


@pytest.fixture(scope="module")
def mcf() -> Package:
    return _package("mcf_h_001")


@pytest.fixture(scope="module")
def mf() -> Package:
    return _package("mf_e_001")


def _answer(package: Package, instance: Any) -> str:
    value = json.loads(stage2_reference(package))
    value["extracted_data"]["structured_instance"] = instance
    return json.dumps(value)


def test_prompt_asks_for_the_contract_and_shows_a_shape_without_values(mcf: Package) -> None:
    _, user = stage2_messages(mcf, case_id="mcf_h_001")
    text = user.plain_text()
    for field in ('"case_id"', '"problem_type"', '"extracted_data"', '"structured_instance"'):
        assert field in text
    assert '"assumptions"' in text and '"uncertain_or_missing"' in text
    assert "Do not solve" in text and "valid JSON only" in text
    assert [p.name for p in user.parts if isinstance(p, ImagePart)] == [v.name for v in mcf.visuals]
    shape = structured_instance_shape(public_record(mcf), mcf.subcategory)
    assert shape in text
    assert '"supply": {"<label>": <integer>, ...}' in shape
    assert '"capacity": <integer>' in shape and '"problem_type": "minimum_cost_flow"' in shape
    first_arc = mcf.instance_data["arcs"][0]
    assert f'"capacity": {first_arc["capacity"]},' not in shape  # values are elided
    total = sum(v for v in mcf.instance_data["supply"].values() if v > 0)
    assert str(total) not in shape


@pytest.mark.parametrize("instance_id", ["mf_e_001", "mf_h_004", "mcf_e_002", "mcf_m_007"])
def test_the_reference_extraction_matches_and_shows_every_key(instance_id: str) -> None:
    package = _package(instance_id)
    assert check_stage2(stage2_reference(package), package).status == "matched"
    shape = structured_instance_shape(public_record(package), package.subcategory)
    assert all(f'"{key}":' in shape for key in package.instance_data)


def test_a_misread_value_is_named_with_the_arc_and_both_values(mcf: Package) -> None:
    instance = copy.deepcopy(public_record(mcf))
    arc = instance["arcs"][3]
    true_capacity = arc["capacity"]
    arc["capacity"] = true_capacity + 5
    check = check_stage2(_answer(mcf, instance), mcf)
    assert check.status == "mismatched"
    assert check.differences == (
        f"arc ({arc['from']},{arc['to']}) capacity: {true_capacity} read as {true_capacity + 5}",
    )


def test_fair_comparison_ignores_order_labels_number_spelling_and_extra_keys(mcf: Package) -> None:
    instance = copy.deepcopy(public_record(mcf))
    instance["arcs"].reverse()
    for arc in instance["arcs"]:
        arc["from"] = f"N{arc['from']}"
        arc["capacity"] = str(arc["capacity"])
        arc["cost"] = float(arc["cost"]) + 1e-9
        arc["colour"] = "blue"
    instance["nodes"] = [f"node {n}" for n in reversed(instance["nodes"])]
    instance["supply"] = {f"n{k}": v for k, v in instance["supply"].items()}
    instance["legend"] = "extra key"
    assert compare_extraction(public_record(mcf), instance).differences == ()


def test_missing_or_invented_entries_count(mcf: Package) -> None:
    truth = public_record(mcf)
    edited = copy.deepcopy(truth)
    dropped = edited["arcs"].pop(0)
    edited["arcs"].append({**dropped, "from": 99})
    edited["nodes"] = [*edited["nodes"][1:], 42]
    demand_node = next(k for k, v in truth["supply"].items() if v < 0)
    del edited["supply"][demand_node]
    differences = compare_extraction(truth, edited).differences
    first = truth["nodes"][0]
    assert f"arc ({dropped['from']},{dropped['to']}): missing" in differences
    assert f"arc (99,{dropped['to']}): not in the instance" in differences
    assert f"nodes: missing {first}" in differences and "nodes: not in the instance: 42" in differences
    assert f"supply[{demand_node}]: missing (expected {truth['supply'][demand_node]})" in differences


def test_a_time_series_is_compared_by_position() -> None:
    truth = {"demand": [5, 3, 8]}
    assert compare_extraction(truth, {"demand": [5, 3, 8]}).matched
    assert compare_extraction(truth, {"demand": [3, 5, 8]}).differences == (
        "demand[0]: 5 read as 3",
        "demand[1]: 3 read as 5",
    )


@pytest.mark.parametrize(
    ("damage", "subtype"),
    [
        (lambda text: "", "empty_response"),
        (lambda text: "   \n", "empty_response"),
        (lambda text: text[: len(text) * 2 // 3], "incomplete_json"),
        (lambda text: text.replace('"1": ', "1: ").replace('"2": ', "2: "), "unquoted_numeric_keys"),
        (lambda text: repr(json.loads(text)), "python_literal"),
        (lambda text: text.replace('": ', '" ', 1), "other_malformed_json"),
        (lambda text: text.replace(",", ",,", 1), "other_malformed_json"),
        (lambda text: json.dumps({"case_id": "x", "extracted_data": {}}), "schema_mismatch"),
    ],
)
def test_unusable_answers_are_unresolved_with_their_subtype(mcf: Package, damage: Any, subtype: str) -> None:
    check = check_stage2(damage(stage2_reference(mcf)), mcf)
    assert (check.status, check.unresolved) == ("unresolved", subtype)
    assert check.detail


def test_a_reply_cut_off_by_the_output_limit_is_incomplete_even_when_balanced() -> None:
    assert parse_stage2('{"case_id" "mf_e_001"}').unresolved == "other_malformed_json"
    assert parse_stage2('{"case_id" "mf_e_001"}', truncated=True).unresolved == "incomplete_json"


def test_fences_and_surrounding_prose_are_tolerated_and_noted(mf: Package) -> None:
    text = "Here is the data:\n```json\n" + stage2_reference(mf) + "\n```"
    check = check_stage2(text, mf)
    assert check.status == "matched"
    reading = parse_stage2("Sure! " + stage2_reference(mf) + "\nDone.")
    assert reading.structured_instance is not None
    assert len(reading.notes) == 2
