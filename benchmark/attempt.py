"""What solving a case produced, kept so that it can be scored again without paying for it twice.

A suite answers a case in two steps. ``solve(case, context)`` does everything that costs: it asks
the model (one or several turns), extracts the artifact and runs it in the sandbox; what it got is
an :class:`Attempt`. ``score(case, attempt)`` turns an attempt into a
:class:`~benchmark.verdict.Verdict` with no model and no sandbox, from the case's package and the
attempt alone, so ``python -m benchmark rescore RUN_DIR`` can score a run's stored attempts with
today's scoring code in seconds.

The attempt travels in the case record (``CaseRecord.attempt``) as plain JSON: :meth:`Attempt.as_record`
and :meth:`Attempt.from_record` are inverse, and every field holds JSON values only. A reply whose
text is the response of one of the record's model calls (``turns``) is kept as that call's number,
not a second copy: a reply can be megabytes, and the record already holds it once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.schema import AttemptRecord, ReplyRecord


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

    def as_record(self, responses: Sequence[str] = ()) -> dict[str, Any]:
        """The attempt as JSON; a reply whose text is one of ``responses`` (the record's turns, in
        order) is written as ``{"turn": index}`` instead of its text."""
        replies: dict[str, dict[str, Any]] = {}
        for name, reply in self.replies.items():
            fields = dict(vars(reply))
            if reply.text and reply.text in responses:
                del fields["text"]
                fields["turn"] = responses.index(reply.text)
            replies[name] = fields
        return {
            "replies": replies,
            "artifacts": dict(self.artifacts),
            "executions": {name: vars(run) for name, run in self.executions.items()},
            "data": dict(self.data),
        }

    @classmethod
    def from_record(cls, stored: AttemptRecord | Mapping[str, Any], responses: Sequence[str] = ()) -> Attempt:
        """The attempt :meth:`as_record` wrote (as read back in its record, or as its JSON), with
        the same ``responses``."""
        if not isinstance(stored, AttemptRecord):
            stored = AttemptRecord.model_validate(stored)

        def reply(fields: ReplyRecord) -> Reply:
            text = responses[fields.turn] if fields.turn is not None else fields.text or ""
            return Reply(text=text, truncated=fields.truncated, error=fields.error)

        return cls(
            replies={name: reply(fields) for name, fields in stored.replies.items()},
            artifacts=dict(stored.artifacts),
            executions={name: Execution(**run.model_dump()) for name, run in stored.executions.items()},
            data=dict(stored.data),
        )
