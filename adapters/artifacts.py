"""``artifacts:DIR``: the model source of a run whose answers an external agent already wrote.

An agent harness of its own (a coding agent, a human, another benchmark's runner) can produce a
suite's answer file per task; the harness then only scores. Such a run has no model to call, but it
is still a run of *something*: the manifest, every record and the run folder's name say which
folder the answers came from, as they say which model answered a live run. A suite whose answers
are files says so by naming this source for its ``--artifacts DIR`` option (its ``model_source``);
``--model`` is then not needed.
"""

from __future__ import annotations

from pathlib import Path

from adapters.base import AdapterError, Completion, CompletionRequest

__all__ = ["PREFIX", "ArtifactsSource"]

PREFIX = "artifacts:"


class ArtifactsSource:
    """Names the answer folder; answers no model request (the suite reads the files itself)."""

    def __init__(self, alias: str) -> None:
        self.name = alias
        self.directory = Path(alias.removeprefix(PREFIX))

    def describe(self) -> dict[str, object]:
        return {
            "adapter": "artifacts",
            "alias": self.name,
            "model_id": None,
            "endpoint": None,
            "artifacts_dir": str(self.directory.resolve()),
        }

    def complete(self, request: CompletionRequest) -> Completion:
        raise AdapterError(
            f"{self.name}: case {request.case_key} asked for a model reply, but this run scores the "
            f"answer files in {self.directory} and calls no model; give --model=ALIAS to run one",
            kind="no_model",
        )
