"""The agent's working directory, carried across tool calls through the harness sandbox.

It mirrors the task's container: ``data/`` is the task's ``environment/data`` and ``results/`` is
where the artifact goes. Under bubblewrap the sandbox links ``/root/data`` and ``/root/results``
into this directory, so the absolute paths an ``instruction.md`` of the public release names are
true; the directory itself is writable (``/root`` holds only those links).

The sandbox (``benchmark.sandbox``) gives every run a fresh, private directory and removes it
afterwards; an agent needs one directory for a whole episode. So the harness keeps the directory's
contents here, on the host, and each tool call ships them into a sandbox run (base64 in one JSON
file, so binary attachments travel too), runs the command there with that directory as its cwd,
and reads back what changed. Nothing but the task's public data and the agent's own files is ever
in it: the references, the score configuration and the rest of the checkout stay hidden by the
sandbox, and under bubblewrap the command has no network.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import PurePosixPath

from benchmark.categories import InfrastructureCategory
from benchmark.resources import resource_text
from benchmark.sandbox import Limits, Outcome, Sandbox
from benchmark.verdict import InfrastructureError

PAYLOAD_FILE = "workspace_payload.json"
RESULT_PREFIX = "@@TBMATH_WORKSPACE@@"
MAX_WORKSPACE_BYTES = 24 * 1024 * 1024
TOOLS: tuple[str, ...] = ("bash", "python")

# Runs inside the sandbox: materialise the directory, run the command, report the changes.
_RUNNER = resource_text(__name__, "workspace_runner.py.txt")


@dataclass(frozen=True)
class ToolResult:
    tool: str
    exit_code: int | None
    output: str
    timed_out: bool
    changed: tuple[str, ...]
    error: str = ""  # the sandbox's own verdict when the command could not even run

    def for_model(self) -> str:
        status = "timed out" if self.timed_out else f"exit code {self.exit_code}"
        if self.error:
            status = f"failed: {self.error}"
        return f"[{self.tool} {status}]\n{self.output}"

    def as_record(self) -> dict[str, object]:
        return {
            "tool": self.tool,
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "changed": list(self.changed),
            "output": self.output,
            "error": self.error,
        }


class Workspace:
    """The files of one episode, keyed by POSIX path relative to the working directory."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = dict(files)

    def read(self, rel: str) -> bytes | None:
        return self.files.get(PurePosixPath(rel).as_posix())

    def size(self) -> int:
        return sum(len(data) for data in self.files.values())

    def run(self, sandbox: Sandbox, tool: str, code: str, timeout_s: float, output_chars: int) -> ToolResult:
        if tool not in TOOLS:
            raise ValueError(f"unknown tool {tool!r}")
        payload = {
            "files": {
                rel: base64.b64encode(data).decode("ascii") for rel, data in sorted(self.files.items())
            },
            "tool": tool,
            "code": code,
            "timeout_s": timeout_s,
            "output_bytes": output_chars,
            "max_bytes": MAX_WORKSPACE_BYTES,
        }
        limits = Limits(
            wall_timeout_s=timeout_s + 60,
            memory_mb=sandbox.limits.memory_mb,
            output_bytes=4 * MAX_WORKSPACE_BYTES // 3 + 4 * output_chars + 65536,
        )
        result = sandbox.run_script(_RUNNER, limits, files={PAYLOAD_FILE: json.dumps(payload)})
        if result.outcome is Outcome.SANDBOX_ERROR:
            raise InfrastructureError(InfrastructureCategory.SANDBOX_ERROR, result.error)
        reported = None
        for line in reversed(result.stdout.splitlines()):
            if line.startswith(RESULT_PREFIX):
                reported = json.loads(line[len(RESULT_PREFIX) :])
                break
        if reported is None and result.ok:
            # The report ran past the sandbox's capture limit (its head was cut): nothing of it,
            # base64 included, is shown, and the directory stays as it was before the call.
            return ToolResult(
                tool,
                None,
                "",
                False,
                (),
                error="the call's report did not come back whole (its output and changed files "
                "exceeded the capture limit); changes discarded",
            )
        if reported is None:
            # The command took the whole sandbox down (memory cap, the outer timeout): the agent sees
            # why, and the directory stays as it was before the call.
            return ToolResult(
                tool,
                None,
                result.stdout[-output_chars:],
                result.outcome is Outcome.TIMEOUT,
                (),
                error=f"{result.outcome.value}: {result.error.strip()[:500]}",
            )
        if int(reported.get("total_bytes", 0)) > MAX_WORKSPACE_BYTES:
            return ToolResult(
                tool,
                reported["exit_code"],
                reported["output"],
                reported["timed_out"],
                (),
                error=f"the working directory would exceed {MAX_WORKSPACE_BYTES} bytes "
                f"({reported['total_bytes']} bytes); changes discarded",
            )
        updated = dict(self.files)
        for rel in reported["deleted"]:
            updated.pop(rel, None)
        for rel, data in reported["changed"].items():
            updated[rel] = base64.b64decode(data)
        if sum(len(d) for d in updated.values()) > MAX_WORKSPACE_BYTES:
            return ToolResult(
                tool,
                reported["exit_code"],
                reported["output"],
                reported["timed_out"],
                (),
                error=f"the working directory would exceed {MAX_WORKSPACE_BYTES} bytes; changes discarded",
            )
        self.files = updated
        return ToolResult(
            tool,
            reported["exit_code"],
            reported["output"],
            reported["timed_out"],
            tuple(sorted(reported["changed"])),
        )
