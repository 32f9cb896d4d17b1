"""The subcategory plug-in interface of the MM-OptBench suite.

A subcategory (``maximum_flow``, ``minimum_cost_flow`` …) is one folder under
``benchmark/suites/mmopt/subcategories/`` whose ``__init__.py`` exposes ``SUBCATEGORY``, an object
satisfying :class:`Subcategory`. The folder holds everything about that problem type: the instance
generator, the visual renderer, the text/model/solver templates (``templates.py``, which fills the
files of the folder's ``resources/``) and the solution validator used in scoring. Nothing outside
the folder needs to change to add one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
DIFFICULTY_LETTER: dict[str, str] = {"easy": "e", "medium": "m", "hard": "h"}


@dataclass(frozen=True)
class SolutionCheck:
    """The verdict of a subcategory validator on returned decisions.

    ``objective`` is recomputed from the decisions alone (never copied from the reported value), so
    the scorer can compare it with both the verified optimum and what the code claimed.
    ``problems`` are short human-readable reasons (``"arc 3_5: flow 14 exceeds capacity 12"``).
    """

    feasible: bool
    objective: float | None
    problems: tuple[str, ...] = ()


@runtime_checkable
class SolutionValidator(Protocol):
    def check_solution(self, instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
        """Check ``solution`` (the dict returned by ``solve()``, keys already lifted out of a nested
        ``solution`` dict) against ``instance`` (the package's ``instance_data.json``)."""
        ...


@runtime_checkable
class Subcategory(SolutionValidator, Protocol):
    family: str  # e.g. "network_optimization"
    name: str  # e.g. "maximum_flow" (the official release's folder name)
    id_prefix: str  # e.g. "mf" → instance ids mf_e_001, mf_m_001, mf_h_001
