"""Process control: start one sandboxed process tree with its limits, capture bounded output tails,
enforce the wall clock, and make sure nothing of it is left running.

The limits that hold per process are rlimits set in the child before ``exec`` (address space, CPU
seconds, file size, no core dumps). The number of processes is different: RLIMIT_NPROC does not bind
for root, so the cap on tasks (processes and threads) per case is a ``pids`` cgroup when one can be
created (:class:`PidsCgroup`); the manifest records which mechanism applied (:meth:`ProcessCap.describe`).
stdout and stderr are pipes read by the harness, which keeps only the last ``output_bytes`` of each,
so a candidate printing without end costs neither disk nor harness memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import itertools
import math
import os
import resource
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from benchmark.sandbox.core import Limits, SandboxKind

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_LAST_CAP = 63
DRAIN_AFTER_EXIT_S = 0.25
_READ_CHUNK = 65536


def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl, resolved before any fork so the child only has to call it."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - non-glibc platforms
        return None


_PRCTL = _load_prctl()


def make_environment_unreadable() -> bool:
    """Mark this process non-dumpable, so processes without CAP_SYS_PTRACE (a sandboxed child with
    its capabilities dropped) cannot read ``/proc/<pid>/environ``, ``mem`` or attach to it.
    True when the kernel accepted it."""
    if _PRCTL is None:  # pragma: no cover - non-glibc platforms
        return False
    return _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


class ProcessCap:
    """Caps the tasks of one run. The base class caps nothing and says so."""

    mechanism = "none"

    def __init__(self, reason: str = "") -> None:
        self.reason = reason

    def open(self, max_tasks: int) -> str | None:
        """Prepare a cap for one run: the file the child writes its pid to, or None."""
        return None

    def resize(self, token: str | None, max_tasks: int) -> None:
        """Change the cap of an open token (the warm pool's cgroup, per case)."""

    def close(self, token: str | None) -> None:
        """Release what :meth:`open` made, once the run's processes are gone."""

    def tasks(self, token: str | None) -> list[int] | None:
        """Host ids of every task (thread) in the run's cap, or None where nothing records them."""
        return None

    def describe(self) -> dict[str, object]:
        info: dict[str, object] = {
            "mechanism": self.mechanism,
            "counts": "tasks (processes and threads) of one case, Limits.processes plus the sandbox's own",
        }
        if self.reason:
            info["note"] = self.reason
        return info


class PidsCgroup(ProcessCap):
    """One ``pids`` cgroup per run with ``pids.max``; works as root, where RLIMIT_NPROC does not.

    The limit counts tasks, so threads count too (a solver's worker threads, OpenBLAS's pool), and
    it includes the sandbox's own two or three processes (bwrap, its init, the runner).
    """

    _counter = itertools.count()

    def __init__(self, parent: Path, version: int) -> None:
        super().__init__()
        self.parent = parent
        self.version = version
        self.mechanism = f"cgroup-v{version} pids.max"

    @classmethod
    def find(cls) -> ProcessCap:
        """A working pids cgroup, else a :class:`ProcessCap` that explains why there is none."""
        candidates: list[tuple[Path, int]] = [(Path("/sys/fs/cgroup/pids"), 1)]
        with contextlib.suppress(OSError):
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                if line.startswith("0::"):
                    own = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
                    if "pids" in (own / "cgroup.subtree_control").read_text().split():
                        candidates.append((own, 2))
        for base, version in candidates:
            if not base.is_dir():
                continue
            parent = base / "optbench"
            cap = cls(parent, version)
            try:
                parent.mkdir(exist_ok=True)
                cap.close(cap.open(1))
            except OSError:
                continue
            return cap
        return ProcessCap(
            "no writable pids cgroup: the number of processes is not capped (RLIMIT_NPROC does not "
            "bind for root)"
            if os.geteuid() == 0
            else "no writable pids cgroup: the number of processes is not capped",
        )

    def open(self, max_tasks: int) -> str | None:
        path = self.parent / f"run-{os.getpid()}-{next(self._counter)}"
        path.mkdir()
        (path / "pids.max").write_text(str(max_tasks))
        return str(path / "cgroup.procs")

    def resize(self, token: str | None, max_tasks: int) -> None:
        if token is not None:
            Path(os.path.dirname(token), "pids.max").write_text(str(max_tasks))

    def tasks(self, token: str | None) -> list[int] | None:
        """Every thread of the cgroup (v1 ``tasks``, v2 ``cgroup.threads``), zombies included."""
        if token is None:
            return None
        name = "tasks" if self.version == 1 else "cgroup.threads"
        try:
            return [int(t) for t in Path(os.path.dirname(token), name).read_text().split()]
        except (OSError, ValueError):
            return None

    def close(self, token: str | None) -> None:
        """Kill whatever is still in the run's cgroup (a daemon that left the process group), then
        remove it: the same sweep for every sandbox kind."""
        if token is None:
            return
        folder = os.path.dirname(token)
        for _ in range(400):
            try:
                pids = [int(p) for p in Path(token).read_text().split()]
            except (OSError, ValueError):
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            try:
                os.rmdir(folder)
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    return
            time.sleep(0.005)


def child_setup(
    limits: Limits | None,
    *,
    cgroup_procs: str | None,
    die_with_parent: bool,
    drop_capabilities: bool,
    before_exec: Callable[[], None] | None = None,
) -> Callable[[], None]:
    """The child's setup between fork and exec, with everything computed before the fork.
    Without ``limits`` no rlimits are set (the warm pool sets them per case in its children).
    ``before_exec`` runs first (bwrap's capped tmpfs mounts, ``tmpfs.py``)."""
    memory = limits.memory_mb * 1024 * 1024 if limits else 0
    cpu = limits.effective_cpu_s if limits else 0
    fsize = limits.file_bytes if limits else 0
    prctl = _PRCTL

    def apply() -> None:
        if before_exec is not None:
            before_exec()
        if cgroup_procs is not None:
            with open(cgroup_procs, "w") as fh:
                fh.write(str(os.getpid()))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            # SIGXCPU at the soft limit, SIGKILL two seconds later if it is ignored.
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if prctl is not None:
            if die_with_parent:
                prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if drop_capabilities:
                # With an empty bounding set, root gets no capabilities at exec: it can no longer
                # read non-dumpable processes' /proc files or override file permissions.
                for cap in range(_LAST_CAP + 1):
                    prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)

    return apply


