"""The warm execution pool (``--sandbox warm``): long-lived bwrap sandboxes with the solver stack
already imported, each forking a fresh child per case (see ``pool_server.py`` for what happens
inside, and why isolation between cases equals a cold sandbox's).

A :class:`PoolSandbox` keeps idle servers and starts one more, in the background, when all are busy
(a pytest worker runs one case at a time, so normally there is one). A case that finds no idle
server runs in a cold sandbox instead of waiting: the first cases of a run overlap the seconds the
server spends importing the stack. Each server runs in its own pids cgroup, whose cap is set per
case to the server's own tasks plus ``Limits.processes``. When a server dies during a case (the
candidate killed it, say) or stops answering, it is discarded and the case is re-run in a cold
sandbox, so it is never lost; a server that cannot start at all makes every case run cold, and
``describe()`` says why.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from benchmark.sandbox import pool_server as _server
from benchmark.sandbox import runner as _runner
from benchmark.sandbox.core import Limits, SandboxKind
from benchmark.sandbox.environment import solver_stack
from benchmark.sandbox.executor import BwrapSandbox, ResultPipe, clean_env
from benchmark.sandbox.mounts import INPUT_DIR, WORK_DIR
from benchmark.sandbox.outcome import OutcomeClassifier
from benchmark.sandbox.process import (
    DRAIN_AFTER_EXIT_S,
    ProcessRun,
    StreamBuffer,
    TailBuffer,
    child_setup,
    drain,
    pump,
)
from benchmark.sandbox.tmpfs import ScratchMount, mount_privately, remove_all

#: Submodules the reference solvers and typical generated code import, on top of the stack's packages.
PRELOAD_SUBMODULES = (
    "scipy.optimize",
    "scipy.integrate",
    "scipy.sparse",
    "scipy.sparse.csgraph",
    "ortools.linear_solver.pywraplp",
    "ortools.sat.python.cp_model",
    "ortools.graph.python.max_flow",
    "ortools.graph.python.min_cost_flow",
)
SERVER_FILE = "pool_server.py"
_START_TIMEOUT_S = 300.0
_ANSWER_MARGIN_S = 30.0
_CLOSE_WAIT_S = 10.0  # for a server killed while it started to be cleaned up
_LAUNCHER_TASKS = 2  # bwrap and its init


class PoolDiedError(RuntimeError):
    """The pool server exited or stopped answering."""


def _task_status(tid: int) -> tuple[str, int, int, int] | None:
    """(state, host thread-group id, its id in the innermost pid namespace, host parent pid)."""
    try:
        text = Path(f"/proc/{tid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    try:
        state, tgid, ppid = fields["State"].split()[0], int(fields["Tgid"]), int(fields["PPid"])
        return state, tgid, int(fields["NStgid"].split()[-1]), ppid
    except (KeyError, IndexError, ValueError):
        return None


class _Server:
    """One warm server: a bwrap process tree and the socket to talk to it."""

    def __init__(self, owner: PoolSandbox) -> None:
        self.cap = owner.cap
        self.python = owner.environment.python
        self.dir = Path(tempfile.mkdtemp(prefix="optbench-pool-"))
        self.token: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.server_pid = 0  # the server's pid in the sandbox's namespace
        self.scratch: dict[str, ScratchMount] = {}
        self.tainted = False  # the server's own sweep after a case did not finish: serve no more
        try:
            shutil.copyfile(_server.__file__, self.dir / SERVER_FILE)
            shutil.copyfile(_runner.__file__, self.dir / _runner.RUNNER_FILE)
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock = ours
            self.log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
            self.token = self.cap.open(owner.limits.processes + 64)
            self.scratch = owner.scratch(owner.limits)
            with tempfile.TemporaryFile() as info:
                modules = ",".join([*(p.import_name for p in solver_stack()), *PRELOAD_SUBMODULES])
                argv = [
                    *owner.bwrap_argv(self.dir, owner.limits, info.fileno(), self.scratch),
                    str(owner.environment.python), "-s", f"{INPUT_DIR}/{SERVER_FILE}",
                    str(theirs.fileno()), modules,
                ]  # fmt: skip
                self.proc = subprocess.Popen(
                    argv,
                    env={"PATH": "/usr/bin:/bin"},
                    cwd="/",
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=self.log,
                    start_new_session=True,
                    pass_fds=(theirs.fileno(), info.fileno()),
                    preexec_fn=child_setup(
                        None,
                        cgroup_procs=self.token,
                        die_with_parent=False,
                        drop_capabilities=False,
                        before_exec=mount_privately(self.scratch),
                    ),
                )
            theirs.close()
        except BaseException:
            self.close()
            raise

    def wait_ready(self) -> None:
        """Block until the server has imported the stack (it is closed if it never gets there)."""
        try:
            ready = self._answer(_START_TIMEOUT_S, {})
            if not ready.get("ready"):
                raise PoolDiedError(f"pool server did not start: {ready!r}")
            self.tasks = int(ready["tasks"]) + _LAUNCHER_TASKS
            self.server_pid = int(ready["pid"])
            self.preloaded = list(ready.get("preloaded", []))
            self.failed = list(ready.get("failed", []))
            remove_all(self.scratch)  # bwrap has bound the tmpfs folders: they are needed no more
        except BaseException:
            self.close()
            raise

    def kill(self) -> None:
        """Kill the server's process tree; whoever waits on it sees it die and closes it."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def foreign_tasks(self) -> list[int] | None:
        """Host ids of the running tasks in the server's cgroup that are not bwrap, its init (pid 1
        of the sandbox), the server, or a child of the server (its spare: a case's own process is
        reaped before the server answers): evidence from outside the sandbox that a case left
        something behind. None where no cgroup records the tasks."""
        tids = self.cap.tasks(self.token)
        if tids is None or self.proc is None:
            return None
        statuses = [(tid, status) for tid in tids if (status := _task_status(tid)) is not None]
        server = {tgid for _tid, (_state, tgid, ns_tgid, _ppid) in statuses if ns_tgid == self.server_pid}
        foreign = []
        for tid, (state, tgid, ns_tgid, ppid) in statuses:
            if state in ("Z", "X") or tgid == self.proc.pid or ns_tgid in (1, self.server_pid):
                continue
            if ppid in server:
                continue
            foreign.append(tid)
        return foreign

    def _answer(self, timeout_s: float, streams: dict[int, StreamBuffer]) -> dict[str, Any]:
        if not pump(streams, timeout_s, self.sock.fileno()):
            raise PoolDiedError(f"pool server gave no answer within {timeout_s:g} s")
        try:
            message, fds = _server.receive_message(self.sock, 1 << 20)
        except (OSError, EOFError, ValueError) as exc:
            raise PoolDiedError(f"pool server connection broke: {exc!r}") from exc
        for fd in fds:
            os.close(fd)
        if message is None:
            raise PoolDiedError(f"pool server exited{self._log_tail()}")
        return message

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            self.log.seek(0)
            text = self.log.read()[-2000:].decode("utf-8", "replace").strip()
            return f": {text}" if text else ""
        return ""

    def run(
        self, mode: str, source: str, files: dict[str, str], limits: Limits, result: ResultPipe
    ) -> ProcessRun:
        self.cap.resize(self.token, self.tasks + limits.processes)
        request = {
            "mode": mode,
            "source": source,
            "files": files,
            "env": clean_env(self.python, WORK_DIR, "/tmp"),
            "wall_timeout_s": limits.wall_timeout_s,
            "result_bytes": limits.result_bytes,
            "limits": {
                "memory": limits.memory_mb * 1024 * 1024,
                "cpu": limits.effective_cpu_s,
                "fsize": limits.file_bytes,
            },
        }
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        out, err = TailBuffer(limits.output_bytes), TailBuffer(limits.output_bytes)
        streams: dict[int, StreamBuffer] = {out_r: out, err_r: err, result.read_fd: result.buffer}
        try:
            try:
                _server.send_message(self.sock, request, [out_w, err_w, result.write_fd])
            except OSError as exc:
                raise PoolDiedError(f"pool server unreachable: {exc!r}") from exc
            finally:
                os.close(out_w)
                os.close(err_w)
            answer = self._answer(limits.wall_timeout_s + _ANSWER_MARGIN_S, streams)
            drain(streams, DRAIN_AFTER_EXIT_S)
        finally:
            os.close(out_r)
            os.close(err_r)
        if "returncode" not in answer:
            raise PoolDiedError(f"pool server refused the case: {answer!r}")
        self.tasks = int(answer["tasks"]) + _LAUNCHER_TASKS
        if not answer.get("swept", False) or self.foreign_tasks():
            # Something of the case may still run: its own result stands (it ran to its end), but
            # the server serves no other case; it is discarded with everything in its cgroup.
            self.tainted = True
        return ProcessRun(int(answer["returncode"]), bool(answer["timed_out"]), float(answer["wall_s"]),
                          out.text(), err.text())  # fmt: skip

    def close(self) -> None:
        self.kill()
        if self.proc is not None:
            self.proc.wait()
        with contextlib.suppress(AttributeError, OSError):
            self.sock.close()
        self.cap.close(self.token)
        self.token = None
        remove_all(self.scratch)
        shutil.rmtree(self.dir, ignore_errors=True)


