"""The official release's scoring rules, per subcategory, and the two scoring modes.

Each subcategory folder may hold an ``official.py`` module, declared as its subcategory's
``official`` (typed :class:`~benchmark.suites.mmopt.subcategories.base.OfficialRules`), that reads
the official release's ``instance_data.json`` schema and checks a returned answer as the official
scorer does. It exposes:

- ``reads(instance) -> bool``: whether ``instance`` is in the official schema of the subcategory;
- ``check(output, instance, tolerance) -> OfficialCheck``: the official feasibility verdict on the
  raw returned dict, the objective the official scorer compares, the objective recomputed from the
  decisions, and the findings only ``strict`` mode acts on;
- ``REFERENCE_KEYS``: where the verified optimum is read in ``solution_ref.json``, in order;
- ``OPTIONAL_KEYS``: instance keys the check may look up that an official instance may lack
  (the parity test fails when a check reads any other absent key).

Modes (``--scoring``): ``official`` reproduces the official verdict; ``strict`` (default) adds the
project's stricter checks, listed per subcategory in the README.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import OfficialCheck, OfficialRules, SolutionCheck


class ScoringMode(StrEnum):
    """``--scoring``: ``OFFICIAL`` reproduces the official verdict, ``STRICT`` adds the project's
    checks."""

    STRICT = "strict"
    OFFICIAL = "official"


#: The modes and the default as plain strings: they are an option's choices and default, and they
#: are kept in attempts and run info, which cross to the xdist controller (builtin types only).
SCORING_MODES: tuple[str, ...] = tuple(mode.value for mode in ScoringMode)
DEFAULT_SCORING: str = ScoringMode.STRICT.value


def make_check(
    problems: list[str],
    reported: float | None,
    computed: float | None,
    strict_problems: list[str] | None = None,
) -> OfficialCheck:
    """The usual ending of an official check: feasible when nothing is wrong, the reported
    objective standing for the answer when there is one."""
    return OfficialCheck(
        feasible=not problems,
        objective=reported if reported is not None else computed,
        computed=computed,
        problems=tuple(problems[:10]),
        strict_problems=tuple((strict_problems or [])[:10]),
    )


def infeasible(problem: str) -> OfficialCheck:
    return OfficialCheck(feasible=False, objective=None, computed=None, problems=(problem,))


def official_rules(subcategory: str) -> OfficialRules | None:
    """The rules the subcategory declares, or None when it declares none (or does not exist).

    Its folder is imported at the first call for that subcategory, alone: a worker's first
    scored case does not pay for every subcategory's imports."""
    found = get_subcategory(subcategory)
    return None if found is None else found.official


def official_schema(subcategory: str, instance: Mapping[str, Any]) -> OfficialRules | None:
    """The rules that score ``instance``: the subcategory's choice
    (:meth:`~benchmark.suites.mmopt.generation.modular.ModularSubcategory.rules_for`), None when
    its validator does."""
    found = get_subcategory(subcategory)
    return None if found is None else found.rules_for(instance)


def solution_check(
    rules: OfficialRules, instance: Mapping[str, Any], solution: Mapping[str, Any], tolerance: float
) -> SolutionCheck:
    """The strict verdict of the official rules as a validator's :class:`SolutionCheck`: the
    official problems and the strict additions, with the objective recomputed from the decisions.

    A subcategory whose packages use the official schema validates through this one path, at
    generation (the reference must pass it) and at scoring."""
    check: OfficialCheck = rules.check(solution, instance, tolerance)
    problems = check.problems + check.strict_problems
    return SolutionCheck(feasible=not problems, objective=check.computed, problems=problems)
