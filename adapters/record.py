"""``--record FILE``: the run's responses as a replay file.

The response cache reproduces a run only on the machine that holds it and only for the exact same
requests. A replay file is portable and keyed by case: ``--model=replay:FILE`` re-scores the run
anywhere, with any later harness version, without an endpoint or a key. The lines have the replay
adapter's format (``{"case", "response", "finish_reason", "usage"}``), so a recording replays as is.

Workers append one line per case as it finishes (a locked, single-write append, as for records);
at the end of the session the controller rewrites the file with one line per case (the newest, so a
case re-run by ``--resume`` keeps its latest answer), sorted by case key, so two recordings of the
same run are byte-identical. A replay file holds one response per case: a suite that calls the
model more than once per case is recorded with its first call, and :meth:`ReplayRecorder.finalize`
counts such cases so the run can say its recording is partial.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from adapters.base import Completion, CompletionRequest, ModelAdapter

__all__ = ["CallLog", "RecordingSummary", "ReplayRecorder"]


@dataclass
class CallLog:
    """Wraps the run's adapter for one case and keeps every completion it returned, in order."""

    inner: ModelAdapter
    completions: list[Completion] = field(default_factory=list)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.inner.name

    def describe(self) -> dict[str, object]:
        return self.inner.describe()

    def complete(self, request: CompletionRequest) -> Completion:
        completion = self.inner.complete(request)
        self.completions.append(completion)
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

    def append(self, case_key: str, completions: Sequence[Completion]) -> None:
        if not completions:
            return
        first = completions[0]
        line = {
            "case": case_key,
            "response": first.text,
            "finish_reason": first.finish_reason,
            "usage": asdict(first.usage),
            "model_id": first.model_id,
            "calls": len(completions),
        }
        data = (json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, data)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def finalize(self) -> RecordingSummary:
        """Rewrite the file with the newest line per case, sorted by case key (atomically)."""
        latest: dict[str, dict[str, object]] = {}
        if self.path.exists():
            for raw in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # a line torn by a killed worker: that case is simply not recorded
                if isinstance(line, dict) and isinstance(line.get("case"), str):
                    latest[line["case"]] = line
        body = "".join(
            json.dumps(latest[case], sort_keys=True, ensure_ascii=False) + "\n" for case in sorted(latest)
        )
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        os.replace(tmp, self.path)
        multi = sum(1 for line in latest.values() if int(str(line.get("calls", 1))) > 1)
        return RecordingSummary(cases=len(latest), multi_call_cases=multi)
