"""What every LP/MILP word problem is: a scenario's text, the model it describes, and the checks
that the model is not trivially solved by a naive reading.

Reusable outside Mamo (the NLData2Opt suite builds on it): a construct is any function
``random.Random -> OptProblem``; :func:`benchmark.suites.mamo.generation.linear_model.solve` certifies
the model's optimum with two solvers, and ``naive`` lists the answers a plausible but wrong model would
give (an LP relaxation, a model without subtour elimination, a single capacity), each of which the
generator requires to differ from the true optimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.suites.mamo.generation.linear_model import LinearModel
from benchmark.suites.mamo.generation.text import num


@dataclass
class OptProblem:
    construct: str
    domain: str
    question: str
    model: LinearModel
    parameters: dict[str, Any] = field(default_factory=dict)
    #: name → a naive model (solved) or a naive answer (a number) that must differ from the optimum.
    naive: dict[str, LinearModel | float] = field(default_factory=dict)
    #: what the question needs beyond transcription (``big_m``, ``subtour_elimination``, ...).
    needs: tuple[str, ...] = ()


def listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def capital(name: str) -> str:
    """``"depot A"`` → ``"Depot A"``: only the first letter changes (``str.capitalize`` lowers the rest)."""
    return name[:1].upper() + name[1:]


def table(row_names: list[str], column_names: list[str], values: Sequence[Sequence[float]]) -> str:
    return "\n".join(
        f"- {row}: " + ", ".join(f"{c} = {num(v)}" for c, v in zip(column_names, vals, strict=True))
        for row, vals in zip(row_names, values, strict=True)
    )
