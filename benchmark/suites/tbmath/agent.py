"""The agent loop: a model works for many turns in a sandboxed working directory, then one JSON
artifact is read from the path the task requires (paper §3, App. C/E).

Tools are ``bash`` and ``python`` (each a fresh process in the episode's working directory, run in
the harness sandbox: no network, nothing of the references visible) and ``view_image`` (a PNG of
the working directory is attached to the conversation for multimodal models). A model with
OpenAI-style tool calls uses them natively; otherwise, and for recorded transcripts, fenced blocks
in the reply (```bash, ```python, ```view_image) are the calls. A reply without any call ends the
episode. Limits on turns, wall time, tokens and cost each end it too, with the reason recorded.

Each turn is a separate request keyed ``<case key>/turn<N>``, so ``replay:FILE`` drives a whole
transcript (one line per turn) and the response cache stores turns one by one; every turn — the
response, each tool call and its output, bounded — goes into the case's record.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import Completion, CompletionRequest, Decoding, OracleUnavailable, ToolSpec
from benchmark.cases import Case
from benchmark.messages import ImagePart, Message, TextPart
from benchmark.sandbox import Sandbox
from benchmark.suites.base import CaseContext
from benchmark.suites.tbmath.sandboxes import advertised_packages, episode_sandbox
from benchmark.suites.tbmath.tasks import Task
from benchmark.suites.tbmath.workspace import ToolResult, Workspace

END_REASONS: tuple[str, ...] = ("done", "max_turns", "wall_time", "token_limit", "cost_limit")
_LOG_CHARS = 20_000
_FENCE = re.compile(r"```(bash|sh|python|py|view_image)[^\n]*\n(.*?)```", re.DOTALL)

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "bash",
        "Run a bash command in the working directory (no network). Files persist between calls.",
        {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
    ToolSpec(
        "python",
        "Run a Python program in the working directory (the packages the task installs; no network).",
        {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
    ),
    ToolSpec(
        "view_image",
        "Attach a PNG file of the working directory to the conversation so you can look at it.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
)


@dataclass(frozen=True)
class AgentLimits:
    """Bounds of one episode. The paper gives agents 4 hours; the default here is shorter and
    configurable (``--agent-wall-s``)."""

    max_turns: int = 40
    wall_s: float = 3600.0
    max_total_tokens: int | None = 2_000_000
    max_cost_usd: float | None = None
    tool_timeout_s: float = 600.0
    tool_output_chars: int = 8000

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_turns": self.max_turns,
            "wall_s": self.wall_s,
            "max_total_tokens": self.max_total_tokens,
            "max_cost_usd": self.max_cost_usd,
            "tool_timeout_s": self.tool_timeout_s,
            "tool_output_chars": self.tool_output_chars,
        }


@dataclass(frozen=True)
class Action:
    tool: str
    argument: str
    call_id: str | None = None  # set for native tool calls


@dataclass
class Episode:
    turns: list[dict[str, Any]] = field(default_factory=list)
    end_reason: str = "done"
    workspace: Workspace | None = None
    wall_s: float = 0.0
    sandbox_note: str | None = None  # why the tools did not run with the agent stack

    def as_record(self) -> dict[str, Any]:
        record = {"end_reason": self.end_reason, "turns": self.turns, "wall_s": round(self.wall_s, 3)}
        return record if self.sandbox_note is None else {**record, "sandbox_note": self.sandbox_note}


def parse_actions(completion: Completion) -> list[Action]:
    """Native tool calls when the model made any, else the fenced blocks of its text."""
    if completion.tool_calls:
        actions = []
        for call in completion.tool_calls:
            try:
                arguments = json.loads(call.arguments or "{}")
            except json.JSONDecodeError:
                arguments = {}
            key = {"bash": "command", "python": "code", "view_image": "path"}.get(call.name, "")
            value = arguments.get(key) if isinstance(arguments, dict) else None
            actions.append(Action(call.name, value if isinstance(value, str) else "", call.call_id))
        return actions
    names = {"sh": "bash", "py": "python"}
    return [Action(names.get(kind, kind), body) for kind, body in _FENCE.findall(completion.text)]


def system_prompt(task: Task) -> str:
    """The harness's own words: how the tools work. The task's words are its ``instruction.md``,
    unchanged (the first user message)."""
    return (
        "You are solving an open mathematical-modeling task in a terminal. Your working directory holds "
        "data/ (the task's files: problem statement, output schema, attachments, figures; also at "
        "/root/data) and results/ (also at /root/results). Tools: `bash` and `python` run a fresh "
        "process in that directory (files you write persist between calls; there is no network), "
        "`view_image` shows you a PNG. If you cannot make tool calls, put each command in a fenced "
        "block (```bash, ```python, or ```view_image with a path). When the artifact is written, reply "
        f"without any tool call. Only the JSON file {task.artifact_path} (relative to the working "
        "directory) is scored. Python packages installed: " + ", ".join(advertised_packages(task.root)) + "."
    )


def _bounded(text: str, limit: int = _LOG_CHARS) -> str:
    return (
        text if len(text) <= limit else text[: limit // 2] + "\n[... truncated ...]\n" + text[-limit // 2 :]
    )


def first_messages(task: Task) -> list[Message]:
    """What the agent is shown first: the system prompt, the instruction and the task's figures."""
    first: list[TextPart | ImagePart] = [TextPart(task.instruction)]
    for figure in (ImagePart.from_file(path) for path in task.figures()):
        first += [TextPart(f"\n[figure data/figures/{figure.name}]\n"), figure]
    return [Message.text("system", system_prompt(task)), Message("user", tuple(first))]


