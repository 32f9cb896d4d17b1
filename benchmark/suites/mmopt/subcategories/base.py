"""The subcategory plug-in interface of the MM-OptBench suite.

A subcategory (``maximum_flow``, ``minimum_cost_flow`` …) is one folder under
``benchmark/suites/mmopt/subcategories/`` whose ``__init__.py`` exposes ``SUBCATEGORY``, an object
satisfying :class:`Subcategory`. The folder holds everything about that problem type: the instance
generator, the visual renderer, the text/model/solver templates (``templates.py``, which fills the
files of the folder's ``resources/``) and the solution validator used in scoring. Nothing outside
the folder needs to change to add one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


@dataclass(frozen=True)
class OfficialCheck:
    """One answer checked under the official rules.

    ``objective`` is what the official scorer compares with the optimum (the reported objective
    when one is readable, else the recomputed one); ``computed`` is recomputed from the decisions
    alone. ``problems`` make the answer infeasible in both modes; ``strict_problems`` are the
    project's deliberate additions and count only in ``strict`` mode."""

    feasible: bool
    objective: float | None
    computed: float | None
    problems: tuple[str, ...] = ()
    strict_problems: tuple[str, ...] = ()


#: How ``--scoring=official`` narrows an answer to the fields the release's scorer reads (workforce
#: planning: one roster source, no reported counts); a subcategory without one reads it whole.
OfficialAnswer = Callable[[Mapping[str, Any]], Mapping[str, Any]]
#: What the release's scorer rejects in an answer the validator accepts (``--scoring=official``
#: only); a subcategory without one adds nothing.
OfficialProblems = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


class OfficialRules(Protocol):
    """The official release's scoring rules on its ``instance_data.json`` schema
    (:mod:`benchmark.suites.mmopt.official`).

    ``REFERENCE_KEYS``: where the verified optimum is read in ``solution_ref.json``, in order;
    ``OPTIONAL_KEYS``: instance keys the check may look up that an official instance may lack."""

    REFERENCE_KEYS: tuple[str, ...]
    OPTIONAL_KEYS: frozenset[str]

    def reads(self, instance: Mapping[str, Any], /) -> bool:
        """Whether ``instance`` is in this schema (the scorer's choice between the rules and the
        validator, :meth:`ModularSubcategory.rules_for`)."""
        ...

    def check(self, output: Any, instance: Mapping[str, Any], tolerance: float, /) -> OfficialCheck: ...


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

    # The optional hooks, each None where the subcategory has none (the caller's default applies).
    @property
    def official(self) -> OfficialRules | None:
        """The release's scoring rules (:mod:`benchmark.suites.mmopt.official`)."""
        ...

    @property
    def official_answer(self) -> OfficialAnswer | None:
        """The answer narrowed to what the release's scorer reads (default: all of it)."""
        ...

    @property
    def official_problems(self) -> OfficialProblems | None:
        """What the release's scorer also rejects (default: nothing more)."""
        ...

    def rules_for(self, instance: Mapping[str, Any]) -> OfficialRules | None:
        """The rules that score ``instance`` when it is in their schema, else None (the validator)."""
        ...


def protocol_members(protocol: type) -> tuple[str, ...]:
    """The public names ``protocol`` declares (methods and attributes), its protocol bases' included."""
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass is protocol or (getattr(klass, "_is_protocol", False) and klass is not Protocol):
            names |= {n for n in vars(klass) if not n.startswith("_")}
            names |= {n for n in getattr(klass, "__annotations__", {}) if not n.startswith("_")}
    return tuple(sorted(names))


def missing_members(part: object, protocol: type) -> list[str]:
    """The members of ``protocol`` that ``part`` lacks, or that it has but cannot call where the
    protocol declares a method: what a registration must refuse, named."""
    missing = []
    for name in protocol_members(protocol):
        declared = getattr(protocol, name, None)
        if not hasattr(part, name) or (callable(declared) and not callable(getattr(part, name))):
            missing.append(name)
    return missing
