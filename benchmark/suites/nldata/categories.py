"""NLData2Opt's own failure categories and the order its reports list every category in.

``StrEnum`` members, so a record carries the strings it carried before (``"missing_data"``,
``"wrong_objective"``) and a category read back from a record compares equal to its member. The
suite's ``failure_categories`` are :data:`FAILURE_CATEGORIES`: the execution categories every suite
shares, interleaved with these in pipeline order (the reply, then MathProg's translation, then the
solve, then the objective).
"""

from __future__ import annotations

from enum import StrEnum

from benchmark.categories import ExecutionCategory


class NLDataCategory(StrEnum):
    """What went wrong with an AMPL model and data pair after it was read from the reply.

    ``UNSUPPORTED_SYNTAX`` is AMPL that MathProg cannot run: not the model's error, so reports keep
    it apart from the headline EBC. ``MODEL_DATA_COUPLING``: the model is right on the shown data
    but not on the held-out data written in its own names (numbers hard-coded in the model)."""

    UNSUPPORTED_SYNTAX = "unsupported_syntax"
    UNDEFINED_ENTITY = "undefined_entity"
    UNDECLARED_DATA_PARAMETER = "undeclared_data_parameter"
    MISSING_DATA = "missing_data"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    WRONG_OBJECTIVE = "wrong_objective"
    MODEL_DATA_COUPLING = "model_data_coupling"


#: Every category a failed NLData2Opt verdict may carry, in pipeline order.
FAILURE_CATEGORIES: tuple[str, ...] = (
    ExecutionCategory.RESPONSE_CONTRACT,
    NLDataCategory.UNSUPPORTED_SYNTAX,
    ExecutionCategory.SYNTAX,
    NLDataCategory.UNDEFINED_ENTITY,
    NLDataCategory.UNDECLARED_DATA_PARAMETER,
    NLDataCategory.MISSING_DATA,
    ExecutionCategory.RUNTIME,
    ExecutionCategory.TIMEOUT,
    NLDataCategory.INFEASIBLE,
    NLDataCategory.UNBOUNDED,
    NLDataCategory.WRONG_OBJECTIVE,
    NLDataCategory.MODEL_DATA_COUPLING,
)