class StreamBuffer(Protocol):
    """What :func:`pump` and :func:`drain` feed a stream's bytes to."""

    def feed(self, chunk: bytes) -> None: ...


class TailBuffer:
    """The last ``limit`` bytes of a stream and how many bytes it carried in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._data += chunk
        if len(self._data) > 2 * self.limit:
            del self._data[: len(self._data) - self.limit]

    def text(self) -> str:
        data = bytes(self._data[-self.limit :])
        body = data.decode("utf-8", errors="replace")
        if self.total > len(data):
            dropped = self.total - len(data)
            return f"[optbench: output truncated, first {dropped} of {self.total} bytes dropped]\n{body}"
        return body


class HeadBuffer:
    """The first ``limit`` bytes of a stream and how many bytes it carried in all: the result pipe,
    whose beginning (the runner's start mark, then its verdict) is what counts, and which is read
    to its end so that a writer never blocks on it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - len(self._data)
        if room > 0:
            self._data += chunk[:room]

    def data(self) -> bytes:
        return bytes(self._data)


@dataclass(frozen=True)
class ProcessRun:
    """How one process tree ended; ``kind`` is the sandbox kind it ran in when that differs from the
    sandbox's own (a warm pool's case that ran cold)."""

    returncode: int
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    kind: SandboxKind | None = None


def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    limits: Limits,
    cap: ProcessCap,
    pass_fds: Sequence[int] = (),
    die_with_parent: bool = True,
    drop_capabilities: bool = False,
    after_kill: Callable[[], None] | None = None,
    launcher_tasks: int = 0,
    result: tuple[int, HeadBuffer] | None = None,
    before_exec: Callable[[], None] | None = None,
) -> ProcessRun:
    """Run argv to completion or to the wall timeout, then kill its process group.

    ``after_kill`` runs once the group is killed and before the cap is released (bwrap uses it to
    wait until the sandbox's pid namespace is gone). ``launcher_tasks`` are the sandbox's own
    processes (bwrap and its init), allowed on top of ``Limits.processes``. ``result`` is the read
    end of the result pipe and the buffer its bytes go to, read alongside stdout and stderr.
    ``before_exec`` runs in the child before anything else (see :func:`child_setup`).
    """
    token = cap.open(limits.processes + launcher_tasks)
    try:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            start = time.monotonic()
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                start_new_session=True,
                pass_fds=tuple(pass_fds),
                preexec_fn=child_setup(
                    limits,
                    cgroup_procs=token,
                    die_with_parent=die_with_parent,
                    drop_capabilities=drop_capabilities,
                    before_exec=before_exec,
                ),
            )
        finally:
            os.close(out_w)
            os.close(err_w)
        stdout, stderr = TailBuffer(limits.output_bytes), TailBuffer(limits.output_bytes)
        streams: dict[int, StreamBuffer] = {out_r: stdout, err_r: stderr}
        if result is not None:
            streams[result[0]] = result[1]
        try:
            timed_out = not _wait_streaming(proc, streams, limits.wall_timeout_s)
        finally:
            # Kill the process group whether or not the run finished: in subprocess mode this ends
            # anything the candidate left running; in bwrap mode it kills bwrap, whose death takes
            # the sandbox's pid namespace (and so every process in it) down. The leader is not yet
            # reaped here, so its pid, and with it the group id, cannot have been reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
            wall = time.monotonic() - start
            drain(streams, DRAIN_AFTER_EXIT_S)
            os.close(out_r)
            os.close(err_r)
        if after_kill is not None:
            after_kill()
        return ProcessRun(rc, timed_out, wall, stdout.text(), stderr.text())
    finally:
        cap.close(token)


