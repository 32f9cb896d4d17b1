"""AMPL as users write it (issue 25 item 2): real-style AMPL snippets with ordered sets and their
functions, ``param ... default``, ``setof`` and the usual ``option``/``display``/``solve`` lines, each
run under GNU MathProg after our rewrite and translation, against an optimum worked out by hand."""

from __future__ import annotations

import pytest

from benchmark.suites.nldata.mathprog import run_local
from benchmark.suites.nldata.translate import translate

#: Three months, demand 5, 6, 7, opening stock 2, production 2 per unit, holding 1 per unit and
#: month, at least 1 unit left at the end. Production is 18 + 1 - 2 = 17 units whatever the plan
#: (34), and the cheapest plan holds only the final unit (1): 35.
MONTHS = "data;\nset T := jan feb mar;\nparam demand := jan 5 feb 6 mar 7;\nparam init := 2;\nend;\n"
HEAD = """\
set T ordered;
param demand{T};
param init;
var make{T} >= 0;
var stock{T} >= 0;
"""
BALANCE = (
    "s.t. balance{t in T}:\n"
    "    (if t = first(T) then init else stock[prev(t)]) + make[t] - demand[t] = stock[t];\n"
)
COST = "minimize cost: sum{t in T} (2 * make[t] + stock[t]);\n"
END = "s.t. leftover: stock[last(T)] >= 1;\n"
LOT = HEAD + COST + BALANCE + END

#: Four days in a cycle, need 3, 2, 4, 1, an employee works the start day and the next: days one
#: and three share no employee, so 3 + 4 = 7 is a bound, met by starts (3, 0, 4, 0).
CYCLE_DATA = "data;\nset D := d1 d2 d3 d4;\nparam need := d1 3 d2 2 d3 4 d4 1;\nend;\n"
CYCLE_HEAD = (
    "set D circular;\nparam need{D};\nvar start{D} >= 0 integer;\nminimize staff: sum{d in D} start[d];\n"
)

