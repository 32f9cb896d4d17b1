"""Warm pool server: a long-lived interpreter inside one bwrap sandbox that forks a child per case.

Started by the harness (``benchmark.sandbox.pool``) as ``python -s pool_server.py SOCKET_FD MODULES``
with the solver stack already imported, it answers one request at a time on a Unix socket: the
request carries the case's code, extra files and limits as JSON, and its stdout, stderr and result
file as passed file descriptors. The server keeps one *spare*: a child forked from the clean server
(``/tmp`` and ``/dev/shm`` emptied, a fresh work directory, nothing else running) that waits for
its case, so that the fork, which costs tens of milliseconds for a process with the stack loaded,
happens while the harness scores the previous case instead of on the case's own clock. Per case

1. the server hands the request and descriptors to the spare, which starts a new session, takes
   the case's descriptors, rlimits and scrubbed environment, reseeds NumPy's global generator
   (``random`` reseeds itself at fork), and runs the runner on the candidate, exactly as a cold
   sandbox's runner would,
2. the server waits for it up to the wall timeout, then kills every process in the sandbox's pid
   namespace other than bwrap's init and itself (daemons included, and a process whose main thread
   ended while its other threads run) and reports how the child ended,
3. only then, with nothing of the case left running, it empties the scratch directories again,
   removes the SysV IPC objects of the sandbox's IPC namespace and forks the next spare. On the
   answer the harness checks, from outside, that the server's cgroup holds nothing but bwrap, its
   init, the server and the server's children (the spare); a server that fails it, or whose sweep
   did not finish, serves no other case (``pool.py``).

Whatever the candidate changes in its own process (modules in ``sys.modules``, environment,
cwd, signal handlers) dies with the child; the server is non-dumpable and, with capabilities
dropped, cannot be ptraced or have its memory read by the children. A child can still kill the
server: the harness notices the closed socket, replaces the pool and re-runs the case cold.
It must use the standard library only (plus the preloaded modules, whose import may fail).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import os
import resource
import select
import shutil
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

_HEADER = struct.Struct("!Q")
_MAX_FDS = 3
_PR_SET_DUMPABLE = 4
_IPC_RMID = 0
WORK_DIR = "/tmp/sandbox"
RUNNER_MODULE = "_optbench_runner"
#: Emptied between cases: the disk, POSIX shared memory and POSIX message queues.
SCRATCH = ("/tmp", "/dev/shm", "/dev/mqueue")


def send_message(sock: socket.socket, payload: dict[str, Any], fds: list[int] | None = None) -> None:
    """One length-prefixed JSON message, with file descriptors attached to its first byte."""
    data = json.dumps(payload).encode()
    blob = _HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [blob[:1]], fds or [])
    sock.sendall(blob[sent:])


def receive_message(sock: socket.socket, limit: int) -> tuple[dict[str, Any] | None, list[int]]:
    """(message, descriptors) or (None, []) at end of stream. Messages over limit are refused."""
    first, fds, _flags, _addr = socket.recv_fds(sock, 1, _MAX_FDS)
    if not first:
        return None, list(fds)
    rest = _recv_exact(sock, _HEADER.size - 1)
    (size,) = _HEADER.unpack(first + rest)
    if size > limit:
        raise ValueError(f"message of {size} bytes exceeds {limit}")
    return json.loads(_recv_exact(sock, size)), list(fds)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError("socket closed mid-message")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _empty_scratch() -> None:
    def fix_and_retry(func: Any, target: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), 0o700)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, 0o700)
            func(target)

    for root in SCRATCH:
        with contextlib.suppress(OSError):
            os.chmod(root, 0o1777)
        for name in os.listdir(root) if os.path.isdir(root) else ():
            path = os.path.join(root, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, onerror=fix_and_retry)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)
    _remove_ipc_objects()
    os.mkdir(WORK_DIR)


def _alive(pid: int) -> bool:
    """True while any thread of pid runs. A process whose main thread ended (a raw ``exit``
    syscall) shows as a zombie while its other threads go on, so the leader's state is not enough."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[-1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            return True
    return False


def _sweep() -> bool:
    """Kill every process of the sandbox except init (pid 1) and this server, reap our own, and
    say whether none is left running."""
    me = os.getpid()
    deadline = time.monotonic() + 10
    while True:
        others = [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in (1, me)]
        others = [pid for pid in others if _alive(pid)]
        for pid in others:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        if not others:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)


