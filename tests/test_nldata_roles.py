"""EF1 on meaning (issue 25 item 6): entities matched to the gold model's by role, read from glpsol's
LP translation and the data mapping, scored with the paper's F1. Models written differently but
equivalently score 1; wrong ones score less. Every model runs through the real sandbox and glpsol."""

from __future__ import annotations

import json

import pytest

from benchmark.sandbox import Limits, create_sandbox
from benchmark.suites.nldata import dataset
from benchmark.suites.nldata.entities import entity_counts
from benchmark.suites.nldata.execution import run_with_dump
from benchmark.suites.nldata.heldout import declared_names
from benchmark.suites.nldata.metrics import entity_f1
from benchmark.suites.nldata.roles import read_lp
from benchmark.suites.nldata.suite import _roles
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "nldata"


def _task(domain: str, setting: str = "nl_data") -> dataset.Task:
    ref = next(r for r in dataset.discover(FIXTURES) if r.path[0] == domain)
    return dataset.load_task(ref, setting)


@pytest.fixture(scope="module")
def sandbox():
    with create_sandbox(()) as box:
        yield box


def _ef1(sandbox, task: dataset.Task, model: str, data: str | None = None) -> float:
    data = task.gold_data if data is None else data
    execution, dumped, listing = run_with_dump(model, data, sandbox, Limits(wall_timeout_s=60),
                                               dump_names=declared_names(model))  # fmt: skip
    roles = _roles(task, model, dumped, listing)
    assert roles is not None, execution.error
    return roles.f1


PRODUCTION = _task("production_mix")
GOLD = PRODUCTION.gold_model
AS_BOUND = GOLD.replace(
    "var make{p in PRODUCTS} >= 0;", "var make{p in PRODUCTS} >= 0, <= max_demand[p];"
).replace("subject to demand_limit{p in PRODUCTS}: make[p] <= max_demand[p];\n", "")
REWRITTEN = (
    AS_BOUND.replace("make", "qty")
    .replace("total_profit", "earnings")
    .replace("resource_limit", "limit")
    .replace(
        "sum{p in PRODUCTS} usage[r, p] * qty[p] <= capacity[r]",
        "2 * capacity[r] >= sum{p in PRODUCTS} 2 * usage[r, p] * qty[p]",
    )
)

EQUIVALENT = [
    ("the gold model itself", GOLD),
    ("a demand limit written as a variable bound", AS_BOUND),
    ("renamed, the capacity rows flipped to >= and doubled", REWRITTEN),
    # a constraint whose name starts with "bound" is still a family of rows, not a bound
    ("capacity rows named bound_on_usage", GOLD.replace("resource_limit", "bound_on_usage")),
    (
        "declarations in another order",
        "\n".join(reversed(GOLD.split("\n", 2)[:2])) + "\n" + GOLD.split("\n", 2)[2],
    ),
]
WRONG = [
    ("a capacity one unit too high", GOLD.replace("<= capacity[r]", "<= capacity[r] + 1")),
    (
        "the demand limit left out",
        GOLD.replace("subject to demand_limit{p in PRODUCTS}: make[p] <= max_demand[p];\n", ""),
    ),
    ("an objective that counts units, not profit", GOLD.replace("profit[p] * make[p]", "make[p]")),
    ("an extra variable the gold model does not have", GOLD + "var slack >= 0;\ns.t. pad: slack <= 1;\n"),
]


@pytest.mark.parametrize(("what", "model"), EQUIVALENT, ids=[w for w, _ in EQUIVALENT])
def test_equivalent_models_written_differently_score_one(sandbox, what: str, model: str) -> None:
    assert _ef1(sandbox, PRODUCTION, model) == 1.0, what


@pytest.mark.parametrize(("what", "model"), WRONG, ids=[w for w, _ in WRONG])
def test_wrong_models_score_less_than_one(sandbox, what: str, model: str) -> None:
    assert _ef1(sandbox, PRODUCTION, model) < 1.0, what


def test_the_declaration_count_rewarded_style_and_the_role_match_does_not(sandbox) -> None:
    """The count-based F1 (kept as ef1_types) marks the bound form down and the wrong capacity up."""
    gold_counts = entity_counts(GOLD)
    assert entity_f1(entity_counts(AS_BOUND), gold_counts) < 1.0
    wrong = GOLD.replace("<= capacity[r]", "<= capacity[r] + 1")
    assert entity_f1(entity_counts(wrong), gold_counts) == 1.0
    assert _ef1(sandbox, PRODUCTION, AS_BOUND) == 1.0 > _ef1(sandbox, PRODUCTION, wrong)


def test_a_renamed_transposed_transportation_model_and_the_derivation_score_one(sandbox) -> None:
    from tests.test_nldata_e2e import RENAMED_MODEL, _renamed_data

    record = next(json.loads(line) for line in (FIXTURES / "transportation.jsonl").read_text().splitlines())
    task = _task("transportation")
    # n_markets is an extra parameter (a set's size) the gold model does not declare: F1 just below 1
    renamed = _ef1(sandbox, task, RENAMED_MODEL, _renamed_data(record))
    assert 0.9 < renamed < 1.0
    without = RENAMED_MODEL.replace("param n_markets;\n", "").replace(
        "s.t. sized: card(M) = n_markets;\n", ""
    )
    data = "\n".join(line for line in _renamed_data(record).splitlines() if "n_markets" not in line) + "\n"
    assert _ef1(sandbox, task, without, data) == 1.0
    derivation = _task("transportation", "derivation")
    assert _ef1(sandbox, derivation, derivation.gold_model) == 1.0


def test_the_lp_reader_keeps_bounds_integers_and_wrapped_rows() -> None:
    text = (
        "\\* Problem: m *\\\n\nMaximize\n z: + 3 x(a) + 5 x(b)\n + 2 y\n\nSubject To\n c(1): + x(a) + x(b)\n"
        " - y <= 4\n d: - x(a) >= -9\n\nBounds\n 0 <= y <= 1\n x(b) <= 7\n w free\n\nGenerals\n y\n\nEnd\n"
    )
    listing = read_lp(text)
    assert listing.sense == "max" and listing.objective == {"x(a)": 3.0, "x(b)": 5.0, "y": 2.0}
    assert listing.rows == [
        ("c(1)", {"x(a)": 1.0, "x(b)": 1.0, "y": -1.0}, "<=", 4.0),
        ("d", {"x(a)": -1.0}, ">=", -9.0),
    ]
    assert listing.bounds["y"] == (0.0, 1.0) and listing.bounds["x(b)"] == (0.0, 7.0)
    assert listing.bounds["w"] == (float("-inf"), float("inf")) and listing.integer == {"y"}


def test_a_malformed_lp_text_is_read_without_an_exception() -> None:
    """Names glpsol never writes, a row without a sense, a bound line of no known form."""
    from benchmark.suites.nldata.roles import role_match

    text = (
        "Minimize\n z: + 1e308 (x + 2 x(\n\nSubject To\n c: + x(a) <=\n d(: + 0 y >= 1\n\n"
        "Bounds\n junk line\n\nEnd\n"
    )
    listing = read_lp(text)
    gold = read_lp("Minimize\n z: + x\n\nSubject To\n c: + x >= 1\n\nEnd\n")
    assert 0.0 <= role_match(listing, gold, ((0, 0, 0), (0, 0, 0))).f1 < 1.0
