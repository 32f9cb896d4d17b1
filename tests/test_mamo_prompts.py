"""The Mamo prompts: k worked examples before the question, the contract stated, and a modifier
prompt that carries the artifact and the error but nothing of the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.suites.mamo.dataset import MamoCase
from benchmark.suites.mamo.examples import LP_EXAMPLES, ODE_EXAMPLES
from benchmark.suites.mamo.prompts import MAX_SHOTS, modifier_messages, task_messages

QUESTION = "A kettle of 97 degree water cools in a 20 degree room; what is its temperature at noon?"


def _case(category: str, kind: str) -> MamoCase:
    return MamoCase(Path("x.jsonl"), 1, "1", QUESTION, "1.00", category, kind, None, {})


@pytest.mark.parametrize("shots", range(MAX_SHOTS + 1))
@pytest.mark.parametrize(
    ("category", "kind", "examples", "fence"),
    [
        ("ordinary_differential_equation", "first_order_equation", ODE_EXAMPLES, "```python"),
        ("optimization", "easy_lp", LP_EXAMPLES, "```lp"),
    ],
)
def test_the_task_prompt_holds_k_examples_then_the_question(shots, category, kind, examples, fence) -> None:
    (message,) = task_messages(_case(category, kind), shots)
    text = message.plain_text()
    assert text.count("Question:\n") == shots + 1 and text.count(fence) == shots + 1
    assert all(e.question in text for e in examples[:shots])
    assert not any(e.question in text for e in examples[shots:])
    assert text.rstrip().endswith(f"Question:\n{QUESTION}\n\nAnswer:")


def test_an_impossible_number_of_shots_is_refused() -> None:
    with pytest.raises(ValueError, match="shots"):
        task_messages(_case("optimization", "easy_lp"), MAX_SHOTS + 1)


@pytest.mark.parametrize("ode", [True, False])
def test_the_modifier_prompt_has_the_artifact_and_error_only(ode: bool) -> None:
    (message,) = modifier_messages("print(1 +)", "SyntaxError: invalid syntax (line 1)", ode=ode)
    text = message.plain_text()
    assert "print(1 +)" in text and "SyntaxError: invalid syntax (line 1)" in text
    assert "kettle" not in text and "Question" not in text
