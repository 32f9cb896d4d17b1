"""Sandboxed execution of generated code (DESIGN.md §3 "Execution", §5 failure taxonomy).

Generated code never runs in the pytest worker: :func:`create_sandbox` picks the warm bubblewrap
pool when bubblewrap works on this machine (a fresh bubblewrap per case on request) and a plain,
rlimited subprocess otherwise, and the choice is recorded in the run manifest through
:meth:`Sandbox.describe`. Modules: ``core`` (value types), ``environment`` (the sandbox's Python),
``mounts`` (mount planning), ``process`` (process control), ``outcome`` (classification),
``executor`` (cold bwrap and subprocess), ``pool``/``pool_server`` (warm), ``runner`` (in-sandbox),
``factory`` (choosing one).
"""

from __future__ import annotations

from benchmark.sandbox.core import ExecutionResult, Limits, Outcome, SandboxKind
from benchmark.sandbox.executor import BwrapSandbox, Sandbox, SandboxUnavailableError, SubprocessSandbox
from benchmark.sandbox.factory import OPTION_CHOICES, create_sandbox, isolation_warning, kind_for_option
from benchmark.sandbox.pool import PoolSandbox

__all__ = [
    "OPTION_CHOICES",
    "BwrapSandbox",
    "ExecutionResult",
    "Limits",
    "Outcome",
    "PoolSandbox",
    "Sandbox",
    "SandboxKind",
    "SandboxUnavailableError",
    "SubprocessSandbox",
    "create_sandbox",
    "isolation_warning",
    "kind_for_option",
]
