"""Runs generated code in a separate, limited process (DESIGN.md §3 "Execution").

Two kinds of sandbox share one protocol: the candidate's code and a small stdlib-only runner
(``runner.py``) are written to a fresh temporary work directory; the runner compiles and executes the
candidate and writes a JSON verdict there; the harness reads the verdict, the exit status and the
tails of stdout/stderr, and deletes the directory.

* ``BWRAP``: bubblewrap with every namespace unshared (no network, own pid namespace, so killing
  bwrap kills the whole tree), all capabilities dropped, a read-only view of ``/``, an empty ``/tmp``,
  and each hidden path (repository, dataset, response cache, ``$HOME``) covered by an empty read-only
  tmpfs. Only the Python installation (``sys.prefix``, ``sys.base_prefix`` and site-packages) is put
  back, read-only, so the candidate can import the solver stack but not the harness or the fixtures.
* ``SUBPROCESS``: the same runner, clean environment, fresh working directory, rlimits and
  process-group kill, but no filesystem or network isolation. ``describe()`` says so explicitly,
  and the run manifest records it.

Both kinds apply the same rlimits in the child before exec (inherited by bwrap's sandboxed
process): address space, CPU seconds, file size, and no core dumps.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import resource
import select
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

from benchmark.sandbox import runner as _runner
from benchmark.sandbox.core import ExecutionResult, Limits, Outcome, SandboxKind

# Where the work directory appears inside bwrap. It must lie in a writable parent for bwrap to create
# the mount point, and "/" is mounted read-only, so it goes under the sandbox's own /tmp tmpfs.
SANDBOX_WORKDIR = "/tmp/sandbox"

STDOUT_FILE = "_optbench_stdout.txt"
STDERR_FILE = "_optbench_stderr.txt"
TMP_SUBDIR = ".tmp"
_RESERVED_NAMES = frozenset(
    {
        _runner.CANDIDATE_FILE,
        _runner.RESULT_FILE,
        _runner.STARTED_FILE,
        _runner.RUNNER_FILE,
        _runner.RESULT_FILE + ".tmp",
        STDOUT_FILE,
        STDERR_FILE,
        TMP_SUBDIR,
    }
)
# Environment variables copied from the harness when set: OpenBLAS needs them on some CPUs to start.
# Nothing else is ever passed through (API keys and tokens live in the harness's environment).
PASSTHROUGH_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_STDERR_LINES_IN_ERROR = 15
_HIDE_TMPFS_BYTES = 1024 * 1024
_SANDBOX_TMP_MAX_BYTES = 1024 * 1024 * 1024
_PROBE_CODE = 'def solve():\n    return {"status": "ok"}\n'
_PR_SET_PDEATHSIG = 1


class SandboxUnavailableError(RuntimeError):
    """The requested sandbox kind cannot run on this machine."""


def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl, resolved before any fork so the child only has to call it."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # pragma: no cover - non-glibc platforms
        return None


_PRCTL = _load_prctl()


def _rlimit_setter(limits: Limits, *, die_with_parent: bool) -> Callable[[], None]:
    """The preexec_fn: rlimits (and parent-death signal) for the child, computed before the fork."""
    memory = limits.memory_mb * 1024 * 1024
    cpu = limits.effective_cpu_s
    fsize = limits.file_bytes
    prctl = _PRCTL if die_with_parent else None

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        # SIGXCPU at the soft limit, SIGKILL two seconds later if it is ignored.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return apply


def _clean_env(home: str, tmpdir: str) -> dict[str, str]:
    """The whole environment the candidate sees: deterministic, and free of the harness's secrets."""
    env = {
        "PATH": os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]),
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


