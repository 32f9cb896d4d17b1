"""Few-shot examples for the Mamo prompts, written for this project (not taken from the paper).

Each example is a question in the style of the benchmark and the answer the contract asks for:
a Python program that prints only y(t0), or a CPLEX-format ``.lp`` file. They are kept apart from
the generated cases (different scenarios and numbers) so that no example gives away a test answer.
The examples themselves are in ``resources/examples.toml``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from benchmark.resources import resource_text


@dataclass(frozen=True)
class Example:
    question: str
    answer: str


def _examples(kind: str) -> tuple[Example, ...]:
    """The ``kind`` ("ode" or "lp") examples of ``resources/examples.toml``, in file order."""
    table = tomllib.loads(resource_text(__name__, "examples.toml"))
    return tuple(Example(entry["question"], entry["answer"]) for entry in table[kind])


ODE_EXAMPLES: tuple[Example, ...] = _examples("ode")
LP_EXAMPLES: tuple[Example, ...] = _examples("lp")
