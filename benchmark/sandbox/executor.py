"""Runs generated code in a separate, limited process (DESIGN.md §3 "Execution").

Every sandbox kind shares one protocol: the candidate's code, a small stdlib-only runner
(``runner.py``) and any extra files go into a fresh input directory; the runner executes the
candidate in an empty working directory and writes its verdict to a result channel the harness passed
it as the write end of a pipe; the harness reads the verdict with a size bound, the exit status and
the tails of stdout/stderr, and deletes everything. One class per kind:

* :class:`BwrapSandbox` (``bwrap``, cold): a fresh bubblewrap sandbox per case, with every namespace
  unshared (no network, own pid namespace, so killing bwrap kills the whole tree), all capabilities
  dropped, and a filesystem built from an allowlist (:mod:`benchmark.sandbox.mounts`).
* :class:`SubprocessSandbox` (``subprocess``): the same runner with a scrubbed environment, a fresh
  working directory, rlimits, the process cap and process-group kill, capabilities dropped when the
  harness is root, but no filesystem or network isolation. It says so in ``describe()``, and the run
  says so on the terminal and in its summary.

Process control is :mod:`benchmark.sandbox.process`, outcome classification
:mod:`benchmark.sandbox.outcome`, the Python environment :mod:`benchmark.sandbox.environment`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any, Self

from benchmark.sandbox import runner as _runner
from benchmark.sandbox.core import ExecutionResult, Limits, SandboxKind
from benchmark.sandbox.environment import PythonEnvironment, sandbox_environment
from benchmark.sandbox.mounts import INPUT_DIR, SHM_BYTES, WORK_DIR, MountPlan
from benchmark.sandbox.outcome import OutcomeClassifier, infrastructure_fault, read_result, result_buffer
from benchmark.sandbox.process import (
    HeadBuffer,
    PidsCgroup,
    ProcessCap,
    ProcessRun,
    make_environment_unreadable,
    run_process,
)
from benchmark.sandbox.tmpfs import ScratchMount, inode_cap_problem, mount_privately, remove_all

# Environment variables copied from the harness when set: OpenBLAS needs them on some CPUs to start.
# Nothing else is ever passed through (API keys and tokens live in the harness's environment).
PASSTHROUGH_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_RESERVED_NAMES = frozenset({_runner.CANDIDATE_FILE, _runner.RUNNER_FILE})


def shm_files(limits: Limits) -> int:
    """The file cap of /dev/shm: a tenth of the disk's (it is 64 MB against the disk's gigabyte)."""
    return max(16, limits.disk_files // 10)


class SandboxUnavailableError(RuntimeError):
    """The requested sandbox kind cannot run on this machine."""


class ResultPipe:
    """The runner's result channel: a pipe whose write end goes to the runner and whose read end the
    harness reads into a bounded :class:`HeadBuffer` while the case runs. A pipe, not a file: what
    was written into it cannot be erased or rewritten by the candidate (see ``outcome.read_result``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.read_fd, self.write_fd = os.pipe()
        self.buffer: HeadBuffer = result_buffer(limit)

    def renew(self) -> None:
        """A fresh pipe and buffer, for a case run again after a failed attempt."""
        self.close()
        self.read_fd, self.write_fd = os.pipe()
        self.buffer = result_buffer(self.limit)

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def clean_env(python: Path, home: str, tmpdir: str) -> dict[str, str]:
    """The whole environment the candidate sees: deterministic, and free of the harness's secrets."""
    env = {
        "PATH": os.pathsep.join([str(python.parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": home,
        "TMPDIR": tmpdir,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }
    for name in PASSTHROUGH_ENV:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _remove_tree(path: Path) -> None:
    """Delete a directory even when the candidate made parts of it read-only."""

    def fix_and_retry(func: Callable[..., Any], target: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), 0o700)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, 0o700)
            func(target)

    shutil.rmtree(path, onerror=fix_and_retry)


def case_inputs(code: str, files: Mapping[str, str] | None) -> tuple[str, dict[str, str]]:
    """The candidate's source and extra files exactly as an input folder would hold them: lone
    surrogates in the code replaced, each file's relative path normalised. A file name that is not
    a relative path inside the work dir, or is a reserved name, and a file text that cannot be
    UTF-8, are the caller's error (``ValueError``)."""
    checked: dict[str, str] = {}
    for name, text in (files or {}).items():
        rel = PurePosixPath(name)
        if rel.is_absolute() or not rel.parts or ".." in rel.parts or rel.parts[0] in _RESERVED_NAMES:
            raise ValueError(f"extra file name {name!r} must be a relative path and not a reserved name")
        text.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError, as writing it would
        checked[rel.as_posix()] = text
    return code.encode("utf-8", "replace").decode("utf-8"), checked


def _write_inputs(input_dir: Path, code: str, files: Mapping[str, str]) -> None:
    (input_dir / _runner.CANDIDATE_FILE).write_text(code, encoding="utf-8")
    shutil.copyfile(_runner.__file__, input_dir / _runner.RUNNER_FILE)
    root = input_dir / _runner.FILES_DIR
    root.mkdir()
    for name, text in files.items():
        dest = root.joinpath(*PurePosixPath(name).parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")


class Sandbox(ABC):
    """Executes candidate code in one sandbox kind; stateless per run, so safe to share and reuse.

    Use :func:`create_sandbox` rather than constructing one directly: it probes bwrap first.
    """

    kind: SandboxKind

    def __init__(
        self,
        hidden_paths: Sequence[Path] = (),
        *,
        limits: Limits | None = None,
        environment: PythonEnvironment | None = None,
        cap: ProcessCap | None = None,
        fallback_reason: str | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.environment = environment or sandbox_environment()
        self.cap = cap if cap is not None else PidsCgroup.find()
        self.fallback_reason = fallback_reason
        self.hidden = sorted({Path(os.path.realpath(os.path.abspath(p))) for p in hidden_paths})
        self._tracked = threading.local()

    # ------------------------------------------------------------------ public API

    def describe(self) -> dict[str, object]:
        """The sandbox as the run manifest records it."""
        info: dict[str, object] = {
            "kind": str(self.kind),
            "python": str(self.environment.python),
            "python_version": sys.version.split()[0],
            "python_environment": self.environment.describe(),
            "limits": self.limits.as_dict(),
            "process_cap": self.cap.describe(),
            "environment": sorted(clean_env(self.environment.python, "-", "-")),
        }
        if self.fallback_reason:
            info["fallback_reason"] = self.fallback_reason
        return info

    def run_solve(self, code: str, limits: Limits | None = None) -> ExecutionResult:
        """Stage-1 contract: execute ``code`` as a module, call its top-level no-argument ``solve()``,
        and require a JSON-serializable dict (see ``runner.py`` for the coercions)."""
        return self._execute(code, limits or self.limits, "solve", None)

    def run_script(
        self, code: str, limits: Limits | None = None, files: Mapping[str, str] | None = None
    ) -> ExecutionResult:
        """Execute ``code`` as ``__main__`` and capture what it prints; ``value`` is always None.

        ``files`` are extra text files (relative path → content) put into the working directory.
        A script ending in ``sys.exit(0)`` is OK; a non-zero exit status is a runtime error.
        """
        return self._execute(code, limits or self.limits, "script", files)

    @contextlib.contextmanager
    def tracking(self) -> Iterator[list[SandboxKind]]:
        """The kinds this thread's executions ran in while the block runs, one per execution: what a
        case record names, since a warm pool runs a case cold while its server starts or after
        its server died."""
        used: list[SandboxKind] = []
        previous = getattr(self._tracked, "used", None)
        self._tracked.used = used
        try:
            yield used
        finally:
            self._tracked.used = previous

    def close(self) -> None:  # noqa: B027 - deliberately a no-op unless overridden
        """Stop what the sandbox keeps running between cases (the warm pool's servers); later cases
        still run, without it. Nothing to stop for a sandbox that starts a process per case."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind.value!r})"

    # ------------------------------------------------------------------ execution

    @property
    @abstractmethod
    def _classifier(self) -> OutcomeClassifier: ...

    @abstractmethod
    def _launch(self, input_dir: Path, mode: str, limits: Limits, result: ResultPipe) -> ProcessRun:
        """Run the runner on input_dir, passing it the result pipe's write end and reading the
        read end into ``result.buffer``."""

    def _runner_argv(self, input_dir: str, mode: str, limits: Limits, result: ResultPipe) -> list[str]:
        """The runner's command line; file descriptors keep their numbers in the child."""
        runner = f"{input_dir}/{_runner.RUNNER_FILE}"
        fd, limit = str(result.write_fd), str(limits.result_bytes)
        return [str(self.environment.python), "-s", runner, mode, input_dir, fd, limit]

    def _run_case(
        self, source: str, files: dict[str, str], mode: str, limits: Limits, result: ResultPipe
    ) -> ProcessRun:
        """Write the case's input folder, launch the runner on it and delete the folder (the warm
        pool sends the source and files to its server instead, ``pool.py``)."""
        input_dir = Path(tempfile.mkdtemp(prefix="optbench-in-"))
        try:
            _write_inputs(input_dir, source, files)
            return self._launch(input_dir, mode, limits, result)
        finally:
            _remove_tree(input_dir)

    def _execute(
        self, code: str, limits: Limits, mode: str, files: Mapping[str, str] | None
    ) -> ExecutionResult:
        source, texts = case_inputs(code, files)
        try:
            result = ResultPipe(limits.result_bytes)
            try:
                run = self._run_case(source, texts, mode, limits, result)
            finally:
                result.close()
            started, verdict = read_result(result.buffer, limits.result_bytes)
            executed = self._classifier.classify(mode, run, started, verdict, limits)
        except (OSError, subprocess.SubprocessError) as exc:  # the latter: the child's setup failed
            executed = infrastructure_fault(self.kind, exc)
        used = getattr(self._tracked, "used", None)
        if used is not None:
            used.append(executed.sandbox)
        return executed


class SubprocessSandbox(Sandbox):
    """A plain, limited subprocess: no filesystem or network isolation (the honest fallback)."""

    kind = SandboxKind.SUBPROCESS

    def __init__(self, hidden_paths: Sequence[Path] = (), **kwargs: Any) -> None:
        super().__init__(hidden_paths, **kwargs)
        # Children with their capabilities dropped cannot read a non-dumpable parent's
        # /proc/<pid>/environ, where the harness's API keys live.
        self.parent_environ_protected = make_environment_unreadable()

    @property
    def _classifier(self) -> OutcomeClassifier:
        return OutcomeClassifier(self.kind, "the Python interpreter")

    def describe(self) -> dict[str, object]:
        info = super().describe()
        info.update(
            {
                "filesystem_isolated": False,
                "network_isolated": False,
                "capabilities_dropped": os.geteuid() == 0,
                "parent_environ_readable": not self.parent_environ_protected,
                "note": (
                    "NOT isolated: plain subprocess. Generated code can read and write anything this "
                    "user can (including fixtures and ground truth) and can use the network; only the "
                    "scrubbed environment, a fresh working directory, rlimits, the process cap and the "
                    "wall-clock process-group kill apply. The pytest worker's /proc/<pid>/environ is "
                    "protected (non-dumpable) where the OS allows; other processes of this user are not."
                ),
            }
        )
        return info

    def _launch(self, input_dir: Path, mode: str, limits: Limits, result: ResultPipe) -> ProcessRun:
        workdir = Path(tempfile.mkdtemp(prefix="optbench-sbx-"))
        try:
            (workdir / ".tmp").mkdir()
            env = clean_env(self.environment.python, str(workdir), str(workdir / ".tmp"))
            return run_process(
                self._runner_argv(str(input_dir), mode, limits, result),
                env=env,
                cwd=str(workdir),
                limits=limits,
                cap=self.cap,
                pass_fds=(result.write_fd,),
                die_with_parent=True,
                drop_capabilities=os.geteuid() == 0,
                result=(result.read_fd, result.buffer),
            )
        finally:
            _remove_tree(workdir)


class BwrapSandbox(Sandbox):
    """A fresh bubblewrap sandbox per case (``--sandbox cold``)."""

    kind = SandboxKind.BWRAP

    def __init__(self, hidden_paths: Sequence[Path] = (), *, bwrap: str, **kwargs: Any) -> None:
        super().__init__(hidden_paths, **kwargs)
        self.bwrap = bwrap
        self.bwrap_version = self._read_bwrap_version(bwrap)
        self.mounts = MountPlan(self.environment, self.hidden, self.limits.disk_mb * 1024 * 1024)

    @staticmethod
    def _read_bwrap_version(bwrap: str) -> str:
        try:
            proc = subprocess.run(
                [bwrap, "--version"], capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailableError(f"cannot run {bwrap} --version: {exc}") from exc
        return proc.stdout.strip().split()[-1] if proc.stdout.strip() else "unknown"

    @property
    def _classifier(self) -> OutcomeClassifier:
        return OutcomeClassifier(self.kind, "bwrap")

    def describe(self) -> dict[str, object]:
        info = super().describe()
        info.update(
            {
                "bwrap_path": self.bwrap,
                "bwrap_version": self.bwrap_version,
                "filesystem_isolated": True,
                "network_isolated": True,
                "filesystem": self.mounts.describe(),
                "disk_files_cap": inode_cap_problem()
                or (
                    f"/tmp holds at most {self.limits.disk_files} files and folders, /dev/shm "
                    f"{shm_files(self.limits)} (tmpfs with nr_inodes in the sandbox's mount namespace)"
                ),
                "hidden_paths": [str(p) for p in self.hidden],
                "workdir_in_sandbox": WORK_DIR,
                "isolation": (
                    "all namespaces unshared (user, pid, net, ipc, uts, cgroup), capabilities dropped, "
                    "filesystem built from an allowlist (system libraries, the sandbox's Python "
                    "environment, the case's read-only inputs), size-capped tmpfs /tmp as the only "
                    "writable disk"
                ),
            }
        )
        return info

    def scratch(self, limits: Limits) -> dict[str, ScratchMount]:
        """Folders and tmpfs options with the case's size and file caps, for /tmp and /dev/shm, or
        none where this harness cannot mount them (bwrap's own tmpfs then, without a file cap)."""
        if inode_cap_problem() is not None:
            return {}
        return {
            "/tmp": ScratchMount(limits.disk_mb * 1024 * 1024, limits.disk_files),
            "/dev/shm": ScratchMount(SHM_BYTES, shm_files(limits)),
        }

    def bwrap_argv(
        self, input_dir: Path, limits: Limits, info_fd: int, scratch: Mapping[str, ScratchMount] | None = None
    ) -> list[str]:
        """bwrap's own arguments, up to and including the ``--`` before the command."""
        mounts = self.mounts
        if limits.disk_mb != self.limits.disk_mb:
            mounts = MountPlan(self.environment, self.hidden, limits.disk_mb * 1024 * 1024)
        argv = [
            self.bwrap,
            *mounts.args(input_dir, {where: fs.path for where, fs in (scratch or {}).items()}),
            "--chdir", WORK_DIR,
            "--unshare-all",
            "--hostname", "sandbox",
            "--die-with-parent",
            "--new-session",
            "--cap-drop", "ALL",
            "--info-fd", str(info_fd),
            "--clearenv",
        ]  # fmt: skip
        for name, value in clean_env(self.environment.python, WORK_DIR, "/tmp").items():
            argv += ["--setenv", name, value]
        return [*argv, "--"]

    def _launch(self, input_dir: Path, mode: str, limits: Limits, result: ResultPipe) -> ProcessRun:
        scratch = self.scratch(limits)
        try:
            with tempfile.TemporaryFile() as info:
                argv = [
                    *self.bwrap_argv(input_dir, limits, info.fileno(), scratch),
                    *self._runner_argv(INPUT_DIR, mode, limits, result),
                ]
                run = run_process(
                    argv,
                    env={"PATH": "/usr/bin:/bin"},
                    cwd="/",
                    limits=limits,
                    cap=self.cap,
                    pass_fds=(info.fileno(), result.write_fd),
                    die_with_parent=False,
                    after_kill=lambda: _await_namespace_exit(info),
                    launcher_tasks=2,
                    result=(result.read_fd, result.buffer),
                    before_exec=mount_privately(scratch),
                )
        finally:
            remove_all(scratch)
        # bwrap exits with 128 + signum when the sandboxed process is killed by a signal.
        if run.returncode > 128:
            run = dataclasses.replace(run, returncode=128 - run.returncode)
        return run


def _process_gone(pid: int) -> bool:
    """True when pid no longer runs (absent or a zombie nobody reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # Field 3, after the parenthesised command name (which may itself contain spaces or parens).
    state = stat.rsplit(")", 1)[-1].split()[:1]
    return state == ["Z"] or state == ["X"]


def _await_namespace_exit(info: IO[bytes], timeout_s: float = 5.0) -> None:
    """Wait until the sandbox's init process (and with it its pid namespace) is gone."""
    info.seek(0)
    try:
        pid = int(json.loads(info.read().decode() or "{}").get("child-pid", 0))
    except (ValueError, AttributeError):
        return
    if pid <= 0:
        return
    try:
        own_namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return
    deadline = time.monotonic() + timeout_s
    while not _process_gone(pid) and time.monotonic() < deadline:
        try:
            if os.readlink(f"/proc/{pid}/ns/pid") == own_namespace:
                return  # the pid was reused by an unrelated process: ours is gone
        except OSError:
            return
        time.sleep(0.001)