def _tail(path: Path, limit: int) -> str:
    """The last ``limit`` bytes of a capture file as text, with a marker when bytes were dropped."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            if size > limit:
                fh.seek(size - limit)
            data = fh.read(limit)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        return f"[optbench: output truncated, first {size - limit} of {size} bytes dropped]\n{text}"
    return text


def _last_lines(text: str, n: int) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[-n:])


def _remove_tree(path: Path) -> None:
    """Delete a work directory even when the candidate made parts of it read-only."""

    def fix_and_retry(func: Callable[..., Any], target: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), 0o700)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, 0o700)
            func(target)

    shutil.rmtree(path, onerror=fix_and_retry)


def _process_gone(pid: int) -> bool:
    """True when pid no longer runs (absent or a zombie nobody reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # Field 3, after the parenthesised command name (which may itself contain spaces or parens).
    state = stat.rsplit(")", 1)[-1].split()[:1]
    return state == ["Z"] or state == ["X"]


def _wait_unreaped(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Wait up to timeout_s for proc to exit without reaping it; True when it exited."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # pragma: no cover - kernels before 5.3: reaps, small reuse race
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(math.ceil(timeout_s * 1000)))
    finally:
        os.close(pidfd)


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class Sandbox:
    """Executes candidate code in one sandbox kind; stateless per run, so safe to share and reuse.

    Use :func:`create_sandbox` rather than constructing one directly: it probes bwrap first.
    """

    def __init__(
        self,
        kind: SandboxKind,
        hidden_paths: Sequence[Path] = (),
        *,
        limits: Limits | None = None,
        bwrap: str | None = None,
        fallback_reason: str | None = None,
    ) -> None:
        self.kind = kind
        self.limits = limits or Limits()
        self.fallback_reason = fallback_reason
        self._python = sys.executable
        self._bwrap = bwrap
        self._bwrap_version: str | None = None
        self._hidden = self._resolve_hidden(hidden_paths)
        self._exposed = self._python_paths()
        if kind is SandboxKind.BWRAP:
            if not bwrap:
                raise SandboxUnavailableError("a bwrap sandbox needs the path of the bwrap executable")
            self._bwrap_version = self._read_bwrap_version(bwrap)
            self._mount_args = self._build_mount_args()

    # ------------------------------------------------------------------ configuration

    @staticmethod
    def _resolve_hidden(paths: Iterable[Path]) -> list[Path]:
        """Absolute, symlink-resolved paths to hide.

        Two are always among them: $HOME (API keys, netrc, caches) and /run, whose Unix sockets
        (docker, dbus, ...) a read-only mount does not stop anyone from connecting to.
        """
        out: list[Path] = []
        candidates = [*paths, Path("/run")]
        with contextlib.suppress(RuntimeError, KeyError):
            candidates.append(Path.home())
        for raw in candidates:
            path = Path(os.path.realpath(os.path.abspath(raw)))
            if path == Path(path.anchor):
                raise ValueError(f"cannot hide the filesystem root ({raw})")
            if path.exists() and path not in out:
                out.append(path)
        return sorted(out)

    def _python_paths(self) -> list[Path]:
        """What the interpreter needs to import the solver stack: its prefixes and site-packages."""
        raw: list[str] = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
        raw.append(os.path.dirname(os.path.realpath(self._python)))
        with contextlib.suppress(AttributeError):
            raw.extend(site.getsitepackages())
        raw.extend(p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages"))
        out: list[Path] = []
        for item in raw:
            for variant in (os.path.abspath(item), os.path.realpath(item)):
                path = Path(variant)
                # Exposing a hidden path itself would undo the hiding; a hidden folder inside an exposed
                # one is fine, because it is mounted after (see _build_mount_args).
                if path in self._hidden:
                    continue
                if path.is_dir() and path not in out:
                    out.append(path)

        def redundant(path: Path) -> bool:
            # Inside another exposed folder, with no hidden folder in between that would cover it.
            return any(
                other != path
                and _is_within(path, other)
                and not any(_is_within(path, h) and _is_within(h, other) and h != other for h in self._hidden)
                for other in out
            )

        return sorted(p for p in out if not redundant(p))

    @staticmethod
    def _read_bwrap_version(bwrap: str) -> str:
        try:
            proc = subprocess.run(
                [bwrap, "--version"], capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailableError(f"cannot run {bwrap} --version: {exc}") from exc
        return proc.stdout.strip().split()[-1] if proc.stdout.strip() else "unknown"

    def _build_mount_args(self) -> list[str]:
        """bwrap mount arguments for hiding and re-exposing; order matters, later mounts win.

        Operations run shallowest path first, a hide before an expose at the same depth, so a hidden
        folder inside an exposed one (or the reverse) ends up as intended. Hidden folders become empty
        read-only tmpfs mounts (remounted read-only once everything beneath them is mounted); hidden
        files are covered with /dev/null.
        """
        tmp = Path("/tmp")
        covered = [tmp, *[h for h in self._hidden if h.is_dir()]]
        ops: list[tuple[int, int, Path]] = []
        for path in self._hidden:
            under_cover = any(_is_within(path, c) and path != c for c in covered)
            under_exposed = any(_is_within(path, e) for e in self._exposed)
            # A folder holding an exposed path (a checkout under /tmp with its .venv) is still
            # mounted read-only, or bwrap would create it writable in the covering tmpfs.
            holds_exposed = any(_is_within(e, path) and e != path for e in self._exposed)
            if _is_within(path, tmp) and not under_exposed and not holds_exposed:
                continue  # the sandbox's empty /tmp already hides it
            if under_cover and not under_exposed and not holds_exposed:
                continue
            ops.append((len(path.parts), 0, path))
        for path in self._exposed:
            if any(_is_within(path, c) for c in covered):
                ops.append((len(path.parts), 1, path))
        args: list[str] = []
        remount: list[str] = []
        for _depth, op, path in sorted(ops):
            if op == 1:
                args += ["--ro-bind", str(path), str(path)]
            elif path.is_dir():
                args += ["--size", str(_HIDE_TMPFS_BYTES), "--tmpfs", str(path)]
                remount += ["--remount-ro", str(path)]
            else:
                args += ["--ro-bind", "/dev/null", str(path)]
        return args + remount

    # ------------------------------------------------------------------ public API

    def describe(self) -> dict[str, object]:
        """The sandbox as the run manifest records it."""
        info: dict[str, object] = {
            "kind": str(self.kind),
            "python": self._python,
            "python_version": sys.version.split()[0],
            "limits": self.limits.as_dict(),
            "environment": sorted(_clean_env("-", "-")),
        }
        if self.kind is SandboxKind.BWRAP:
            info.update(
                {
                    "bwrap_path": self._bwrap,
                    "bwrap_version": self._bwrap_version,
                    "filesystem_isolated": True,
                    "network_isolated": True,
                    "hidden_paths": [str(p) for p in self._hidden],
                    "exposed_read_only": [str(p) for p in self._exposed],
                    "workdir_in_sandbox": SANDBOX_WORKDIR,
                    "isolation": (
                        "all namespaces unshared (user, pid, net, ipc, uts, cgroup), capabilities dropped, "
                        "/ read-only, fresh /tmp and /dev, hidden paths covered by empty read-only tmpfs; "
                        "only the Python installation is re-exposed read-only"
                    ),
                }
            )
        else:
            info.update(
                {
                    "filesystem_isolated": False,
                    "network_isolated": False,
                    "hidden_paths": [],
                    "note": (
                        "NOT isolated: plain subprocess. Generated code can read and write anything this "
                        "user can (including fixtures, ground truth and, through /proc, the harness's own "
                        "environment with its API keys) and can use the network; only the "
                        "clean environment, a fresh working directory, rlimits and the wall-clock "
                        "process-group kill apply."
                    ),
                }
            )
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

    def __repr__(self) -> str:
        return f"Sandbox(kind={self.kind.value!r}, hidden={[str(p) for p in self._hidden]!r})"

    # ------------------------------------------------------------------ execution

    def _command(
        self, workdir: Path, mode: str, limits: Limits, info_fd: int | None
    ) -> tuple[list[str], Path]:
        """(argv, cwd) for one run."""
        if self.kind is SandboxKind.SUBPROCESS:
            return [self._python, "-s", str(workdir / _runner.RUNNER_FILE), mode], workdir
        assert self._bwrap is not None
        env = _clean_env(SANDBOX_WORKDIR, f"{SANDBOX_WORKDIR}/{TMP_SUBDIR}")
        tmp_size = min(limits.file_bytes, _SANDBOX_TMP_MAX_BYTES)
        argv = [
            self._bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--size", str(tmp_size), "--tmpfs", "/tmp",
            *self._mount_args,
            "--bind", str(workdir), SANDBOX_WORKDIR,
            "--chdir", SANDBOX_WORKDIR,
            "--unshare-all",
            "--hostname", "sandbox",
            "--die-with-parent",
            "--new-session",
            "--cap-drop", "ALL",
        ]  # fmt: skip
        if info_fd is not None:
            argv += ["--info-fd", str(info_fd)]
        argv.append("--clearenv")
        for name, value in env.items():
            argv += ["--setenv", name, value]
        argv += ["--", self._python, "-s", f"{SANDBOX_WORKDIR}/{_runner.RUNNER_FILE}", mode]
        return argv, workdir

    @staticmethod
    def _prepare(workdir: Path, code: str, files: Mapping[str, str] | None) -> None:
        (workdir / _runner.CANDIDATE_FILE).write_text(code, encoding="utf-8", errors="replace")
        shutil.copyfile(_runner.__file__, workdir / _runner.RUNNER_FILE)
        (workdir / TMP_SUBDIR).mkdir()
        for name, text in (files or {}).items():
            rel = PurePosixPath(name)
            if rel.is_absolute() or not rel.parts or ".." in rel.parts or rel.parts[0] in _RESERVED_NAMES:
                raise ValueError(f"extra file name {name!r} must be a relative path and not a reserved name")
            dest = workdir.joinpath(*rel.parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8")

    def _execute(
        self, code: str, limits: Limits, mode: str, files: Mapping[str, str] | None
    ) -> ExecutionResult:
        workdir = Path(tempfile.mkdtemp(prefix="optbench-sbx-"))
        try:
            self._prepare(workdir, code, files)
            with (
                (workdir / STDOUT_FILE).open("wb") as out,
                (workdir / STDERR_FILE).open("wb") as err,
                tempfile.TemporaryFile() as info,
            ):
                rc, timed_out, wall = self._spawn_and_wait(workdir, mode, limits, out, err, info)
            return self._result(workdir, mode, limits, rc, timed_out, wall)
        except (
            OSError
        ) as exc:  # disk full, executable gone, fork failed: the harness's fault, not the model's
            return ExecutionResult(
                Outcome.SANDBOX_ERROR, None, "", f"could not run the sandbox: {exc!r}", 0.0, self.kind
            )
        finally:
            _remove_tree(workdir)

    def _spawn_and_wait(
        self, workdir: Path, mode: str, limits: Limits, out: IO[bytes], err: IO[bytes], info: IO[bytes]
    ) -> tuple[int, bool, float]:
        bwrap = self.kind is SandboxKind.BWRAP
        info_fd = info.fileno() if bwrap else None
        argv, cwd = self._command(workdir, mode, limits, info_fd)
        env = _clean_env(str(workdir), str(workdir / TMP_SUBDIR))
        start = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            pass_fds=(info_fd,) if info_fd is not None else (),
            preexec_fn=_rlimit_setter(limits, die_with_parent=not bwrap),
        )
        try:
            timed_out = not _wait_unreaped(proc, limits.wall_timeout_s)
        finally:
            # Kill the process group whether or not the run finished: in subprocess mode this ends
            # anything the candidate left running; in bwrap mode it kills bwrap, whose death takes
            # the sandbox's pid namespace (and so every process in it) down. The leader is not yet
            # reaped here, so its pid, and with it the group id, cannot have been reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
        wall = time.monotonic() - start
        if bwrap:
            self._await_namespace_exit(info)
        return rc, timed_out, wall

    @staticmethod
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

    def _result(
        self, workdir: Path, mode: str, limits: Limits, rc: int, timed_out: bool, wall: float
    ) -> ExecutionResult:
        stdout = _tail(workdir / STDOUT_FILE, limits.output_bytes)
        stderr = _tail(workdir / STDERR_FILE, limits.output_bytes)

        def make(outcome: Outcome, error: str, value: dict[str, Any] | None = None) -> ExecutionResult:
            return ExecutionResult(outcome, value, stdout, error, round(wall, 4), self.kind, stderr)

        verdict = self._read_verdict(workdir / _runner.RESULT_FILE)
        if verdict is not None:
            try:
                outcome = Outcome(str(verdict.get("outcome")))
            except ValueError:
                return make(
                    Outcome.SANDBOX_ERROR, f"runner wrote an unknown outcome: {verdict.get('outcome')!r}"
                )
            if outcome is not Outcome.OK:
                return make(outcome, str(verdict.get("error") or outcome.value))
            value = verdict.get("value")
            if mode == "solve" and not isinstance(value, dict):
                return make(Outcome.OUTPUT_FORMAT, "solve() did not produce a JSON object")
            return make(Outcome.OK, "", value if mode == "solve" else None)

        stderr_tail = _last_lines(stderr, _STDERR_LINES_IN_ERROR)
        with_stderr = (lambda msg: f"{msg}\n{stderr_tail}") if stderr_tail else (lambda msg: msg)
        if timed_out:
            return make(
                Outcome.TIMEOUT,
                f"wall timeout: still running after {limits.wall_timeout_s:g} s; the process tree was killed",
            )
        if not (workdir / _runner.STARTED_FILE).exists():
            what = "bwrap" if self.kind is SandboxKind.BWRAP else "the Python interpreter"
            return make(
                Outcome.SANDBOX_ERROR, with_stderr(f"{what} failed to start the runner (exit status {rc})")
            )
        signum = -rc if rc < 0 else (rc - 128 if self.kind is SandboxKind.BWRAP and rc > 128 else 0)
        if signum == signal.SIGXCPU:
            return make(Outcome.TIMEOUT, f"CPU time limit of {limits.effective_cpu_s} s exceeded (SIGXCPU)")
        if signum:
            hints: dict[int, str] = {
                signal.SIGKILL: " (possibly the memory cap or the kernel's out-of-memory killer)",
                signal.SIGSEGV: " (a crash in native code, e.g. a solver library or too deep recursion)",
            }
            hint = hints.get(signum, "")
            return make(Outcome.RUNTIME, with_stderr(f"killed by {_signal_name(signum)}{hint}"))
        if mode == "script" and rc == 0:
            return make(Outcome.OK, "")
        return make(
            Outcome.RUNTIME,
            with_stderr(f"exited with status {rc} before reporting a result (os._exit or a native crash)"),
        )

    @staticmethod
    def _read_verdict(path: Path) -> dict[str, Any] | None:
        try:
            verdict = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return verdict if isinstance(verdict, dict) else None


def create_sandbox(
    hidden_paths: Sequence[Path], *, prefer: SandboxKind | None = None, limits: Limits | None = None
) -> Sandbox:
    """The best sandbox this machine supports.

    bwrap when the executable exists and a probe run returns the expected result; otherwise a plain
    subprocess, with the reason recorded in ``describe()["fallback_reason"]``. ``prefer`` forces a
    kind: ``SUBPROCESS`` skips the probe, ``BWRAP`` raises :class:`SandboxUnavailableError` instead of
    falling back, so a run that was promised isolation never silently loses it.
    """
    if prefer is SandboxKind.SUBPROCESS:
        return Sandbox(SandboxKind.SUBPROCESS, hidden_paths, limits=limits)
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        reason = "bwrap executable not found on PATH (Debian package: bubblewrap)"
    else:
        try:
            sandbox = Sandbox(SandboxKind.BWRAP, hidden_paths, limits=limits, bwrap=bwrap)
            probe = sandbox.run_solve(
                _PROBE_CODE, Limits(wall_timeout_s=60.0, memory_mb=sandbox.limits.memory_mb)
            )
        except (OSError, SandboxUnavailableError) as exc:
            reason = f"bwrap unusable: {exc}"
        else:
            if probe.outcome is Outcome.OK and probe.value == {"status": "ok"}:
                return sandbox
            reason = f"bwrap probe run failed ({probe.outcome.value}): {probe.error.strip()[:500]}"
    if prefer is SandboxKind.BWRAP:
        raise SandboxUnavailableError(reason)
    return Sandbox(SandboxKind.SUBPROCESS, hidden_paths, limits=limits, fallback_reason=reason)
