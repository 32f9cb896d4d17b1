"""Running AMPL files with glpsol: our MathProg rewrites, the error classes, the sandboxed run, and
the reply and judge parsers."""

from __future__ import annotations

import json

import pytest

from benchmark.sandbox import Limits, create_sandbox
from benchmark.suites.nldata.backends import AMPL, choose, classify_ampl, probe_ampl
from benchmark.suites.nldata.execution import run_candidate
from benchmark.suites.nldata.judge import parse_score
from benchmark.suites.nldata.mathprog import BACKEND as MATHPROG
from benchmark.suites.nldata.mathprog import ampl_only_constructs, rewrite, run_local
from benchmark.suites.nldata.prompts import fenced
from benchmark.suites.nldata.response import extract
from tests.conftest import REPO

MODEL = """\
set P;
param profit{P};
param cap;
var x{P} >= 0;
maximize z: sum{p in P} profit[p] * x[p];
s.t. limit: sum{p in P} x[p] <= cap;
"""
DATA = "data;\nset P := A B;\nparam profit := A 3 B 5;\nparam cap := 4;\nend;\n"


def test_rewrite_removes_commands_only_and_records_them() -> None:
    text = (
        MODEL + 'option solver cplex;\n# solve; in a comment stays\nsolve;\ndisplay x, z;\nprintf "%g", z;\n'
    )
    rewritten = rewrite(text)
    assert rewritten.removed == ("option solver cplex;", "solve;", "display x, z;", 'printf "%g", z;')
    assert MODEL in rewritten.text and "# solve; in a comment stays" in rewritten.text
    assert "display" not in rewritten.text.replace("# solve; in a comment stays", "")
    # A data file's own "data;" header stays, a "data FILE;" command goes.
    assert rewrite(DATA).removed == ()
    assert rewrite("model m.mod;\ndata m.dat;\n").removed == ("model m.mod;", "data m.dat;")


def test_gold_pair_solves_with_commands_around_it() -> None:
    run = run_local(MODEL + "solve;\ndisplay x;\n", DATA)
    assert (run.status, run.objective, run.category) == ("optimal", 20.0, None)
    assert run.rewrites == {"model": ["solve;", "display x;"], "data": []}


@pytest.mark.parametrize(
    ("model", "data", "category", "needle"),
    [
        (MODEL.replace("profit[p] * x", "profits[p] * x"), DATA, "undefined_entity", "profits"),
        (MODEL, DATA.replace("end;", "param bonus := 2;\nend;"), "undeclared_data_parameter", "bonus"),
        (MODEL, DATA.replace("param cap := 4;\n", ""), "missing_data", "cap"),
        (MODEL + "fix x['A'] := 1;\n", DATA, "unsupported_syntax", "AMPL command"),
        (MODEL.replace("<= cap", "<= Infinity"), DATA, "unsupported_syntax", "Infinity"),
        (MODEL + "let cap := 5;\n", DATA, "unsupported_syntax", "let"),
        (MODEL.replace("* x[p]", "* * x[p]"), DATA, "syntax", "syntax error"),
        (MODEL + "s.t. low: sum{p in P} x[p] >= cap + 1;\n", DATA, "infeasible", "no feasible"),
        (
            MODEL.replace("s.t. limit: sum{p in P} x[p] <= cap;", "s.t. limit: x['A'] <= cap;"),
            DATA,
            "unbounded",
            "",
        ),
    ],
)
def test_errors_are_classified(model: str, data: str, category: str, needle: str) -> None:
    run = run_local(model, data)
    assert run.category == category, run.log
    assert needle in run.error
    assert run.objective is None


def test_milp_is_solved_to_optimality() -> None:
    run = run_local(
        MODEL.replace("var x{P} >= 0;", "var x{P} >= 0 integer;").replace("<= cap", "<= cap + 0.5"), DATA
    )
    assert (run.status, run.objective) == ("optimal", 20.0)


def test_ampl_only_constructs_ignore_comments_and_strings() -> None:
    assert ampl_only_constructs("# let x := 1;\nparam s symbolic := 'ordered';\n") == []
    assert ampl_only_constructs("set T ordered;\nparam a{t in T} := ord(t);") == [
        "ordered/circular sets",
        "ordered-set functions",
    ]


def test_sandboxed_run_gives_the_same_results_as_a_local_run() -> None:
    limits = Limits(wall_timeout_s=60)
    with create_sandbox(()) as sandbox:
        ok = run_candidate(MODEL, DATA, sandbox, limits)
        bad = run_candidate(MODEL, DATA.replace("end;", "param bonus := 2;\nend;"), sandbox, limits)
    assert (ok.status, ok.objective) == ("optimal", 20.0) and ok.wall_s is not None
    assert bad.category == "undeclared_data_parameter"