def pump(
    streams: Mapping[int, StreamBuffer],
    timeout_s: float,
    done_fd: int | None,
    finished: Callable[[], bool] | None = None,
) -> bool:
    """Read the streams until ``done_fd`` becomes readable (or, without one, ``finished()`` is
    true): True; or until timeout_s passes: False."""
    deadline = time.monotonic() + timeout_s
    poller = select.poll()
    open_fds = dict(streams)
    for fd in open_fds:
        poller.register(fd, select.POLLIN)
    if done_fd is not None:
        poller.register(done_fd, select.POLLIN)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        wait_ms = math.ceil(remaining * 1000) if done_fd is not None else min(50, math.ceil(remaining * 1000))
        for fd, _event in poller.poll(wait_ms):
            if fd == done_fd:
                return True
            chunk = os.read(fd, _READ_CHUNK)
            if chunk:
                open_fds[fd].feed(chunk)
            else:
                poller.unregister(fd)
                del open_fds[fd]
        if finished is not None and finished():
            return True


def _wait_streaming(
    proc: subprocess.Popen[bytes], streams: Mapping[int, StreamBuffer], timeout_s: float
) -> bool:
    """Read the streams until proc exits (True) or timeout_s passes (False), without reaping it."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # pragma: no cover - kernels before 5.3
        return pump(streams, timeout_s, None, lambda: proc.poll() is not None)
    try:
        return pump(streams, timeout_s, pidfd)
    finally:
        os.close(pidfd)


def drain(streams: Mapping[int, StreamBuffer], budget_s: float) -> None:
    """Read what is already in the pipes; stop at EOF, when they are empty, or after budget_s
    (a process that left the group may still hold a pipe open and write to it)."""
    deadline = time.monotonic() + budget_s
    for fd, buffer in streams.items():
        os.set_blocking(fd, False)
        while time.monotonic() < deadline:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                break
            if not chunk:
                break
            buffer.feed(chunk)
