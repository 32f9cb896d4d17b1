"""Choosing the sandbox for a run: the best kind this machine supports, or the one asked for.

``--sandbox`` takes ``auto`` (warm pool when bwrap works, else a subprocess with a warning),
``warm``, ``cold`` (alias ``bwrap``: a fresh bwrap sandbox per case) or ``subprocess``.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmark.sandbox.core import Limits, Outcome, SandboxKind
from benchmark.sandbox.environment import PythonEnvironment
from benchmark.sandbox.executor import BwrapSandbox, Sandbox, SandboxUnavailableError, SubprocessSandbox
from benchmark.sandbox.pool import PoolSandbox

OPTION_CHOICES = ("auto", "warm", "cold", "bwrap", "subprocess")
_PROBE_CODE = 'def solve():\n    return {"status": "ok"}\n'


def kind_for_option(value: str) -> SandboxKind | None:
    """The kind a ``--sandbox`` value asks for; None for ``auto``."""
    if value == "auto":
        return None
    return SandboxKind.BWRAP if value == "cold" else SandboxKind(value)


def isolation_warning(description: Mapping[str, object]) -> str | None:
    """The warning a run prints (start, end, summary) when its sandbox does not isolate, else None."""
    if description.get("filesystem_isolated", True):
        return None
    reason = description.get("fallback_reason")
    why = f" (bwrap unavailable: {reason})" if reason else ""
    return (
        f"WARNING: sandbox {description.get('kind')!s} is NOT isolated{why}: generated code can read "
        "the ground truth, write anywhere this user can and use the network"
    )


def create_sandbox(
    hidden_paths: Sequence[Path],
    *,
    prefer: SandboxKind | None = None,
    limits: Limits | None = None,
    environment: PythonEnvironment | None = None,
) -> Sandbox:
    """The best sandbox this machine supports.

    The warm bwrap pool when the bwrap executable exists and a cold probe run returns the expected
    result; otherwise a plain subprocess, with the reason recorded in
    ``describe()["fallback_reason"]``. ``prefer`` forces a kind: ``SUBPROCESS`` skips the probe,
    ``BWRAP`` (cold) or ``POOL`` raise :class:`SandboxUnavailableError` instead of falling back, so a
    run that was promised isolation never silently loses it. ``environment`` replaces the
    sandbox's Python (``environment.sandbox_environment(venv)`` for another pinned venv); the mounts
    follow it, so only that venv and its interpreter's standard library are visible.
    """
    if prefer is SandboxKind.SUBPROCESS:
        return SubprocessSandbox(hidden_paths, limits=limits, environment=environment)
    cls = BwrapSandbox if prefer is SandboxKind.BWRAP else PoolSandbox
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        reason = "bwrap executable not found on PATH (Debian package: bubblewrap)"
    else:
        try:
            sandbox = BwrapSandbox(hidden_paths, limits=limits, bwrap=bwrap, environment=environment)
            probe = sandbox.run_solve(
                _PROBE_CODE, Limits(wall_timeout_s=60.0, memory_mb=sandbox.limits.memory_mb)
            )
        except (OSError, SandboxUnavailableError) as exc:
            reason = f"bwrap unusable: {exc}"
        else:
            if probe.outcome is Outcome.OK and probe.value == {"status": "ok"}:
                if cls is BwrapSandbox:
                    return sandbox
                return cls(hidden_paths, limits=limits, bwrap=bwrap, environment=environment)
            reason = f"bwrap probe run failed ({probe.outcome.value}): {probe.error.strip()[:500]}"
    if prefer is not None:
        raise SandboxUnavailableError(reason)
    return SubprocessSandbox(hidden_paths, limits=limits, fallback_reason=reason, environment=environment)