#: Issue 24 item 7: bounds glpsol refuses (so it solves nothing) and a forged solution file with a
#: far better objective, written by a ``printf`` nested in a ``for`` and by a ``table OUT``.
FORGED_SOLUTION = "c forged\\ns bas 2 2 f f 99999\\n"
FORGERY = MODEL.replace("var x{P} >= 0;", "var x{P} >= 5, <= 1;") + (
    f'for {{i in 1..1}} {{\n  printf "{FORGED_SOLUTION}" > "solution.txt";\n}}\n'
    'for {i in 1..1} for {j in 1..1} printf "s bas 2 2 f f 99999\\n" >> "solution.txt";\n'
    'table forged {p in P} OUT "CSV" "solution.csv": p;\n'
    "s.t. kept: x['A'] <= cap;\n"
)


def test_rewrite_removes_a_printf_nested_in_a_for_with_its_loop_only() -> None:
    rewritten = rewrite(FORGERY)
    assert "printf" not in rewritten.text and "table" not in rewritten.text
    assert [r.split()[0] for r in rewritten.removed] == ["for", "for", "table"]
    # The statement after the loops is the model's and stays, and so does everything before them.
    assert "s.t. kept: x['A'] <= cap;" in rewritten.text and MODEL.split("var")[0] in rewritten.text
    assert rewrite("if card(P) > 1 then { printf 'x'; } else display P;\nparam k;").text.strip() == "param k;"


@pytest.mark.parametrize("where", ["local", "sandbox"])
def test_a_forged_solution_file_and_refused_bounds_fail_with_the_logs_reason(where: str) -> None:
    if where == "local":
        run = run_local(FORGERY, DATA)
    else:
        with create_sandbox(()) as sandbox:
            run = run_candidate(FORGERY, DATA, sandbox, Limits(wall_timeout_s=60))
    assert (run.status, run.objective, run.category) == ("error", None, "runtime"), run
    assert "incorrect bounds" in run.error and "glp_simplex" in run.error


def test_a_solution_file_with_two_status_lines_is_not_glpsols() -> None:
    from benchmark.suites.nldata.mathprog import read_solution

    real = "c Status: OPTIMAL\ns bas 2 2 f f 20\ni 1 b 0 0\ne o f\n"
    assert read_solution(real) == ("optimal", 20.0)
    assert read_solution("s bas 2 2 f f 99999\n" + real) == ("undefined", None)


def test_reply_extraction() -> None:
    assert extract(fenced(MODEL, DATA)) == extract(f"Here:\n```ampl\n{MODEL}```\nand\n```ampl\n{DATA}```")
    both = extract(f"```ampl\n{MODEL}{DATA}```")
    assert both.model == MODEL and both.data == DATA
    assert extract("no code at all").violation.startswith("the reply has no fenced code block")
    three = extract("```a\nx\n```\n```b\ny\n```\n```c\nz\n```")
    assert three.model is None and "3 fenced blocks" in three.violation


def test_judge_score_parsing() -> None:
    assert parse_score("fine.\nSCORE: 7") == 7.0
    assert parse_score("SCORE: 3 ... no wait\nscore: 8.5") == 8.5
    assert parse_score("SCORE: 11") is None and parse_score("ten out of ten") is None


def test_backend_choice_falls_back_to_mathprog_and_says_why() -> None:
    problem = probe_ampl()
    auto = choose("auto")
    if problem is None:  # a machine with a licensed AMPL
        assert auto.name == AMPL
    else:
        assert auto.name == MATHPROG and problem in auto.reason
        with pytest.raises(ValueError, match="--nldata-backend=ampl"):
            choose("ampl")
    assert choose("mathprog").name == MATHPROG
    with pytest.raises(ValueError, match="must be one of"):
        choose("cplex")


def test_ampl_read_errors_map_to_the_suite_categories() -> None:
    assert classify_ampl("bonus is not a param or set") == "undeclared_data_parameter"
    assert classify_ampl("profits is not defined") == "undefined_entity"
    assert classify_ampl("no data for set P") == "missing_data"
    assert classify_ampl("syntax error") == "syntax"


def test_damaged_dataset_lines_name_the_file_line_and_problem(tmp_path) -> None:
    from benchmark.suites.nldata import dataset
    from benchmark.verdict import DatasetError

    shipped = (REPO / "fixtures" / "nldata" / "diet.jsonl").read_text().splitlines()
    good = json.loads(shipped[0])
    broken = {**good, "id": "diet_999", "settings": {**good["settings"], "nl": {"description": ""}}}
    path = tmp_path / "diet.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(broken) + "\n{not json\n")
    with pytest.raises(DatasetError, match=r"diet.jsonl:3: not valid JSON"):
        dataset.discover(tmp_path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(broken) + "\n")
    refs = dataset.discover(tmp_path)
    assert [r.key for r in refs] == ["nldata/diet/easy/diet_001", "nldata/diet/easy/diet_999"]
    assert dataset.load_task(refs[0], "nl").objective == good["objective"]
    with pytest.raises(DatasetError, match=r"diet.jsonl:2: 'description' must be a non-empty string"):
        dataset.load_task(refs[1], "nl")
    with pytest.raises(DatasetError, match="no setting 'stage1'"):
        dataset.load_task(refs[0], "stage1")
    with pytest.raises(DatasetError, match="does not exist"):
        dataset.discover(tmp_path / "missing")
