"""The code-modifier pass (paper Sec. 4.3, App. D): repair the format, never the model.

When an artifact does not execute, a modifier (the model itself, or another ``--modifier-model``)
gets only the artifact and its error message (see :func:`prompts.modifier_messages`) and returns
a fixed artifact, which is run again. One pass by default, as in the paper (App. D found one pass
fixes most format errors); ``--modifier-passes`` allows more, each pass starting from the previous
pass's artifact and error. An infeasible LP or a wrong number is not a format error and is never
sent to the modifier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from benchmark.categories import ExecutionCategory
from benchmark.messages import Message
from benchmark.suites.mamo.execution import NOT_EXECUTED, Run
from benchmark.suites.mamo.prompts import fenced, modifier_messages
from benchmark.suites.mamo.response import extract

#: Sends one modifier request: (messages, pass number, the oracle's answer) → reply text.
Ask = Callable[[list[Message], int, Callable[[], str]], str]


@dataclass
class ModifierOutcome:
    """The last artifact and its execution, and what each pass sent and got."""

    artifact: str
    attempt: Run
    passes: list[dict[str, Any]] = field(default_factory=list)


def modify(
    artifact: str,
    attempt: Run,
    *,
    ode: bool,
    passes: int,
    ask: Ask,
    execute: Callable[[str], Run],
) -> ModifierOutcome:
    """Run up to ``passes`` modifier passes while the artifact fails to execute.

    The oracle, asked to modify, answers with the artifact unchanged: it knows the reference
    answer, and handing that over would make the modifier re-model the problem.
    """
    outcome = ModifierOutcome(artifact, attempt)
    for number in range(1, passes + 1):
        if outcome.attempt.category not in NOT_EXECUTED:
            break
        messages = modifier_messages(outcome.artifact, outcome.attempt.error, ode=ode)
        reply = ask(messages, number, partial(fenced, outcome.artifact, ode=ode))
        extracted = extract(reply, ode=ode)
        step: dict[str, Any] = {"pass": number, "sent": [m.plain_text() for m in messages]}
        if extracted.artifact is None:
            step["result"] = {"category": ExecutionCategory.RESPONSE_CONTRACT, "error": extracted.violation}
            outcome.passes.append(step)
            continue
        outcome.artifact = extracted.artifact
        outcome.attempt = execute(extracted.artifact)
        step["result"] = outcome.attempt.as_record()
        outcome.passes.append(step)
    return outcome
