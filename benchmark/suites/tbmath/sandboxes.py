"""The sandbox a TB-MathModel episode and a task's own verifier run in.

A task that declares its own environment (``environment/Dockerfile``, as every task of the public
release does) gets the agent stack instead of the solver stack; so does every task's official
verifier (it needs pytest). A task without a Dockerfile (our own) keeps the run's sandbox, whose
solver stack its reference scripts were generated with.

The public release's tasks promise the packages their ``environment/Dockerfile`` installs (pandas,
openpyxl, xlrd, scikit-learn, matplotlib at fixed pins; most CUMCM attachments are ``.xlsx``) and
run their verifier under pytest. ``scripts/setup.sh`` installs exactly those pins
(``benchmark/sandbox/agent_stack.txt``) into ``.venv-agent``; this module gives a sandbox of the
same kind, hidden paths and limits as the run's, whose mounted Python environment is that one.
Under bubblewrap it is a cold sandbox per call (each tool call is a process of its own anyway).
When ``.venv-agent`` is missing, the run's own sandbox is used and the record says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from benchmark.sandbox import Sandbox
from benchmark.sandbox.core import SandboxKind
from benchmark.sandbox.environment import (
    PythonEnvironment,
    prompt_libraries,
    sandbox_environment,
    solver_stack,
)
from benchmark.sandbox.executor import BwrapSandbox, SubprocessSandbox

_CHECKOUT = Path(__file__).resolve().parents[3]
AGENT_STACK = _CHECKOUT / "benchmark" / "sandbox" / "agent_stack.txt"
AGENT_VENV_DIR = ".venv-agent"
#: Overrides where the agent environment lives (a virtual environment's directory).
VENV_ENV_VAR = "OPTBENCH_AGENT_VENV"

# Per run sandbox (kept alive here, so its id is never reused): the agent's sandbox and its note.
_cache: dict[int, tuple[Sandbox, Sandbox, str | None]] = {}


def agent_environment() -> PythonEnvironment | None:
    """The ``.venv-agent`` environment, or None when it is missing."""
    override = os.environ.get(VENV_ENV_VAR)
    environment = sandbox_environment(Path(override) if override else _CHECKOUT / AGENT_VENV_DIR)
    return environment if environment.dedicated else None  # not the harness's interpreter


def declares_environment(task_root: Path) -> bool:
    """Whether the task ships its own ``environment/Dockerfile`` (then it gets the agent stack)."""
    return (task_root / "environment" / "Dockerfile").is_file()


def advertised_packages(task_root: Path) -> tuple[str, ...]:
    """What the system prompt tells the model it can import in this task's episode."""
    if declares_environment(task_root):
        return tuple(p.prompt for p in solver_stack(AGENT_STACK) if p.prompt is not None)
    return prompt_libraries()


_PIN = re.compile(r"(?<![\w.-])([A-Za-z0-9][A-Za-z0-9_.-]*)==([A-Za-z0-9_.+!-]+)")


def environment_differences(task_root: Path) -> tuple[str, ...]:
    """Where the task's ``environment/Dockerfile`` pins a Python package other than the agent
    stack does (another version, or a package the stack lacks); empty when they agree or the task
    ships no Dockerfile. Base images and system packages are not compared."""
    dockerfile = task_root / "environment" / "Dockerfile"
    if not dockerfile.is_file():
        return ()
    ours = {p.name.lower(): p.version for p in solver_stack(AGENT_STACK)}
    out = []
    for name, version in _PIN.findall(dockerfile.read_text(encoding="utf-8", errors="replace")):
        have = ours.get(name.lower())
        if have != version:
            where = "not in the agent stack" if have is None else f"the agent stack has {have}"
            out.append(f"{name}=={version} ({where})")
    return tuple(dict.fromkeys(out))


def episode_sandbox(base: Sandbox, task_root: Path) -> tuple[Sandbox, str | None]:
    """(the sandbox of the episode's tool calls, a note when the task's environment is missing)."""
    return agent_sandbox(base) if declares_environment(task_root) else (base, None)


def agent_sandbox(base: Sandbox) -> tuple[Sandbox, str | None]:
    """(the sandbox for tool calls and verifiers, a note when it is not the agent stack's)."""
    key = id(base)
    if key not in _cache:
        environment = agent_environment()
        note: str | None = None
        sandbox: Sandbox
        if environment is None:
            note = f"no {AGENT_VENV_DIR} (run scripts/setup.sh): the solver stack's sandbox is used"
            sandbox = base
        elif base.kind is SandboxKind.SUBPROCESS:
            sandbox = SubprocessSandbox(base.hidden, limits=base.limits, environment=environment)
        else:
            bwrap = str(getattr(base, "bwrap", "bwrap"))
            sandbox = BwrapSandbox(base.hidden, bwrap=bwrap, limits=base.limits, environment=environment)
        _cache[key] = (base, sandbox, note)
    _, sandbox, note = _cache[key]
    return sandbox, note