SNIPPETS: list[tuple[str, str, str, float]] = [
    ("first/prev/last with the set inferred from the dummy", LOT, MONTHS, 35),
    ("ord(t) = 1 instead of first", LOT.replace("t = first(T)", "ord(t) = 1"), MONTHS, 35),
    ("ord with the set named", LOT.replace("t = first(T)", "ord(t, T) = 1"), MONTHS, 35),
    ("prev with the set named", LOT.replace("stock[prev(t)]", "stock[prev(t, T)]"), MONTHS, 35),
    (
        "a separate first-period constraint, the rest over ord(t) > 1",
        HEAD
        + COST
        + END
        + "s.t. open: init + make[first(T)] - demand[first(T)] = stock[first(T)];\n"
        + "s.t. flow{t in T: ord(t) > 1}: stock[prev(t)] + make[t] - demand[t] = stock[t];\n",
        MONTHS,
        35,
    ),
    (
        "prev with a step of two: the stock left in March covers January's demand (5)",
        LOT + "s.t. reserve{t in T: ord(t) > 2}: stock[t] >= demand[prev(t, T, 2)];\n",
        MONTHS,
        42 + 5,
    ),
    (
        "prev(prev(t)), the same rule nested",
        LOT + "s.t. reserve{t in T: ord(t) > 2}: stock[t] >= demand[prev(prev(t))];\n",
        MONTHS,
        47,
    ),
    (
        "next: each month keeps half the next month's demand (3 + 3.5, and 1 in March)",
        LOT + "s.t. ahead{t in T: t <> last(T)}: stock[t] >= 0.5 * demand[next(t)];\n",
        MONTHS,
        34 + 7.5,
    ),
    (
        "member: January makes exactly 4, so one unit waits a month (stock 1 + 0 + 1)",
        LOT + "s.t. fixed: make[member(1, T)] = 4;\n",
        MONTHS,
        36,
    ),
    (
        "holding weighted by ord (the final unit in month three)",
        LOT.replace("+ stock[t])", "+ ord(t) * stock[t])"),
        MONTHS,
        37,
    ),
    (
        "a parameter computed with ord0",
        LOT.replace("param init;", "param init;\nparam weight{t in T} := ord0(t, T);").replace(
            "+ stock[t])", "+ weight[t] * stock[t])"
        ),
        MONTHS,
        37,
    ),
    (
        "last(T) in the objective",
        LOT.replace("+ stock[t]);", "+ stock[t]) + 10 * stock[last(T)];"),
        MONTHS,
        45,
    ),
    (
        "the periods computed in the model, 1..n, numeric order",
        LOT.replace("set T ordered;", "param n integer > 0;\nset T ordered := 1..n;"),
        "data;\nparam n := 3;\nparam demand := 1 5 2 6 3 7;\nparam init := 2;\nend;\n",
        35,
    ),
    (
        "numeric periods given in the data file",
        LOT,
        "data;\nset T := 1 2 3;\nparam demand := 1 5 2 6 3 7;\nparam init := 2;\nend;\n",
        35,
    ),
    (
        "the data section inside the model file",
        LOT + "data;\nset T := jan feb mar;\nparam demand := jan 5 feb 6 mar 7;\nparam init := 2;\n",
        "data;\nend;\n",
        35,
    ),
    (
        "ordered by another set",
        "set MONTHS ordered;\n" + LOT.replace("set T ordered;", "set T within MONTHS ordered by MONTHS;"),
        MONTHS.replace("set T :=", "set MONTHS := jan feb mar;\nset T :="),
        35,
    ),
    (
        "a cost with a model default and a setof set of the later months",
        HEAD.replace(
            "param init;",
            "param init;\nparam unit_cost default 2;\nset LATER := setof{t in T: ord(t) > 1} t;",
        )
        + "minimize cost: sum{t in T} (unit_cost * make[t] + stock[t]);\n"
        + "s.t. open: init + make[first(T)] - demand[first(T)] = stock[first(T)];\n"
        + "s.t. flow{t in LATER}: stock[prev(t, T)] + make[t] - demand[t] = stock[t];\n"
        + END,
        MONTHS,
        35,
    ),
    (
        "default in the model, values for some members in the data",
        LOT.replace("param init;", "param init;\nparam hold{T} default 1;").replace(
            "+ stock[t])", "+ hold[t] * stock[t])"
        ),
        MONTHS.replace("end;", "param hold := jan 9;\nend;"),
        35,
    ),
    (
        "the commands a user's script has around the model",
        "option solver highs;\noption highs_options 'outlev=1';\nreset;\n"
        + LOT
        + "solve;\ndisplay make, stock;\ndisplay {t in T} stock[t];\n"
        + 'for {t in T} {\n  printf "%s %g\\n", t, make[t];\n}\nprintf "total %g\\n", cost;\n',
        MONTHS,
        35,
    ),
    (
        "circular days with prevw",
        CYCLE_HEAD + "s.t. cover{d in D}: start[d] + start[prevw(d)] >= need[d];\n",
        CYCLE_DATA,
        7,
    ),
    (
        "circular days with nextw, named set",
        CYCLE_HEAD + "s.t. cover{d in D}: sum{s in D: s = d or nextw(s, D) = d} start[s] >= need[d];\n",
        CYCLE_DATA,
        7,
    ),
    (
        "prevw with a step: an employee works three days; d3 needs 4 and d1 3 with one start in common: 4",
        CYCLE_HEAD + "s.t. cover{d in D}: start[d] + start[prevw(d)] + start[prevw(d, D, 2)] >= need[d];\n",
        CYCLE_DATA,
        4,
    ),
]


@pytest.mark.parametrize(("what", "model", "data", "optimum"), SNIPPETS, ids=[s[0] for s in SNIPPETS])
def test_ampl_snippet_runs_under_mathprog(what: str, model: str, data: str, optimum: float) -> None:
    run = run_local(model, data)
    assert run.status == "optimal", (what, run.error, run.rewrites)
    assert run.objective == pytest.approx(optimum, rel=1e-9), what


def test_there_are_at_least_twenty_snippets() -> None:
    assert len(SNIPPETS) >= 20


def test_translation_records_what_it_did_and_keeps_the_rest() -> None:
    done = translate(LOT, MONTHS)
    assert "ordered" not in done.model and "first(" not in done.model and "prev(" not in done.model
    assert (
        "param __ord_T := jan 1 feb 2 mar 3;" in done.data
        and "param __at_T := 1 jan 2 feb 3 mar;" in done.data
    )
    assert any("ordered-set function call(s) on T" in note for note in done.notes)
    plain = "set P;\nparam c{P};\nvar x{P} >= 0;\nminimize z: sum{p in P} c[p] * x[p];\n"
    untouched = translate(plain, "data;\nend;\n")
    assert (untouched.model, untouched.data, untouched.notes) == (plain, "data;\nend;\n", ())


def test_what_cannot_be_translated_is_unsupported_syntax() -> None:
    # prev() on a set expression (not a named set), and AMPL's let
    unnamed = LOT.replace("stock[prev(t)]", "stock[prev(t, T diff {'x'})]")
    for model in (unnamed, LOT + "let init := 3;\n"):
        run = run_local(model, MONTHS)
        assert run.category == "unsupported_syntax", (run.category, run.error)
