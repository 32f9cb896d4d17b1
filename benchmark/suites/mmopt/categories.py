"""MM-OptBench's own scoring categories, after the execution ones every suite shares (the last two
classes of App. F.3, Table 9): the returned decisions break the instance, or the objective (for a
decision instance, the status) is not the verified one.

``StrEnum`` members, so records carry the strings they carried before and a category read back
from a record compares equal to its member.
"""

from __future__ import annotations

from enum import StrEnum


class MmoptCategory(StrEnum):
    INFEASIBLE_SOLUTION = "infeasible_solution"
    WRONG_OBJECTIVE = "wrong_objective"