class PoolSandbox(BwrapSandbox):
    """bwrap with warm, forking interpreters (``--sandbox warm``)."""

    kind = SandboxKind.POOL

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._idle: list[_Server] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._starting: _Server | None = None
        self._starter: threading.Thread | None = None
        self._wanted = False
        self._closed = False
        self.unavailable: str | None = None
        self.restarts = 0
        atexit.register(self.close)

    @property
    def _classifier(self) -> OutcomeClassifier:
        return OutcomeClassifier(self.kind, "the warm pool")

    def describe(self) -> dict[str, object]:
        info = super().describe()
        info["isolation"] = (
            f"{info['isolation']}; warm pool: each case is a fresh fork of a sandboxed server with the "
            "solver stack imported, in a new session, empty /tmp and work dir, every other process of "
            "the sandbox killed after the case; a dead server is replaced and its case re-run cold; "
            "while a server starts, cases run in cold sandboxes"
        )
        info["warm_pool"] = {
            "preload": [*(p.import_name for p in solver_stack()), *PRELOAD_SUBMODULES],
            "memory_note": "the address-space cap includes the preloaded stack (about 0.6 GB)",
            "unavailable": self.unavailable,
        }
        return info

    def _acquire(self) -> _Server | None:
        """An idle server, or None (the case then runs cold) after making sure one is starting."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
            self._want_server()
        return None

    def _want_server(self) -> None:
        """Ask the starter thread for one more server unless one is on its way (lock held)."""
        if self._wanted or self.unavailable is not None or self._closed:
            return
        self._wanted = True
        if self._starter is None:
            # One long-lived thread spawns every server: bwrap's --die-with-parent follows the thread
            # that started it, so a thread that ended would take its server down with it.
            self._starter = threading.Thread(target=self._start_servers, name="optbench-pool", daemon=True)
            self._starter.start()
        self._changed.notify_all()

    def _start_servers(self) -> None:
        while True:
            with self._lock:
                self._changed.wait_for(lambda: self._wanted or self._closed)
                if self._closed:
                    return
            server: _Server | None = None
            problem: str | None = None
            try:
                server = _Server(self)
                with self._lock:
                    self._starting = server
                    if self._closed:
                        server.kill()
                server.wait_ready()
            except (OSError, subprocess.SubprocessError, PoolDiedError) as exc:
                problem, server = f"pool server could not start: {exc}", None
            with self._lock:
                self._starting, self._wanted = None, False
                if server is not None and not self._closed:
                    self._idle.append(server)
                    server = None
                elif problem is not None and not self._closed:
                    self.unavailable = problem
                self._changed.notify_all()
            if server is not None:  # the pool was closed while it started
                server.close()

    def wait_until_warm(self, timeout_s: float = _START_TIMEOUT_S) -> bool:
        """Wait until a server is idle (True) or none can start (False), starting one if need be:
        for callers that need the next case to run warm, such as the isolation tests."""
        with self._lock:
            if not self._idle:
                self._want_server()
            self._changed.wait_for(lambda: bool(self._idle) or not self._wanted, timeout_s)
            return bool(self._idle)

    def _run_case(
        self, source: str, files: dict[str, str], mode: str, limits: Limits, result: ResultPipe
    ) -> ProcessRun:
        """The case on an idle server, its source and files sent in the request (no input folder to
        write, read back and delete: that cost milliseconds per case); else, or when the server
        died under it, in a cold sandbox."""
        # A server's /tmp tmpfs was sized when it started: a case asking for other disk caps runs cold.
        same_disk = (limits.disk_mb, limits.disk_files) == (self.limits.disk_mb, self.limits.disk_files)
        server = self._acquire() if same_disk else None
        if server is not None:
            try:
                run = server.run(mode, source, files, limits, result)
            except PoolDiedError:
                server.close()
                with self._lock:
                    self.restarts += 1
            else:
                if server.tainted:
                    server.close()
                    with self._lock:
                        self.restarts += 1
                else:
                    with self._lock:
                        self._idle.append(server)
                return run
            result.renew()
        cold = super()._run_case(source, files, mode, limits, result)
        return dataclasses.replace(cold, kind=SandboxKind.BWRAP)

    def close(self) -> None:
        """Stop every server, a starting one included (also registered to run at interpreter exit)."""
        atexit.unregister(self.close)
        with self._lock:
            self._closed = True
            self._changed.notify_all()
            servers, self._idle = self._idle, []
            starting, starter = self._starting, self._starter
        if starting is not None:
            starting.kill()
        if starter is not None:
            starter.join(_CLOSE_WAIT_S)
        for server in servers:
            server.close()