def _remove_ipc_objects() -> None:
    """Remove every SysV shared memory segment, message queue and semaphore set of the sandbox's
    IPC namespace (the cases share it; ``/tmp`` and ``/dev/shm`` are emptied separately)."""
    libc = ctypes.CDLL(None, use_errno=True)
    removers: tuple[tuple[str, Callable[[int], int]], ...] = (
        ("shm", lambda ident: libc.shmctl(ident, _IPC_RMID, None)),
        ("msg", lambda ident: libc.msgctl(ident, _IPC_RMID, None)),
        ("sem", lambda ident: libc.semctl(ident, 0, _IPC_RMID)),
    )
    for table, remove in removers:
        try:
            with open(f"/proc/sysvipc/{table}") as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit():
                remove(int(fields[1]))


def _child(request: dict[str, Any], fds: list[int], runner: Any) -> None:
    """In the spare, once its case came: become a fresh case process and run the candidate (never
    returns)."""
    try:
        os.setsid()
        stdout_fd, stderr_fd, result_fd = fds
        os.dup2(stdout_fd, 1)
        os.dup2(stderr_fd, 2)
        for fd in (stdout_fd, stderr_fd):
            os.close(fd)
        limits = request["limits"]
        resource.setrlimit(resource.RLIMIT_AS, (limits["memory"], limits["memory"]))
        resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 2))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits["fsize"], limits["fsize"]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(WORK_DIR)
        for name, text in request["files"].items():
            target = os.path.join(WORK_DIR, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed()
        runner.run_case(request["mode"], request["source"], WORK_DIR, result_fd, request["result_bytes"])
    finally:
        os._exit(70)


class _Spare:
    """A child forked ahead of its case from the clean server; it waits on its own socket for the
    case's request and descriptors, then becomes the case process (see :func:`_child`)."""

    def __init__(self, harness: socket.socket, runner: Any) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                harness.close()
                ours.close()
                request, fds = receive_message(theirs, 1 << 30)
                theirs.close()
            except BaseException:
                os._exit(70)
            if request is None or len(fds) != _MAX_FDS:
                os._exit(70)
            _child(request, fds, runner)
        theirs.close()
        self.sock = ours

    def start(self, request: dict[str, Any], fds: list[int]) -> bool:
        """Give the spare its case; False when it is gone (it is then reaped)."""
        try:
            send_message(self.sock, request, fds)
        except OSError:
            self.discard()
            return False
        self.sock.close()
        return True

    def discard(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        self.sock.close()


def _serve_one(
    harness: socket.socket, spare: _Spare, request: dict[str, Any], fds: list[int], runner: Any
) -> dict[str, Any]:
    start = time.monotonic()
    while not spare.start(request, fds):
        spare = _Spare(harness, runner)
    pid = spare.pid
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    timed_out = not select.select([pidfd], [], [], request["wall_timeout_s"])[0]
    os.close(pidfd)
    if timed_out:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    wall = time.monotonic() - start
    swept = _sweep()
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return {"returncode": code, "timed_out": timed_out, "wall_s": wall, "tasks": _tasks(), "swept": swept}


def _tasks() -> int:
    """This server's threads, counted after a fork: OpenBLAS stops its thread pool when the process
    forks, so the count before the first fork overstates what the next case shares the cap with."""
    return len(os.listdir("/proc/self/task"))


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    preloaded, failed = [], []
    for name in sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else ():
        try:
            importlib.import_module(name)
            preloaded.append(name)
        except Exception:  # a broken optional package must not take the pool down
            failed.append(name)
    runner = importlib.import_module(RUNNER_MODULE)  # the in-sandbox runner, next to this file
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    # What is loaded now is shared with every child; frozen, a child's garbage collections never
    # walk (and so copy-on-write) it. The candidate's own objects are collected as usual.
    gc.freeze()
    _empty_scratch()
    spare = _Spare(sock, runner)
    ready = {"ready": True, "tasks": _tasks(), "preloaded": preloaded, "failed": failed,
             "pid": os.getpid()}  # fmt: skip
    send_message(sock, ready)
    while True:
        request, fds = receive_message(sock, 1 << 30)
        if request is None:
            spare.discard()
            return
        if len(fds) != _MAX_FDS:
            for fd in fds:
                os.close(fd)
            send_message(sock, {"error": f"expected {_MAX_FDS} descriptors, got {len(fds)}"})
            continue
        send_message(sock, _serve_one(sock, spare, request, fds, runner))
        _empty_scratch()
        spare = _Spare(sock, runner)


if __name__ == "__main__":
    main()
