"""Value types shared by the sandbox executor, the in-sandbox runner's verdicts and the graders.

They live apart from the executor so that graders and result writers can import the outcome
vocabulary without pulling in process management.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class SandboxKind(StrEnum):
    """How generated code is isolated; recorded in the run manifest because results depend on it."""

    BWRAP = "bwrap"
    POOL = "warm"
    SUBPROCESS = "subprocess"


class Outcome(StrEnum):
    """Classified result of running model code (DESIGN.md §5).

    Every value except ``SANDBOX_ERROR`` is the model's responsibility; ``SANDBOX_ERROR`` is an
    infrastructure fault (bwrap could not start, the interpreter could not start, the runner broke)
    and the case is re-runnable.
    """

    OK = "ok"
    SYNTAX = "syntax"
    DEPENDENCY = "dependency"
    RUNTIME = "runtime"
    TIMEOUT = "timeout"
    OUTPUT_FORMAT = "output_format"
    RESPONSE_CONTRACT = "response_contract"
    SANDBOX_ERROR = "sandbox_error"


def _usable_cpus() -> int:
    """CPUs this process may run on (affinity-aware, unlike ``os.cpu_count``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Limits:
    """Resource limits for one execution.

    ``memory_mb`` is an address-space cap (RLIMIT_AS) per process, not a resident-set cap: it is the
    one limit that works the same with and without bwrap and needs no cgroup privileges. NumPy, SciPy,
    OR-Tools (CP-SAT, GLOP, SCIP), HiGHS, PuLP/CBC and gurobipy import and solve small models under
    1 GiB; below ~768 MiB ``libortools.so`` no longer maps.

    ``cpu_s`` (RLIMIT_CPU, per process) defaults to ``wall_timeout_s`` times the usable CPUs plus a
    margin, so a multithreaded solver is never stopped by the CPU cap before the wall clock; the CPU
    cap is only a backstop for a process that escapes the wall-clock kill.

    ``file_bytes`` (RLIMIT_FSIZE) is the largest single file the candidate may write, including its
    returned value; with bwrap the whole writable disk is besides capped at ``disk_mb`` (the /tmp
    tmpfs holding the work directory) and, where the harness may mount it itself, at
    ``disk_files`` files and folders (``benchmark.sandbox.tmpfs``).

    ``processes`` caps the tasks (processes and threads) of one case where a pids cgroup is
    available; ``result_bytes`` caps ``solve()``'s value as JSON (over it: ``output_format``,
    "result too large"), which also bounds what the harness reads and parses.
    """

    wall_timeout_s: float = 1800.0
    memory_mb: int = 8192
    output_bytes: int = 1_000_000
    cpu_s: float | None = None
    file_bytes: int = 512 * 1024 * 1024
    processes: int = 128
    disk_mb: int = 1024
    result_bytes: int = 16 * 1024 * 1024
    disk_files: int = 100_000

    def __post_init__(self) -> None:
        if not (self.wall_timeout_s > 0 and math.isfinite(self.wall_timeout_s)):
            raise ValueError(f"wall_timeout_s must be a positive finite number, got {self.wall_timeout_s!r}")
        if self.memory_mb <= 0:
            raise ValueError(f"memory_mb must be positive, got {self.memory_mb!r}")
        if self.output_bytes <= 0:
            raise ValueError(f"output_bytes must be positive, got {self.output_bytes!r}")
        if self.cpu_s is not None and not (self.cpu_s > 0 and math.isfinite(self.cpu_s)):
            raise ValueError(f"cpu_s must be a positive finite number or None, got {self.cpu_s!r}")
        if self.file_bytes < self.result_bytes:
            raise ValueError("file_bytes must be at least result_bytes, or the result could not be written")
        for name in ("processes", "disk_mb", "result_bytes", "disk_files"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")

    @property
    def effective_cpu_s(self) -> int:
        """RLIMIT_CPU soft limit in whole seconds (the kernel's granularity)."""
        if self.cpu_s is not None:
            return max(1, math.ceil(self.cpu_s))
        return math.ceil(self.wall_timeout_s * _usable_cpus()) + 5

    def as_dict(self) -> dict[str, object]:
        """Limits as they are applied, for the run manifest."""
        return {
            "wall_timeout_s": self.wall_timeout_s,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
            "cpu_s": self.effective_cpu_s,
            "file_bytes": self.file_bytes,
            "processes": self.processes,
            "disk_mb": self.disk_mb,
            "disk_files": self.disk_files,
            "result_bytes": self.result_bytes,
        }


@dataclass(frozen=True)
class ExecutionResult:
    """What one execution produced.

    ``value`` is ``solve()``'s return value after a JSON round trip (so graders see exactly what a
    result record would store), and only when ``outcome`` is OK; ``run_script`` always gives None.
    ``stdout`` and ``stderr`` are the tails of the captured streams, at most ``Limits.output_bytes``
    each, prefixed by a marker line when something was cut. ``error`` is empty when OK, else a short
    classified message on its first line followed by the last lines of the traceback.
    """

    outcome: Outcome
    value: dict[str, Any] | None
    stdout: str
    error: str
    wall_s: float
    sandbox: SandboxKind
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    @property
    def is_infrastructure_fault(self) -> bool:
        """True when the model is not to blame and the case should be re-run rather than scored."""
        return self.outcome is Outcome.SANDBOX_ERROR
