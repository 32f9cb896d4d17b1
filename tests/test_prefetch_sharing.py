"""A worker done with its share prefetches the other shares' cases, and no request is sent twice.

Two generation phases stand for two xdist workers on one response cache (a real ``CachedAdapter``
on a folder); the endpoint is an adapter that counts what it is sent and takes a moment to answer.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

from adapters.base import Completion, CompletionRequest
from adapters.cache import CachedAdapter
from benchmark.cases import Case, InstanceRef
from benchmark.messages import Message
from benchmark.prefetch import GenerationPhase, Share
from benchmark.suites.base import case_request

CASES = 24


class _Counting:
    name = "counting"

    def __init__(self) -> None:
        self.sent: Counter[str] = Counter()
        self._lock = threading.Lock()

    def describe(self) -> dict[str, object]:
        return {"adapter": self.name, "model_id": "m"}

    def complete(self, request: CompletionRequest) -> Completion:
        with self._lock:
            self.sent[request.case_key] += 1
        time.sleep(0.02)
        return Completion(text="answer", model_id="m")


class _Suite:
    """Only what the generation phase uses: the first request of a case, one text message."""

    name = "fake"

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest:
        return case_request(case, [Message.text("user", f"question {case.instance.path[-1]}")], max_tokens)


def _cases(tmp_path: Path) -> list[Case]:
    return [
        Case(InstanceRef("fake", (f"q{n:02d}",), {}, tmp_path), setting="s", sample=0, temperature=0.0)
        for n in range(CASES)
    ]


def _phase(adapter: CachedAdapter, share: Share, cases: list[Case]) -> GenerationPhase:
    phase = GenerationPhase(adapter, _Suite(), threads=3, max_tokens=16)  # type: ignore[arg-type]
    mine = [case for position, case in enumerate(cases) if share.owns(position)]
    others = [
        [case for position, case in enumerate(cases) if Share(index, share.count).owns(position)]
        for index in range(share.count)
        if index != share.index
    ]
    phase.start(mine, others)
    return phase


def test_a_worker_alone_prefetches_the_late_workers_share_too(tmp_path: Path) -> None:
    endpoint = _Counting()
    cases = _cases(tmp_path)
    phase = _phase(CachedAdapter(endpoint, tmp_path / "cache", session="s"), Share(0, 2), cases)
    assert phase.wait(30)
    assert sorted(endpoint.sent) == sorted(case.key for case in cases)
    assert set(endpoint.sent.values()) == {1}


def test_two_workers_send_each_request_once(tmp_path: Path) -> None:
    endpoint = _Counting()
    cases = _cases(tmp_path)
    phases = [
        _phase(CachedAdapter(endpoint, tmp_path / "cache", session="s"), Share(index, 2), cases)
        for index in range(2)
    ]
    assert all(phase.wait(30) for phase in phases)
    assert sorted(endpoint.sent) == sorted(case.key for case in cases)
    assert set(endpoint.sent.values()) == {1}
