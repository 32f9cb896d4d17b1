"""The TB-MathModel agent loop driven without a model: a scripted adapter answers turn by turn,
the tools run in the real sandbox, and the limits end episodes with their recorded reason."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable

import pytest

from adapters.base import Completion, CompletionRequest, Usage
from benchmark.cases import Case
from benchmark.messages import ImagePart, ToolCall
from benchmark.sandbox import Limits, SandboxKind, create_sandbox
from benchmark.suites.base import CaseContext
from benchmark.suites.tbmath import tasks
from benchmark.suites.tbmath.agent import AgentLimits, parse_actions, run_episode
from benchmark.suites.tbmath.suite import SUITE
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "tbmath"
ROUTE = tasks.load_task(FIXTURES / "delivery_route")


class Scripted:
    """Answers the n-th request of an episode with ``turns[n]`` (text or a Completion)."""

    name = "scripted"

    def __init__(self, turns: list[str | Completion], cost: float | None = None, tokens: int = 0) -> None:
        self.turns, self.cost, self.tokens = turns, cost, tokens
        self.requests: list[CompletionRequest] = []

    def describe(self) -> dict[str, object]:
        return {"adapter": "scripted", "model_id": "scripted"}

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        turn = self.turns[min(len(self.requests) - 1, len(self.turns) - 1)]
        if isinstance(turn, Completion):
            return turn
        return Completion(turn, "scripted", "stop", Usage(self.tokens, 0), cost_usd=self.cost)


@pytest.fixture(scope="module")
def sandbox():
    with create_sandbox([FIXTURES]) as made:
        yield made


def _context(adapter: Scripted, sandbox) -> CaseContext:
    instance = next(i for i in SUITE.discover(FIXTURES) if i.path == ("delivery_route",))
    case = Case(instance, "agent", 0, 0.0)
    return CaseContext(case=case, adapter=adapter, sandbox=sandbox, limits=Limits(wall_timeout_s=120))


def _bash(command: str) -> str:
    return f"I will run:\n```bash\n{command}\n```"


def test_fenced_blocks_and_native_tool_calls_parse_into_actions() -> None:
    text = Completion("```bash\nls\n```\nthen\n```python\nprint(1)\n```", "m")
    assert [(a.tool, a.argument) for a in parse_actions(text)] == [("bash", "ls\n"), ("python", "print(1)\n")]
    native = Completion("", "m", tool_calls=(ToolCall("c1", "python", json.dumps({"code": "print(2)"})),))
    assert [(a.tool, a.argument, a.call_id) for a in parse_actions(native)] == [("python", "print(2)", "c1")]
    assert parse_actions(Completion("All done.", "m")) == []


def test_an_episode_keeps_its_directory_across_turns_and_records_every_turn(sandbox) -> None:
    adapter = Scripted(
        [
            _bash("ls data data/attachments data/figures && mkdir -p results && echo 7 > results/n.txt"),
            "```python\nimport json\nn = int(open('results/n.txt').read())\n"
            f"json.dump({{'n': n}}, open({ROUTE.artifact_path!r}, 'w'))\nprint('wrote', n)\n```",
            "```view_image\ndata/figures/map.png\n```",
            "Finished.",
        ]
    )
    episode = run_episode(ROUTE, _context(adapter, sandbox), AgentLimits())
    assert episode.end_reason == "done" and len(episode.turns) == 4
    assert "customers.csv" in episode.turns[0]["actions"][0]["result"]["output"]
    assert episode.turns[1]["actions"][0]["result"]["output"].strip() == "wrote 7"
    assert json.loads(episode.workspace.read(ROUTE.artifact_path)) == {"n": 7}
    # the figure was attached to the next request, and every turn had its own key
    last = adapter.requests[-1]
    assert any(isinstance(p, ImagePart) for m in last.messages[-1:] for p in m.parts)
    assert [r.case_key.rsplit("/", 1)[-1] for r in adapter.requests] == ["turn0", "turn1", "turn2", "turn3"]
    assert all(r.tools for r in adapter.requests)


@pytest.mark.parametrize(
    ("limits", "adapter_kwargs", "reason"),
    [
        (AgentLimits(max_turns=3), {}, "max_turns"),
        (AgentLimits(max_total_tokens=5000), {"tokens": 2000}, "token_limit"),
        (AgentLimits(max_cost_usd=0.25), {"cost": 0.1}, "cost_limit"),
    ],
)
def test_limits_end_the_episode_with_their_reason(sandbox, limits, adapter_kwargs, reason) -> None:
    adapter = Scripted([_bash("echo busy")], **adapter_kwargs)
    episode = run_episode(ROUTE, _context(adapter, sandbox), limits)
    assert episode.end_reason == reason
    expected_turns = {"max_turns": 3, "token_limit": 3, "cost_limit": 3}[reason]
    assert len(episode.turns) == expected_turns


def test_the_wall_time_limit_ends_the_episode(sandbox) -> None:
    ticks: Callable[[], float] = itertools.count(0, 400).__next__  # each look at the clock: +400 s
    adapter = Scripted([_bash("echo busy")])
    episode = run_episode(
        ROUTE, _context(adapter, sandbox), AgentLimits(wall_s=1000), clock=lambda: float(ticks())
    )
    assert episode.end_reason == "wall_time"


def test_tool_output_is_bounded_in_the_conversation_and_the_log(sandbox) -> None:
    adapter = Scripted(["```python\nprint('x' * 100000)\n```", "done"])
    episode = run_episode(ROUTE, _context(adapter, sandbox), AgentLimits(tool_output_chars=2000))
    output = episode.turns[0]["actions"][0]["result"]["output"]
    assert len(output) < 2100 and "truncated" in output


def test_a_transcript_that_reaches_for_references_or_the_network_gets_nothing(sandbox) -> None:
    if sandbox.kind is SandboxKind.SUBPROCESS:
        pytest.skip(
            "only bubblewrap isolates the filesystem and the network; the subprocess fallback does not"
        )
    hidden = FIXTURES / "delivery_route" / "tests" / "reference_panel.json"
    script = (FIXTURES / "delivery_route" / "solution" / "references" / "held_karp.py").resolve()
    adapter = Scripted(
        [
            _bash(f"cat {hidden}; ls {FIXTURES}; cat {script}"),
            "```python\nimport urllib.request\ntry:\n"
            "    print(urllib.request.urlopen('http://1.1.1.1', timeout=5).read()[:50])\n"
            "except Exception as exc:\n    print('network:', type(exc).__name__)\n```",
            "nothing found",
        ]
    )
    episode = run_episode(ROUTE, _context(adapter, sandbox), AgentLimits())
    outputs = " ".join(str(a["result"]) for t in episode.turns for a in t["actions"])
    assert "No such file" in outputs
    for secret in ("held_karp", "Held-Karp", str(ROUTE.metrics[0].anchor), "reference_panel"):
        assert secret not in outputs.replace(str(hidden), "").replace(str(script), ""), secret
    assert "network: URLError" in outputs or "network: OSError" in outputs
