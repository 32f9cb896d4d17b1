"""Only the model's own text answers a Mamo question: a reply that echoes the prompt, whose worked
examples sit in the very fences the contract asks for, must not be scored as the first example's
code (a base model's echo once "answered" two ODE questions with an example's 56.46)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.suites.mamo import dataset
from benchmark.suites.mamo.examples import LP_EXAMPLES, ODE_EXAMPLES
from benchmark.suites.mamo.prompts import task_messages
from benchmark.suites.mamo.response import extract
from tests.conftest import REPO, run_bench

MAMO = REPO / "fixtures" / "mamo"
OWN_CODE = "```python\nprint(3.25)\n```"
OWN_LP = "```lp\nMaximize\n obj: x\nSubject To\n c1: x <= 4\nEnd\n```"


def _first(kind: str) -> dataset.MamoCase:
    for ref in dataset.discover(MAMO):
        case = dataset.load_case(ref)
        if case.is_ode == (kind == "ode"):
            return case
    raise AssertionError(f"no shipped {kind} case in {MAMO}")


def _prompt(case: dataset.MamoCase) -> str:
    return "\n".join(m.plain_text() for m in task_messages(case, 3))


@pytest.mark.parametrize(
    ("kind", "own", "examples"), [("ode", OWN_CODE, ODE_EXAMPLES), ("lp", OWN_LP, LP_EXAMPLES)]
)
def test_an_echoed_prompt_is_not_an_answer_but_what_follows_it_is(kind, own, examples) -> None:
    case = _first(kind)
    prompt = _prompt(case)
    ode = kind == "ode"
    echoed = extract(prompt, ode=ode, prompt=prompt)
    assert echoed.artifact is None and "only repeats the prompt" in echoed.violation
    without_the_prompt = extract(prompt, ode=ode)  # what a reply was taken for before
    assert without_the_prompt.artifact == examples[0].answer.strip() + "\n"
    continued = extract(f"{prompt}\n{own}\n", ode=ode, prompt=prompt)
    assert (
        continued.artifact is not None
        and continued.artifact.strip() == own.split("\n", 1)[1].rsplit("\n", 1)[0]
    )


def test_a_copied_example_block_is_skipped_for_the_models_own_block() -> None:
    case = _first("ode")
    prompt = _prompt(case)
    example = f"```python\n{ODE_EXAMPLES[1].answer}\n```"
    copied = extract(f"Here is how:\n{example}\n", ode=True, prompt=prompt)
    assert copied.artifact is None and "only repeats the prompt" in copied.violation
    both = extract(f"{example}\nMine:\n{OWN_CODE}\n", ode=True, prompt=prompt)
    assert both.artifact == "print(3.25)\n"
    honest = extract(OWN_CODE, ode=True, prompt=prompt)
    assert honest.artifact == "print(3.25)\n"


@pytest.mark.slow
def test_a_run_scores_an_echo_as_a_contract_breach_with_no_valid_code(tmp_path: Path) -> None:
    refs = [r for r in dataset.discover(MAMO) if dataset.load_case(r).is_ode]
    ref = refs[0]
    key = "/".join((ref.suite, *ref.path, "fewshot", "s0"))  # mamo/first_order_equation/1/fewshot/s0
    replay = tmp_path / "echo.jsonl"
    replay.write_text(json.dumps({"case": key, "response": _prompt(dataset.load_case(ref))}) + "\n")
    select = "{}/{}-fewshot".format(*key.split("/")[1:3])
    run = run_bench(tmp_path / "run", "--suite=mamo", f"--model=replay:{replay}", "-k", select, "-n", "0")
    (record,) = run.records
    assert (record["outcome"], record["category"]) == ("failed", "response_contract"), run.output[-3000:]
    assert "only repeats the prompt" in record["detail"]
    assert run.summary["metrics"]["valid_code_rate"] == 0.0
