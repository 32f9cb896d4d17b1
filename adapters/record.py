"""``--record FILE``: the run's responses as a replay file.

The response cache reproduces a run only on the machine that holds it and only for the exact same
requests. A replay file is portable and keyed by case: ``--model=replay:FILE`` re-scores the run
anywhere, with any later harness version, without an endpoint or a key. The lines have the replay
adapter's format (``{"case", "response", "finish_reason", "usage"}``), one per model call, keyed
by the call's own request key (``.../stage1/s0``, ``.../stage2/s0``, a modifier pass …), so a
recording replays as is and every turn of a multi-turn setting comes back.

Workers append one line per case as it finishes (a locked, single-write append, as for records);
at the end of the session the controller rewrites the file with one line per case (the newest, so a
case re-run by ``--resume`` keeps its latest answer), sorted by case key, so two recordings of the
same run are byte-identical. Lines are written by :func:`benchmark.files.dumps_line` (a response
holding U+2028, U+0085 or a lone surrogate stays one line and comes back exactly) and read at
``"\n"`` only. :meth:`ReplayRecorder.finalize` counts the cases that made more than
one call. A request key met twice in one case (the same request asked again) keeps its first
answer, which is the one the replay adapter would give for both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from adapters.base import Completion, CompletionRequest, ModelAdapter
from benchmark.files import append_lines, dumps_line, split_lines, write_atomically
from benchmark.schema import ReplayLine

__all__ = ["CallLog", "RecordingSummary", "ReplayRecorder"]


@dataclass
class CallLog:
    """Wraps the run's adapter for one case and keeps every turn (request key, completion), in order,
    and beside it the request as sent (``requests[i]`` asked ``turns[i]``), for the record's transcript."""

    inner: ModelAdapter
    turns: list[tuple[str, Completion]] = field(default_factory=list)
    requests: list[CompletionRequest] = field(default_factory=list)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.inner.name

    def describe(self) -> dict[str, object]:
        return self.inner.describe()

    def complete(self, request: CompletionRequest) -> Completion:
        completion = self.inner.complete(request)
        self.turns.append((request.case_key, completion))
        self.requests.append(request)
        return completion


@dataclass(frozen=True)
class RecordingSummary:
    cases: int
    multi_call_cases: int


class ReplayRecorder:
    def __init__(self, path: Path) -> None:
        self.path = path

    def start(self, *, keep: bool) -> None:
        """Begin a recording: empty the file, or keep its lines when resuming a run."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not keep or not self.path.exists():
            self.path.write_text("", encoding="utf-8")

    def append(self, case_key: str, turns: Sequence[tuple[str, Completion]]) -> None:
        lines, seen = [], set()
        for request_key, completion in turns:
            if request_key in seen:
                continue
            seen.add(request_key)
            lines.append(
                {
                    "case": request_key,
                    "of_case": case_key,
                    "response": completion.text,
                    "finish_reason": completion.finish_reason,
                    "usage": asdict(completion.usage),
                    "model_id": completion.model_id,
                    "calls": len(turns),
                }
            )
        if not lines:
            return
        for line in lines:  # what is written must replay
            ReplayLine.model_validate(line)
        append_lines(self.path, "".join(dumps_line(line, sort_keys=True) + "\n" for line in lines))

    def finalize(self) -> RecordingSummary:
        """Rewrite the file with the newest line per case, sorted by case key (atomically)."""
        latest: dict[str, dict[str, object]] = {}
        if self.path.exists():
            for raw in split_lines(self.path.read_text(encoding="utf-8")):
                try:
                    line = json.loads(raw)
                except (json.JSONDecodeError, RecursionError):
                    continue  # a line torn by a killed worker: that case is simply not recorded
                if isinstance(line, dict) and isinstance(line.get("case"), str):
                    latest[line["case"]] = line
        body = "".join(dumps_line(latest[case], sort_keys=True) + "\n" for case in sorted(latest))
        write_atomically(self.path, body)
        calls = {
            str(line.get("of_case", case)): int(str(line.get("calls", 1))) for case, line in latest.items()
        }
        return RecordingSummary(cases=len(calls), multi_call_cases=sum(1 for n in calls.values() if n > 1))
