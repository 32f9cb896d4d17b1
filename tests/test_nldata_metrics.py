"""EBC and EF1 (NLData2Opt §4.3) and the AMPL declaration parser EF1 counts with."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import assume, given
from hypothesis import strategies as st

from benchmark.schema import CaseRecord
from benchmark.suites.nldata.entities import ENTITY_TYPES, declarations, entity_counts
from benchmark.suites.nldata.metrics import ebc, ebc_passes, entity_f1

finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)
counts = st.fixed_dictionaries({kind: st.integers(0, 12) for kind in ENTITY_TYPES})


@given(finite)
def test_ebc_zero_answer_scores_one_only_for_zero(objective: float) -> None:
    assert ebc(objective, 0.0) == (1.0 if objective == 0 else 0.0)


@given(finite, finite)
def test_ebc_bounds_formula_and_sign(objective: float, answer: float) -> None:
    assume(answer != 0)
    score = ebc(objective, answer)
    assert 0.0 <= score <= 1.0
    assert math.isclose(score, max(0.0, 1 - abs(objective - answer) / abs(answer)), abs_tol=1e-12)
    # The sign of the problem does not matter, only the relative distance.
    assert math.isclose(ebc(-objective, -answer), score, abs_tol=1e-12)
    # An objective of the wrong sign is at least |A| away: it scores 0.
    if objective * answer < 0:
        assert score == 0.0


@given(finite)
def test_ebc_exact_answer_scores_one_and_not_executed_scores_zero(answer: float) -> None:
    assert ebc(answer, answer) == 1.0
    assert ebc(None, answer) == 0.0
    assert ebc(math.nan, answer) == 0.0
    assert ebc(math.inf, answer) == 0.0
    assert ebc_passes(answer, answer)
    assert not ebc_passes(None, answer)


def test_ebc_pass_rule_is_relative_one_in_a_million() -> None:
    assert ebc_passes(1000.0009, 1000.0)
    assert not ebc_passes(1000.0011, 1000.0)
    assert ebc(1100.0, 1000.0) == 0.9


@given(counts, counts)
def test_ef1_is_symmetric_bounded_and_matches_the_multiset_formula(a: dict, b: dict) -> None:
    score = entity_f1(a, b)
    assert 0.0 <= score <= 1.0
    assert math.isclose(score, entity_f1(b, a))
    tp = sum((Counter(a) & Counter(b)).values())
    n_a, n_b = sum(a.values()), sum(b.values())
    if n_a == n_b == 0:
        assert score == 1.0
    elif tp == 0:
        assert score == 0.0
    else:
        assert math.isclose(score, 2 * tp / (n_a + n_b))


@given(counts)
def test_ef1_identical_models_score_one_and_an_empty_candidate_zero(gold: dict) -> None:
    assert entity_f1(gold, gold) == 1.0
    empty = {kind: 0 for kind in ENTITY_TYPES}
    assert entity_f1(empty, gold) == (1.0 if sum(gold.values()) == 0 else 0.0)


@given(counts, st.sampled_from(ENTITY_TYPES))
def test_ef1_an_extra_entity_never_raises_the_score_against_a_matching_gold(gold: dict, kind: str) -> None:
    assume(sum(gold.values()) > 0)
    more = {**gold, kind: gold[kind] + 1}
    assert entity_f1(more, gold) < 1.0


MODEL = """\
# A production model. set FAKE; inside a comment declares nothing
set PRODUCTS;   set RESOURCES;
/* a block comment
   param hidden{PRODUCTS};
*/
param profit{p in PRODUCTS}
    >= 0,
    default 1;
param usage{r in RESOURCES, p in PRODUCTS: r <> "a;b"};
param label symbolic := "subject to x: y;";
var make{PRODUCTS} >= 0, <= 100;
var flag binary;
maximize total_profit:
    sum{p in PRODUCTS}
        profit[p] * make[p];
subject to resource_limit{r in RESOURCES}:
    sum{p in PRODUCTS} usage[r, p] * make[p] <= 10;
s.t. link: flag >= 0;
subj to other: flag <= 1;
keyword_free{p in PRODUCTS}: make[p] <= 5;
solve;
display make;
option solver highs;
data;
set PRODUCTS := A B;
param profit := A 1 B 2;
"""


def test_parser_counts_declarations_not_lines() -> None:
    found = declarations(MODEL)
    assert [(d.kind, d.name) for d in found] == [
        ("set", "PRODUCTS"),
        ("set", "RESOURCES"),
        ("parameter", "profit"),
        ("parameter", "usage"),
        ("parameter", "label"),
        ("variable", "make"),
        ("variable", "flag"),
        ("objective", "total_profit"),
        ("constraint", "resource_limit"),
        ("constraint", "link"),
        ("constraint", "other"),
        ("constraint", "keyword_free"),
    ]
    assert found[2].line == 6 and found[7].line == 13
    assert entity_counts(MODEL) == Counter(set=2, parameter=3, variable=2, objective=1, constraint=4)


def test_parser_on_empty_and_comment_only_models() -> None:
    zero = Counter({kind: 0 for kind in ENTITY_TYPES})
    assert entity_counts("") == zero
    assert entity_counts("# nothing here\n/* set A; */\n") == zero
    assert entity_f1(entity_counts(""), entity_counts(MODEL)) == 0.0


def test_an_unterminated_last_declaration_still_counts() -> None:
    assert entity_counts("set A;\nvar x{A} >= 0")["variable"] == 1


def test_the_headline_ebc_leaves_unsupported_syntax_out_and_says_how_many() -> None:
    from benchmark.suites.nldata.reporting import report_tables

    def record(setting: str, ebc: float, category: str | None, model: str = "m") -> CaseRecord:
        outcome = "passed" if category is None else "failed"
        scores = {"ebc": ebc, "ebc_shown": 1.0 if ebc else 0.0, "ebc_unseen": ebc, "ef1": 1.0}
        return CaseRecord.model_validate(
            {"suite": "nldata", "case": f"nldata/x/{setting}/s0", "sample": 0, "setting": setting,
             "model": model, "outcome": outcome, "passed": category is None, "category": category,
             "scores": scores}
        )  # fmt: skip

    records = [
        record("nl", 1.0, None),
        record("nl", 0.5, "wrong_objective"),
        record("nl", 0.0, "unsupported_syntax"),
    ]
    by_setting, _, heatmap, errors = report_tables(records)
    header = list(by_setting.headers)
    row = dict(zip(header, by_setting.rows[0], strict=True))
    assert (row["cases"], row["EBC"], row["EBC over"], row["unsupported_syntax"]) == ("3", "0.750", "2", "1")
    assert row["EBC = 1"] == "33.3%"
    assert heatmap.rows[0][1] == "0.750" and "1 unsupported_syntax cases left out" in heatmap.title
    assert "unsupported_syntax" in errors.headers
