"""Mamo's own scoring categories, after the execution ones every suite shares: the answer ran and
its number is not the question's (an ODE value, or an optimization model's objective, which is
also the category of a model the solver finds infeasible or unbounded). ``StrEnum`` members, so
records carry the strings they carried before."""

from __future__ import annotations

from enum import StrEnum


class MamoCategory(StrEnum):
    WRONG_ODE_VALUE = "wrong_ode_value"
    WRONG_OBJECTIVE = "wrong_objective"
