"""How a case record is classified, as names rather than string literals: its outcome and the
failure categories every suite shares.

They are ``StrEnum`` members, so a record, a report and a JSON file carry exactly the strings they
carried before (``"failed"``, ``"syntax"``, ``"sandbox_error"``), and a value read back from a
record compares equal to its member. A suite's own scoring categories (``wrong_objective``,
``infeasible``, ...) are declared by the suite in ``failure_categories`` after the execution ones.

A leaf module: it imports nothing of the project, so the adapters may use it as a contract.
"""

from __future__ import annotations

from enum import StrEnum


class CaseOutcome(StrEnum):
    """A record's ``outcome``: scored (``PASSED``, ``FAILED``), or not scored (``ERROR``, an
    infrastructure fault; ``SKIPPED``, not evaluable under its setting)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


class ExecutionCategory(StrEnum):
    """Model-failure classes of any answer that is code run in the sandbox, in pipeline order (the
    first six of MM-OptBench's Table 9)."""

    RESPONSE_CONTRACT = "response_contract"
    SYNTAX = "syntax"
    DEPENDENCY = "dependency"
    RUNTIME = "runtime"
    TIMEOUT = "timeout"
    OUTPUT_FORMAT = "output_format"


class InfrastructureCategory(StrEnum):
    """Faults that are not the model's: reported apart, excluded from metrics, re-run by
    ``--resume``. ``HARNESS_ERROR`` is any exception escaping a suite's evaluation (a bug in a
    validator, parser or scorer) and a case whose xdist worker died under it."""

    API_ERROR = "api_error"
    SANDBOX_ERROR = "sandbox_error"
    DATASET_ERROR = "dataset_error"
    HARNESS_ERROR = "harness_error"


class SkipCategory(StrEnum):
    """Why a case was recorded as ``skipped`` rather than scored: the oracle has no answer for it,
    its setting cannot judge it (``NotEvaluable``), or the model cannot take its input (images to a
    text-only model)."""

    ORACLE_UNAVAILABLE = "oracle_unavailable"
    NOT_EVALUABLE = "not_evaluable"
    UNSUPPORTED_INPUT = "unsupported_input"
