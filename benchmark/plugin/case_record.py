"""The fields of a case's record in ``results.jsonl``, built from the case, its verdict and its
model calls (the schema is :class:`benchmark.schema.CaseRecord`).

Two writers share them: a worker evaluating a case, and the xdist controller recording a case whose
worker died, so both records identify the case, harness and dataset the same way.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from adapters.record import CallLog
from benchmark import HARNESS_VERSION
from benchmark.cases import Case
from benchmark.plugin.configuration import BenchRun
from benchmark.verdict import Verdict

#: Characters of a harness error's traceback kept in its record (the end, where the cause is).
TRACEBACK_TAIL_CHARS = 4000
#: Characters of each output stream (stdout, stderr) of the generated code kept in its record.
OUTPUT_TAIL_CHARS = 8000


def base_record(case: Case, run: BenchRun, dataset: dict[str, str], sandbox: str | None) -> dict[str, Any]:
    """What every record of the case says, whatever became of it."""
    return {
        "suite": case.suite,
        "case": case.key,
        "test_id": case.test_id,
        **{label: case.instance.labels.get(label) for label in run.suite.labels},
        "setting": case.setting,
        "sample": case.sample,
        "temperature": case.temperature,
        "model": run.options.model,
        "harness_version": HARNESS_VERSION,
        "dataset_version": dataset.get("version"),
        "dataset_sha256": dataset.get("sha256"),
        "sandbox": sandbox,
    }


def verdict_fields(verdict: Verdict) -> dict[str, Any]:
    return {
        "outcome": "passed" if verdict.passed else "failed",
        "passed": verdict.passed,
        "category": verdict.category,
        "detail": verdict.detail,
        "valid_code": verdict.valid_code,
        "expected_objective": verdict.expected_objective,
        "returned_objective": verdict.returned_objective,
        "recomputed_objective": verdict.recomputed_objective,
        "scores": verdict.scores,
        "execution": verdict.execution,
        "execution_time_s": (verdict.execution or {}).get("wall_s"),
        "extra": verdict.extra,
        "artifact": verdict.artifact,
        "output": {name: tail(text, OUTPUT_TAIL_CHARS) for name, text in verdict.output.items()},
    }


def tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"[… {len(text) - limit} characters cut]\n{text[-limit:]}"


def turns(calls: CallLog) -> list[dict[str, Any]]:
    """Every model call of the case, in order: the request key and the raw response."""
    return [
        {
            "key": key,
            "response": completion.text,
            "finish_reason": completion.finish_reason,
            "usage": dataclasses.asdict(completion.usage),
            "model_id": completion.model_id,
            "cache_hit": completion.cache_hit,
        }
        for key, completion in calls.turns
    ]
