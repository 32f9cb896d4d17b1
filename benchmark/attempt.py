"""What solving a case produced, kept so that it can be scored again without paying for it twice.

A suite answers a case in two steps. ``solve(case, context)`` does everything that costs: it asks
the model (one or several turns), extracts the artifact and runs it in the sandbox; what it got is
an :class:`Attempt`. ``score(case, attempt)`` turns an attempt into a
:class:`~benchmark.verdict.Verdict` with no model and no sandbox, from the case's package and the
attempt alone, so ``python -m benchmark rescore RUN_DIR`` can score a run's stored attempts with
today's scoring code in seconds.

The attempt travels in the case record (``record["attempt"]``) as plain JSON: :meth:`Attempt.as_record`
and :meth:`Attempt.from_record` are inverse, and every field holds JSON values only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.verdict import Verdict

#: ``data`` key of an attempt whose suite still scores while it solves (see :func:`scored_while_solving`).
SCORED_WHILE_SOLVING = "scored_while_solving"


@dataclass(frozen=True)
class Reply:
    """One model answer the scorer reads. ``error`` names the endpoint fault of a follow-up call
    the suite went on without (its answer is then empty)."""

    text: str
    truncated: bool = False
    error: str | None = None


@dataclass(frozen=True)
class Execution:
    """One sandbox run, as :class:`benchmark.sandbox.ExecutionResult` reports it (``outcome`` and
    ``sandbox`` by their values)."""

    outcome: str
    value: dict[str, Any] | None
    stdout: str
    stderr: str
    error: str
    wall_s: float
    sandbox: str

    @classmethod
    def of(cls, result: ExecutionResult) -> Execution:
        return cls(
            outcome=str(result.outcome),
            value=result.value,
            stdout=result.stdout,
            stderr=result.stderr,
            error=result.error,
            wall_s=result.wall_s,
            sandbox=str(result.sandbox),
        )

    def result(self) -> ExecutionResult:
        """The sandbox's result again, for scorers written against it."""
        return ExecutionResult(
            Outcome(self.outcome),
            self.value,
            self.stdout,
            self.error,
            self.wall_s,
            SandboxKind(self.sandbox),
            self.stderr,
        )


@dataclass(frozen=True)
class Attempt:
    """Everything a case's solving produced that its scoring reads.

    ``replies`` are the model's answers by interaction (``stage1``, ``stage2``, ``modify1`` …),
    ``artifacts`` what was extracted and run by name (``solve.py``, ``model.lp``), ``executions``
    the sandbox runs by name, and ``data`` the suite's own JSON facts of solving that are neither
    (what the oracle answered with, the run's scoring mode, a code modifier's passes)."""

    replies: dict[str, Reply] = field(default_factory=dict)
    artifacts: dict[str, str] = field(default_factory=dict)
    executions: dict[str, Execution] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    verdict: Verdict | None = field(default=None, compare=False)
    """The verdict a suite that has not split solving from scoring reached while solving; not
    kept in the record (the record holds it already), so such an attempt cannot be rescored."""

    def as_record(self) -> dict[str, Any]:
        return {
            "replies": {name: vars(reply) for name, reply in self.replies.items()},
            "artifacts": dict(self.artifacts),
            "executions": {name: vars(run) for name, run in self.executions.items()},
            "data": dict(self.data),
        }

    @property
    def rescorable(self) -> bool:
        """Whether ``score`` can judge this attempt again from its record alone."""
        return not self.data.get(SCORED_WHILE_SOLVING)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Attempt:
        return cls(
            replies={name: Reply(**reply) for name, reply in (record.get("replies") or {}).items()},
            artifacts=dict(record.get("artifacts") or {}),
            executions={name: Execution(**run) for name, run in (record.get("executions") or {}).items()},
            data=dict(record.get("data") or {}),
        )


def scored_while_solving(verdict: Verdict) -> Attempt:
    """The attempt of a suite whose evaluation still scores as it solves (its ``score`` gives
    :attr:`Attempt.verdict` back); ``rescore`` re-runs such a run's cases instead."""
    return Attempt(data={SCORED_WHILE_SOLVING: True}, verdict=verdict)


def verdict_reached(attempt: Attempt) -> Verdict:
    """The verdict of a :func:`scored_while_solving` attempt."""
    if attempt.verdict is None:
        raise ValueError("this attempt was scored while solving and keeps no verdict to give back")
    return attempt.verdict
