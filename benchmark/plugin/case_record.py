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
from benchmark.categories import CaseOutcome
from benchmark.messages import Message, ToolCall
from benchmark.plugin.configuration import BenchRun
from benchmark.prompt_size import implausible_prompt_tokens
from benchmark.schema import CaseRecord
from benchmark.verdict import Verdict

#: Characters of a harness error's traceback kept in its record (the end, where the cause is).
TRACEBACK_TAIL_CHARS = 4000
#: Characters of each output stream (stdout, stderr) of the generated code kept in its record.
OUTPUT_TAIL_CHARS = 8000
#: Characters of each sent message's text kept in its record's transcript (head and tail).
SENT_TEXT_CHARS = 20_000


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
        "outcome": CaseOutcome.PASSED if verdict.passed else CaseOutcome.FAILED,
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


def end_reason(record: CaseRecord) -> str:
    """Why the case's model side ended, for the report: the suite's own ``end_reason`` (an agent
    episode's turn or time limit, say) when its ``extra`` states one at the top or one level down,
    else what the last model call's finish says, or the fault that stopped the case first."""
    extra = record.extra
    stated = [extra.get("end_reason")]
    stated += [value.get("end_reason") for value in extra.values() if isinstance(value, dict)]
    reason = next((str(value) for value in stated if isinstance(value, str) and value), None)
    if reason is not None:
        return reason
    if record.outcome in (CaseOutcome.ERROR, CaseOutcome.SKIPPED) and not record.turns:
        return f"no model answer: {record.category}"
    if not record.turns:
        return "no model call"
    finish = record.turns[-1].finish_reason
    return "truncated at the token limit" if finish == "length" else f"model finished ({finish})"


def tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"[… {len(text) - limit} characters cut]\n{text[-limit:]}"


def turns(calls: CallLog) -> list[dict[str, Any]]:
    """Every model call of the case, in order: the request key, what was sent that the previous
    call had not sent (see :class:`benchmark.schema.Turn`), the raw response and its tool calls."""
    out = []
    previous: tuple[Message, ...] = ()
    for index, (key, completion) in enumerate(calls.turns):
        sent = calls.requests[index].messages if index < len(calls.requests) else ()
        shared = _shared_prefix(previous, sent)
        previous = sent
        out.append(
            {
                "key": key,
                "response": completion.text,
                "finish_reason": completion.finish_reason,
                "usage": dataclasses.asdict(completion.usage),
                "model_id": completion.model_id,
                "cache_hit": completion.cache_hit,
                "context_messages": shared,
                "messages": [sent_message(message) for message in sent[shared:]],
                "tool_calls": [_tool_call(call) for call in completion.tool_calls],
                "latency_s": round(completion.latency_s, 4),
                "cost_usd": completion.cost_usd,
            }
        )
        warning = implausible_prompt_tokens(completion.usage.input_tokens, sent)
        if warning is not None:
            out[-1]["prompt_warning"] = warning
    return out


def _shared_prefix(previous: tuple[Message, ...], sent: tuple[Message, ...]) -> int:
    count = 0
    for before, now in zip(previous, sent, strict=False):
        if before != now:
            break
        count += 1
    return count


def sent_message(message: Message) -> dict[str, Any]:
    """A message as the record keeps it: text clipped to :data:`SENT_TEXT_CHARS` (head and tail),
    images by name, hash and path (the report draws thumbnails from the path while it exists)."""
    text = message.plain_text()
    if len(text) > SENT_TEXT_CHARS:
        half = SENT_TEXT_CHARS // 2
        text = f"{text[:half]}\n[… {len(text) - SENT_TEXT_CHARS} characters cut]\n{text[-half:]}"
    return {
        "role": message.role,
        "text": text,
        "images": [{"name": i.name, "sha256": i.sha256, "path": str(i.path)} for i in message.images()],
        "tool_calls": [_tool_call(call) for call in message.tool_calls],
        "tool_call_id": message.tool_call_id,
    }


def _tool_call(call: ToolCall) -> dict[str, str]:
    return {"id": call.call_id, "name": call.name, "arguments": tail(call.arguments, OUTPUT_TAIL_CHARS)}
