"""The sandbox a TB-MathModel episode and a task's own verifier run in: the harness's sandbox, but
with the agent stack instead of the solver stack.

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
from benchmark.sandbox.environment import PythonEnvironment, sandbox_environment, solver_stack
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


def advertised_packages() -> tuple[str, ...]:
    """What the tool description tells the model it can import (from ``agent_stack.txt``)."""
    return tuple(p.prompt for p in solver_stack(AGENT_STACK) if p.prompt is not None)


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
