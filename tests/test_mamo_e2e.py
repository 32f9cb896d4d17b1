"""The Mamo suite as a user runs it: real pytest sessions, the real sandbox, the shipped cases,
replayed hand-written answers, a replay code modifier and the public release's format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.ledger import LEDGER_FILE
from tests.chat_server import ChatServer, Reply
from tests.conftest import REPO, BenchRun, run_bench

pytestmark = pytest.mark.slow

FIXTURES = REPO / "fixtures" / "mamo"


def _case(kind: str, case_id: int) -> dict:
    lines = (FIXTURES / f"{kind}.jsonl").read_text().splitlines()
    return json.loads(lines[case_id - 1])


def _key(kind: str, case_id: int) -> str:
    return f"mamo/{kind}/{case_id}/fewshot/s0"


def _write(path: Path, entries: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"case": k, "response": v}) + "\n" for k, v in entries.items()))
    return path


def _fence(text: str, language: str) -> str:
    return f"```{language}\n{text}```"


ODE, LP = "first_order_equation", "easy_lp"
BROKEN_ODE = "def rhs(t, u)"  # a missing colon after the reference's function header


def _broken_ode(case_id: int) -> str:
    return _case(ODE, case_id)["reference"].replace("def rhs(t, u):", BROKEN_ODE)


def _broken_lp(case_id: int) -> str:
    return _case(LP, case_id)["reference"].replace("Subject To", "Subject To\n extra: x1 <= 5 - x2", 1)


def _selection(*keys: str) -> str:
    """A -k expression for exactly these case keys (``mamo/easy_lp/1/fewshot/s0`` → ``easy_lp/1-fewshot``)."""
    return " or ".join("{}/{}-fewshot".format(*key.split("/")[1:3]) for key in keys)


RESPONSES = {
    _key(ODE, 1): _fence(_case(ODE, 1)["reference"], "python"),
    _key(ODE, 2): _fence(
        _case(ODE, 2)["reference"].replace("print(solution.y[0, -1])", "print(2 * solution.y[0, -1] + 1)"),
        "python",
    ),
    _key(ODE, 3): _fence(_broken_ode(3), "python"),
    _key(ODE, 4): _fence("import scipyy\nprint(1)\n", "python"),
    _key(ODE, 5): _fence(
        _case(ODE, 5)["reference"].replace("print(solution.y[0, -1])", "print('y =', solution.y[0, -1])"),
        "python",
    ),
    _key(ODE, 6): "I wish you good luck",
    _key(LP, 1): _fence(_case(LP, 1)["reference"], "lp"),
    _key(LP, 2): _fence(
        _case(LP, 2)["reference"]
        .replace("End", "Subject To\n impossible: x1 <= -1\nEnd")
        .replace("Subject To\n impossible", " impossible"),
        "lp",
    ),
    _key(LP, 3): _fence("Maximize\n obj: x + y\nSubject To\n c1: x - y >= 5\nEnd\n", "lp"),
    _key(LP, 4): _fence(_broken_lp(4), "lp"),
    _key(LP, 5): _fence("Minimize\n obj: x\nSubject To\n c1: x >= 1\nEnd\n", "lp"),
}


def _run(bench, tmp_path: Path, *args: str) -> BenchRun:
    replay = _write(tmp_path / "answers.jsonl", RESPONSES)
    return bench("--suite=mamo", f"--model=replay:{replay}", "-n", "2", "-k", _selection(*RESPONSES), *args)


def test_hand_written_answers_are_scored_and_categorized(bench, tmp_path: Path) -> None:
    run = _run(bench, tmp_path, "--modifier-passes=0")
    records = run.by_case()
    assert set(records) == set(RESPONSES), run.output[-3000:]
    expected = {
        _key(ODE, 1): None,
        _key(ODE, 2): "wrong_ode_value",
        _key(ODE, 3): "syntax",
        _key(ODE, 4): "dependency",
        _key(ODE, 5): "output_format",
        _key(ODE, 6): "response_contract",
        _key(LP, 1): None,
        _key(LP, 2): "wrong_objective",
        _key(LP, 3): "wrong_objective",
        _key(LP, 4): "syntax",
        _key(LP, 5): "wrong_objective",
    }
    assert {key: r["category"] for key, r in records.items()} == expected
    assert records[_key(LP, 2)]["extra"]["raw"]["status"] == "infeasible"
    assert records[_key(LP, 3)]["extra"]["raw"]["status"] in ("unbounded", "infeasible_or_unbounded")
    assert records[_key(LP, 2)]["valid_code"] and not records[_key(LP, 4)]["valid_code"]
    assert "5 - x2" in records[_key(LP, 4)]["detail"]  # the reader's own message, pointing at the line
    assert records[_key(LP, 5)]["returned_objective"] == 1.0
    assert records[_key(ODE, 1)]["returned_objective"] == pytest.approx(
        float(_case(ODE, 1)["Answer"]), rel=1e-3
    )
    assert all(r["model_calls"] == 1 for r in records.values())
    # the record alone reproduces the run: the artifact as extracted and what running it printed
    ode, lp, syntax = records[_key(ODE, 2)], records[_key(LP, 5)], records[_key(ODE, 3)]
    assert _fence(ode["artifact"]["program.py"], "python") == RESPONSES[_key(ODE, 2)]
    assert float(ode["output"]["stdout"].split()[-1]) == ode["returned_objective"]
    assert _fence(lp["artifact"]["model.lp"], "lp") == RESPONSES[_key(LP, 5)]
    assert BROKEN_ODE in syntax["artifact"]["program.py"]
    assert records[_key(ODE, 5)]["output"]["stdout"].startswith("y = ")  # the output_format failure
    assert records[_key(ODE, 6)]["artifact"] == {}  # no artifact in the reply: its raw text is the turn
    tables = {t["title"].split(" (")[0]: t for t in run.summary["suite_tables"]}
    accuracy = {row[0]: row for row in tables["Mamo accuracy by type"]["rows"]}
    assert accuracy["first_order_equation"][1:3] == ["6", "16.67%"]
    assert accuracy["overall"][1:3] == ["11", "18.18%"]
    assert run.returncode == 1


def test_the_modifier_fixes_broken_artifacts_without_seeing_the_question(bench, tmp_path: Path) -> None:
    fixes = _write(
        tmp_path / "fixes.jsonl",
        {
            f"{_key(ODE, 3)}/modify1": _fence(_case(ODE, 3)["reference"], "python"),
            f"{_key(ODE, 4)}/modify1": "no idea",
            f"{_key(LP, 4)}/modify1": _fence(_case(LP, 4)["reference"], "lp"),
            f"{_key(ODE, 5)}/modify1": _fence(_case(ODE, 5)["reference"], "python"),
        },
    )
    run = _run(bench, tmp_path, f"--modifier-model=replay:{fixes}")
    records = run.by_case()
    assert set(records) == set(RESPONSES), run.output[-3000:]
    for key, broken_text in ((_key(ODE, 3), BROKEN_ODE), (_key(LP, 4), "5 - x2"), (_key(ODE, 5), "'y ='")):
        record = records[key]
        assert not record["passed"] and record["scores"]["raw"] == 0.0
        assert record["scores"]["modified"] == 1.0 and record["scores"]["executed_modified"] == 1.0
        (sent,) = record["extra"]["modifier"]["passes"][0]["sent"]
        assert broken_text in sent and record["extra"]["raw"]["error"].splitlines()[0] in sent
        kind, case_id = key.split("/")[1], int(key.split("/")[2])
        question = _case(kind, case_id)["Question"]
        assert question[:60] not in sent and question[-80:-30] not in sent
        assert record["model_calls"] == 2
        name = "program.py" if kind == ODE else "model.lp"
        assert broken_text in record["artifact"][name]
        assert record["artifact"][f"modified/{name}"].strip() == _case(kind, case_id)["reference"].strip()
        assert set(record["output"]) == {"stdout", "stderr", "modified/stdout", "modified/stderr"}
    unfixed = records[_key(ODE, 4)]
    assert unfixed["scores"]["modified"] == 0.0
    assert unfixed["extra"]["modifier"]["passes"][0]["result"]["category"] == "response_contract"
    for key in (_key(ODE, 2), _key(LP, 2), _key(ODE, 6)):  # wrong, infeasible, no artifact: never modified
        assert "modifier" not in records[key]["extra"] and records[key]["model_calls"] == 1
    tables = {t["title"].split(" (")[0]: t for t in run.summary["suite_tables"]}
    overall = {row[0]: row for row in tables["Mamo accuracy by type"]["rows"]}["overall"]
    assert overall[2:] == ["18.18%", "45.45%", "+27.27"]
    execution = {row[0]: row for row in tables["Mamo execution rate"]["rows"]}
    assert execution["ODE"][2:] == ["33.33%", "66.67%", "+33.33"]  # raw: cases 1, 2; fixed: 3, 5


def _public_release(folder: Path) -> Path:
    folder.mkdir()
    ode_lines = [
        {
            "id": 1,
            "Question": "A tank ... (given as text). Round to two decimal places.",
            "Answer": "20.09",
            "Category": "ordinary_differential_equation",
            "Type": "first_order_equation",
        },
        {
            "id": 2,
            "Question": "A spring ... Round to four decimal places.",
            "Answer": "-0.0310",
            "Category": "ordinary_differential_equation",
            "Type": "second_order_equation",
        },
    ]
    lp_lines = [
        {
            "id": 1,
            "Question": "Chairs and tables ...",
            "Answer": "15",
            "Category": "optimization",
            "Type": "easy_lp",
        },
        {"id": 2, "Question": "Depots ...", "Answer": "0", "Category": "optimization", "Type": "complex_lp"},
    ]
    for name, lines in (("ode.jsonl", ode_lines), ("lp.jsonl", lp_lines)):
        (folder / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def test_the_public_release_format_loads_and_the_oracle_says_it_cannot_run(bench, tmp_path: Path) -> None:
    release = _public_release(tmp_path / "release")
    collected = bench(f"--dataset=mamo:{release}", "--model=oracle", "--collect-only", "-q")
    for key in (
        "mamo/lp/1-fewshot-s0",
        "mamo/lp/2-fewshot-s0",
        "mamo/ode/1-fewshot-s0",
        "mamo/ode/2-fewshot-s0",
    ):
        assert key in collected.output
    run = bench(f"--dataset=mamo:{release}", "--model=oracle")
    assert run.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, run.output[-3000:]  # nothing scored
    assert "no case was scored: all 4 were skipped" in run.output
    assert [r["outcome"] for r in run.records] == ["skipped"] * 4
    assert all("no reference artifact" in r["detail"] and "release" in r["detail"] for r in run.records)
    assert "oracle cannot answer" in run.output


def test_the_public_release_format_is_scored_with_replayed_answers(bench, tmp_path: Path) -> None:
    release = _public_release(tmp_path / "release")
    answers = _write(
        tmp_path / "answers.jsonl",
        {
            "mamo/ode/1/fewshot/s0": "```python\nimport math\nprint(math.exp(3))\n```",
            "mamo/ode/2/fewshot/s0": "```python\nprint(-0.0312)\n```",
            "mamo/lp/1/fewshot/s0": _fence(
                "Maximize\n obj: x + y\nSubject To\n c1: x + y <= 20\n c2: x - y >= 0\nBounds\n"
                " 0 <= x <= 10\n 0 <= y <= 5\nGenerals\n x\n y\nEnd\n",
                "lp",
            ),
            "mamo/lp/2/fewshot/s0": "```lp\nMinimize\n obj: x\nSubject To\n c1: x >= 0.5\nEnd\n```",
        },
    )
    run = bench(f"--dataset=mamo:{release}", f"--model=replay:{answers}", "--modifier-passes=0")
    records = run.by_case()
    assert records["mamo/ode/1/fewshot/s0"]["passed"]  # e^3 = 20.0855..., within 0.01 of 20.09
    assert records["mamo/ode/2/fewshot/s0"]["category"] == "wrong_ode_value"  # 2e-4 off at four decimals
    assert records["mamo/lp/1/fewshot/s0"]["passed"]
    assert records["mamo/lp/2/fewshot/s0"]["category"] == "wrong_objective"  # A = 0: |0.5| is not near zero
    assert records["mamo/lp/1/fewshot/s0"]["family"] == "optimization"
    assert records["mamo/ode/2/fewshot/s0"]["subcategory"] == "second_order_equation"


def test_a_damaged_line_is_one_errored_case(bench, tmp_path: Path) -> None:
    release = _public_release(tmp_path / "release")
    lines = (release / "lp.jsonl").read_text().splitlines()
    lines[1] = json.dumps(
        {"id": 2, "Question": "q", "Answer": "about 3", "Category": "optimization", "Type": "easy_lp"}
    )
    (release / "lp.jsonl").write_text("\n".join(lines) + "\n")
    answers = _write(tmp_path / "answers.jsonl", {"mamo/lp/2/fewshot/s0": "x"})
    run = bench(f"--dataset=mamo:{release}", f"--model=replay:{answers}", "-k", "lp/2-fewshot")
    (record,) = run.records
    assert record["outcome"] == "error" and record["category"] == "dataset_error"
    assert "lp.jsonl:2" in record["detail"] and "about 3" in record["detail"]


def _loopback_models(tmp_path: Path, server: ChatServer) -> Path:
    """Two aliases of the loopback server: the model under test and a separate code modifier."""
    entry = (
        f'base_url = "{server.base_url}"\nmodel = "loopback"\nmax_retries = 0\n'
        "input_price_per_mtok = 3.0\noutput_price_per_mtok = 15.0\nmax_output_tokens = 200\n"
    )
    path = tmp_path / "models.toml"
    path.write_text(f"[models.loop]\n{entry}\n[models.fixer]\n{entry}", encoding="utf-8")
    return path


def _broken_then_fixed(body: dict, seen: int) -> Reply:
    """The task prompt gets ODE case 3's broken program; the modifier's prompt, its reference."""
    prompt = body["messages"][0]["content"]
    prompt = prompt if isinstance(prompt, str) else " ".join(p.get("text", "") for p in prompt)
    fixing = "Error message:" in prompt
    return Reply(text=_fence(_case(ODE, 3)["reference"] if fixing else _broken_ode(3), "python"))


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def test_a_separate_modifier_model_is_asked_through_the_case_context(tmp_path: Path, no_proxy: None) -> None:
    """--modifier-model's calls pass the run's gate (ledger), are recorded as turns of the case (so
    rescore replays them with no endpoint) and count against --max-cost like the first call."""
    key = _key(ODE, 3)
    select = ("--suite=mamo", "-k", _selection(key), "-n", "0", "--max-in-flight=1", "--cache=off")
    server = ChatServer(_broken_then_fixed)
    with server.running():
        models = _loopback_models(tmp_path, server)
        run = run_bench(
            tmp_path / "run", "--model=loop", "--modifier-model=fixer", f"--models-file={models}", *select
        )
        capped = run_bench(
            tmp_path / "capped", "--model=loop", "--modifier-model=fixer", "--max-cost=0.008",
            f"--models-file={models}", *select,
        )  # fmt: skip
    (record,) = run.records
    assert record["scores"] == {"raw": 0.0, "modified": 1.0, "executed_raw": 0.0, "executed_modified": 1.0}
    assert [t["key"] for t in record["turns"]] == [key, f"{key}/modify1"], run.output[-3000:]
    assert record["model_calls"] == 2 and record["cost_usd"] == pytest.approx(0.012)
    ledger = [json.loads(line) for line in (run.run_dir / LEDGER_FILE).read_text().splitlines()]
    assert [line["case"] for line in ledger] == [key, f"{key}/modify1"]
    # the first request's worst case (about $0.0057) fits under $0.008; once it cost $0.006, the
    # modifier's request (its output alone may cost $0.003) is refused before it is sent
    (refused,) = capped.records
    assert (refused["outcome"], refused["category"]) == ("error", "api_error")
    assert "budget exhausted" in refused["detail"] and f"{key}/modify1" in refused["detail"]
    assert len(server.requests) == 3
    done = subprocess.run(
        [sys.executable, "-m", "benchmark", "rescore", str(run.run_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0 and "1 identical, 0 differ" in done.stdout, done.stdout + done.stderr
    assert len(server.requests) == 3  # the rescore asked nobody