def turn_request(
    case: Case,
    messages: Sequence[Message],
    number: int,
    max_tokens: int,
    reference: Callable[[], str] | None = None,
) -> CompletionRequest:
    """The request of the agent's turn ``number`` (keyed ``<case>/turn<N>``), tools offered."""
    return CompletionRequest(
        case_key=f"{case.key}/turn{number}",
        messages=tuple(messages),
        decoding=Decoding(temperature=case.temperature, max_tokens=max_tokens, sample_index=case.sample),
        reference=reference,
        tools=TOOL_SPECS,
    )


def run_episode(
    task: Task,
    context: CaseContext,
    limits: AgentLimits,
    oracle_turn: Callable[[int], str] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Episode:
    """Drive the model until it stops calling tools or a limit is reached."""
    workspace = Workspace(task.workspace_files())
    sandbox, sandbox_note = episode_sandbox(context.sandbox, task.root)
    episode = Episode(workspace=workspace, sandbox_note=sandbox_note)
    messages = first_messages(task)
    images_dir = Path(tempfile.mkdtemp(prefix="tbmath-images-"))
    start = clock()
    tokens = 0
    cost = 0.0
    try:
        for number in range(limits.max_turns + 1):
            reason = _limit_reached(number, clock() - start, tokens, cost, limits)
            if reason:
                episode.end_reason = reason
                break
            completion, from_reference = _ask(context, messages, number, oracle_turn)
            # A turn answered with the primary reference script runs where tbmath-generate ran it
            # (the run's own solver-stack sandbox) so it reproduces the panel's stored values, even
            # in a task whose Dockerfile gives its agent the agent stack.
            turn_sandbox = context.sandbox if from_reference and task.primary_reference else sandbox
            tokens += (completion.usage.input_tokens or 0) + (completion.usage.output_tokens or 0)
            cost += completion.cost_usd or 0.0
            actions = parse_actions(completion)
            turn: dict[str, Any] = {
                "turn": number,
                "response": _bounded(completion.text),
                "finish_reason": completion.finish_reason,
                "input_tokens": completion.usage.input_tokens,
                "output_tokens": completion.usage.output_tokens,
                "latency_s": round(completion.latency_s, 4),
                "cost_usd": completion.cost_usd,
                "native_tool_calls": bool(completion.tool_calls),
                "actions": [],
            }
            episode.turns.append(turn)
            messages.append(
                Message("assistant", (TextPart(completion.text),), tool_calls=tuple(completion.tool_calls))
            )
            if not actions:
                episode.end_reason = "done"
                break
            fallback_outputs: list[str] = []
            attachments: list[ImagePart] = []
            for action in actions:
                remaining = limits.wall_s - (clock() - start)
                text, image, step = _perform(action, workspace, turn_sandbox, limits, remaining, images_dir)
                turn["actions"].append(step)
                if image is not None:
                    attachments.append(image)
                if action.call_id is not None:
                    messages.append(Message("tool", (TextPart(text),), tool_call_id=action.call_id))
                else:
                    fallback_outputs.append(text)
            if fallback_outputs:
                messages.append(Message.text("user", "Tool results:\n\n" + "\n\n".join(fallback_outputs)))
            if attachments:
                parts: list[TextPart | ImagePart] = [TextPart("Requested image(s):")]
                parts += attachments
                messages.append(Message("user", tuple(parts)))
        else:  # pragma: no cover - the loop always breaks at the max_turns check
            episode.end_reason = "max_turns"
    finally:
        shutil.rmtree(images_dir, ignore_errors=True)
        episode.wall_s = clock() - start
    return episode


def _limit_reached(number: int, elapsed: float, tokens: int, cost: float, limits: AgentLimits) -> str | None:
    if number >= limits.max_turns:
        return "max_turns"
    if elapsed >= limits.wall_s:
        return "wall_time"
    if limits.max_total_tokens is not None and tokens >= limits.max_total_tokens:
        return "token_limit"
    if limits.max_cost_usd is not None and cost >= limits.max_cost_usd:
        return "cost_limit"
    return None


def _ask(
    context: CaseContext, messages: Sequence[Message], number: int, oracle_turn: Callable[[int], str] | None
) -> tuple[Completion, bool]:
    """(the model's completion, whether the adapter answered with the reference turn)."""
    case = context.case
    asked: list[bool] = []

    def reference() -> str:
        if oracle_turn is None:
            raise OracleUnavailable(f"{case.key}: this task has no reference artifact for the oracle")
        asked.append(True)
        return oracle_turn(number)

    request = turn_request(case, messages, number, context.max_tokens, reference)
    completion = context.adapter.complete(request)
    context.accounting.add(completion)
    if completion.model_id not in context.model_ids:
        context.model_ids.append(completion.model_id)
    return completion, bool(asked)


def _perform(
    action: Action,
    workspace: Workspace,
    sandbox: Sandbox,
    limits: AgentLimits,
    remaining_s: float,
    images_dir: Path,
) -> tuple[str, ImagePart | None, dict[str, Any]]:
    step: dict[str, Any] = {"tool": action.tool, "input": _bounded(action.argument)}
    if action.tool == "view_image":
        data = workspace.read(action.argument.strip())
        if data is None or not data.startswith(b"\x89PNG"):
            text = f"[view_image] no PNG file at {action.argument.strip()!r}"
            step["result"] = text
            return text, None, step
        target = images_dir / f"{len(list(images_dir.iterdir()))}.png"
        target.write_bytes(data)
        step["result"] = f"attached {action.argument.strip()}"
        return (
            f"[view_image] {action.argument.strip()} is attached below",
            ImagePart.from_file(target),
            step,
        )
    if action.tool not in ("bash", "python"):
        text = f"[{action.tool}] unknown tool; use bash, python or view_image"
        step["result"] = text
        return text, None, step
    timeout = max(1.0, min(limits.tool_timeout_s, remaining_s))
    output_chars = limits.tool_output_chars
    result: ToolResult = workspace.run(sandbox, action.tool, action.argument, timeout, output_chars)
    step["result"] = result.as_record()
    return result.for_model(), None, step


__all__ = ["END_REASONS", "TOOL_SPECS", "AgentLimits", "Episode", "parse_actions", "run_episode"]
