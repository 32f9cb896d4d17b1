"""The oracle adapter: replies with the suite's reference answer.

``--model=oracle`` is the benchmark's self-check: every case must pass when the "model" answers with
the reference artifacts, otherwise the harness, the suite or the fixture is wrong. The reference
travels inside the request as a callable (see :class:`~adapters.base.CompletionRequest`) so that no
other adapter can ever see it.
"""

from __future__ import annotations

import time

from adapters.base import AdapterError, Completion, CompletionRequest, OracleUnavailable, Usage

__all__ = ["OracleAdapter", "OracleUnavailable"]


class OracleAdapter:
    """Answers with ``request.reference()``.

    :class:`OracleUnavailable` raised by the reference is deliberately not caught: the harness reports
    it per case ("no runnable reference"), which is different from an infrastructure fault.
    """

    def __init__(self, name: str = "oracle") -> None:
        self.name = name

    def describe(self) -> dict[str, object]:
        return {"adapter": "oracle", "alias": self.name, "model_id": "oracle", "endpoint": None}

    def complete(self, request: CompletionRequest) -> Completion:
        if request.reference is None:
            raise AdapterError(f"oracle: case {request.case_key} carries no reference answer")
        start = time.perf_counter()
        text = request.reference()
        latency = time.perf_counter() - start
        return Completion(
            text=text,
            model_id="oracle",
            finish_reason="stop",
            usage=Usage(input_tokens=None, output_tokens=None),
            latency_s=latency,
        )
