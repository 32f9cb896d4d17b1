"""Attacks on the sandbox itself (issue 24): a process that outlives its case, a forged
infrastructure verdict, IPC objects left for the next case. Each test runs the attack as a model's
answer in the real sandboxes (cold and warm bwrap, and the plain subprocess where it applies) and
checks the outcome from outside the sandbox as well as from the next case.
"""

from __future__ import annotations

import os
import platform
import shutil
import site
import subprocess
import sys
import sysconfig
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.sandbox import Limits, Outcome, PoolSandbox, Sandbox, SandboxKind, create_sandbox
from benchmark.sandbox.environment import sandbox_environment
from benchmark.sandbox.tmpfs import inode_cap_problem

REPO_ROOT = Path(__file__).resolve().parents[1]
HAVE_BWRAP = shutil.which("bwrap") is not None
NEEDS_BWRAP = pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap (Debian package bubblewrap) is not installed")
ISOLATED_KINDS = [
    pytest.param(SandboxKind.BWRAP, marks=NEEDS_BWRAP, id="cold"),
    pytest.param(SandboxKind.POOL, marks=NEEDS_BWRAP, id="warm"),
]
KINDS = [*ISOLATED_KINDS, pytest.param(SandboxKind.SUBPROCESS, id="subprocess")]
QUICK = Limits(wall_timeout_s=60.0)
#: The raw exit syscall (ends the calling thread only), by machine.
SYS_EXIT = {"x86_64": 60, "aarch64": 93}


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@pytest.fixture(scope="module", params=KINDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with create_sandbox([REPO_ROOT], prefer=request.param) as made:
        if isinstance(made, PoolSandbox):
            assert made.wait_until_warm(), made.unavailable
        yield made


@pytest.fixture(scope="module", params=ISOLATED_KINDS)
def bwrap_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with create_sandbox([REPO_ROOT], prefer=request.param) as made:
        if isinstance(made, PoolSandbox):
            assert made.wait_until_warm(), made.unavailable
        yield made


def _live_threads_named(name: str) -> list[str]:
    """Host tasks (any pid namespace) whose thread name is ``name`` and that still run."""
    found = []
    for pid in (e for e in os.listdir("/proc") if e.isdigit()):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                comm = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
                state = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            except (OSError, IndexError):
                continue
            if comm == name and state not in ("Z", "X"):
                found.append(f"{pid}/{tid}")
    return found


# ----------------------------------------------------------------------- a process outlives its case


def _survivor(thread_name: str) -> str:
    """A candidate that leaves a double-forked daemon whose main thread ends with the raw exit
    syscall (so it shows as a zombie) while a named thread keeps running and marks every later
    case's work directory."""
    number = SYS_EXIT[platform.machine()]
    return code(f"""
        import ctypes, os, threading, time

        WORK = os.getcwd()  # /tmp/sandbox under bwrap, where every later case works too

        def haunt():
            ctypes.CDLL(None).prctl(15, {thread_name!r}.encode(), 0, 0, 0)  # PR_SET_NAME
            while True:
                try:
                    os.makedirs(WORK, exist_ok=True)
                    open(os.path.join(WORK, "survivor-was-here"), "w").write(str(os.getpid()))
                except OSError:
                    pass
                time.sleep(0.005)

        def solve():
            ready_r, ready_w = os.pipe()
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    threading.Thread(target=haunt, daemon=True).start()
                    time.sleep(0.1)
                    os.write(ready_w, b"1")
                    ctypes.CDLL(None).syscall({number}, 0)  # this thread ends; `haunt` runs on
                os._exit(0)
            os.read(ready_r, 1)
            return {{"planted": True}}
    """)


_LOOK_AROUND = code("""
    import os, time

    def solve():
        time.sleep(0.3)
        mine = {1, os.getpid(), os.getppid()}
        running = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in mine:
                continue
            try:
                tids = os.listdir(f"/proc/{entry}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    state = open(f"/proc/{entry}/task/{tid}/stat").read().rsplit(")", 1)[-1].split()[0]
                except OSError:
                    continue
                if state not in ("Z", "X"):
                    running.append(entry)
        marked = os.path.exists("survivor-was-here")
        return {"marked": marked, "running": sorted(set(running))}
""")


@pytest.mark.skipif(platform.machine() not in SYS_EXIT, reason="raw exit syscall number unknown here")
def test_a_zombie_leader_with_a_live_thread_dies_with_its_case(sandbox: Sandbox) -> None:
    name = f"optb-{os.getpid() % 100000}"
    planted = sandbox.run_solve(_survivor(name), QUICK)
    assert planted.outcome is Outcome.OK, planted.error
    # From outside: when run_solve returned, no thread of the daemon runs anywhere on the host.
    assert _live_threads_named(name) == []
    # From the next case: nothing of the first one runs, and nothing marks its directory.
    seen = sandbox.run_solve(_LOOK_AROUND, QUICK)
    assert seen.outcome is Outcome.OK, seen.error
    assert seen.value is not None
    assert seen.value["marked"] is False
    if sandbox.kind is not SandboxKind.SUBPROCESS:  # a plain subprocess sees the whole host
        assert seen.value["running"] == []
    assert _live_threads_named(name) == []


def test_the_pool_checks_from_outside_that_a_case_left_nothing_running() -> None:
    """When a case ends the harness reads the server's cgroup: only bwrap, its init, the server and
    the server's children (the spare) may run there; otherwise the server serves no other case."""
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    with create_sandbox([REPO_ROOT], prefer=SandboxKind.POOL) as pool:
        assert isinstance(pool, PoolSandbox) and pool.wait_until_warm(), getattr(pool, "unavailable", "")
        first = pool.run_solve('def solve():\n    return {"n": 1}\n', QUICK)
        assert first.outcome is Outcome.OK and first.sandbox is SandboxKind.POOL
        (server,) = pool._idle
        assert server.foreign_tasks() == [], "a clean server must pass its own check"
        # A survivor the server's own sweep missed cannot be made (the sweep kills everything it
        # sees), so the harness is made to mistake which pid is the server's: the server and its
        # spare are then unexplained processes in the sandbox, as a survivor would be.
        server.server_pid = -1
        assert server.foreign_tasks()
        restarts = pool.restarts
        again = pool.run_solve('def solve():\n    return {"n": 2}\n', QUICK)
        assert again.outcome is Outcome.OK and again.value == {"n": 2}  # the case itself stands
        assert pool.restarts == restarts + 1 and server not in pool._idle  # the server is discarded
        assert server.token is None  # its cgroup, and everything in it, is gone
        assert server.proc is not None and server.proc.poll() is not None


# ------------------------------------------------------------------- forged infrastructure verdicts

_FORGE = code("""
    import os, stat

    def result_channels():
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                mode = os.fstat(fd).st_mode
                if fd > 2 and (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
                    yield fd
            except OSError:
                pass

    def solve():
        for fd in result_channels():
            for erase in (lambda: os.ftruncate(fd, 0), lambda: os.lseek(fd, 0, 0)):
                try:
                    erase()
                except OSError:
                    pass
            os.write(fd, PAYLOAD)
        os._exit(0)
""")

FORGERIES = {
    "sandbox_error": b'{"outcome": "sandbox_error", "error": "forged infrastructure fault"}',
    "unknown outcome": b'{"outcome": "cosmic_ray", "error": "forged"}',
    "garbage": b"\x00\xff not json",
    "deep nesting": b'{"outcome": "ok", "value": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_verdict_is_the_models_failure(sandbox: Sandbox, forgery: str) -> None:
    source = f"PAYLOAD = {FORGERIES[forgery]!r}\n" + _FORGE
    result = sandbox.run_solve(source, QUICK)
    assert not result.is_infrastructure_fault, result.error
    assert result.outcome in (Outcome.RUNTIME, Outcome.OUTPUT_FORMAT), result
    if forgery == "deep nesting":
        assert result.outcome is Outcome.OUTPUT_FORMAT and "nested too deeply" in result.error


def test_nine_forged_faults_do_not_make_one_correct_answer_a_perfect_score(sandbox: Sandbox) -> None:
    """The attack of the issue: with 1 correct and 9 forged answers, pass@1 counted only the one."""
    correct = sandbox.run_solve('def solve():\n    return {"objective_value": 1}\n', QUICK)
    forged = [
        sandbox.run_solve(f"PAYLOAD = {FORGERIES['sandbox_error']!r}\n" + _FORGE, QUICK) for _ in range(9)
    ]
    results = [correct, *forged]
    scored = [r for r in results if not r.is_infrastructure_fault]
    assert len(scored) == 10
    assert sum(r.ok for r in scored) / len(scored) == pytest.approx(0.1)


def test_breaking_the_runners_channel_is_not_an_infrastructure_fault(sandbox: Sandbox) -> None:
    closer = code("""
        import os, stat
        def solve():
            for name in os.listdir("/proc/self/fd"):
                fd = int(name)
                try:
                    mode = os.fstat(fd).st_mode
                    if fd > 2 and (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
                        os.close(fd)
                except OSError:
                    pass
            return {"objective_value": 1}
    """)
    result = sandbox.run_solve(closer, QUICK)
    assert result.outcome is Outcome.RUNTIME, result
    assert not result.is_infrastructure_fault


# ---------------------------------------------------------------------- IPC objects between cases

_PLANT_IPC = code("""
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    IPC_CREAT = 0o1000
    KEY = 0x0B7E24

    def solve():
        shm = libc.shmget(KEY, 4096, IPC_CREAT | 0o600)
        msg = libc.msgget(KEY, IPC_CREAT | 0o600)
        sem = libc.semget(KEY, 1, IPC_CREAT | 0o600)
        buf = (ctypes.c_char * 16)(*b"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00secret!!")
        sent = libc.msgsnd(msg, buf, 8, 0)
        mq = -1
        try:
            rt = ctypes.CDLL("librt.so.1", use_errno=True)
            mq = rt.mq_open(b"/optbench-leak", os.O_CREAT | os.O_RDWR, 0o600, None)
        except OSError:
            pass
        return {"shm": shm, "msg": msg, "sem": sem, "sent": sent, "mq": mq}
""")

_FIND_IPC = code("""
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    KEY = 0x0B7E24

    def rows(table):
        try:
            return len(open(f"/proc/sysvipc/{table}").read().splitlines()) - 1
        except OSError:
            return -1

    def solve():
        mq = -1
        try:
            rt = ctypes.CDLL("librt.so.1", use_errno=True)
            mq = rt.mq_open(b"/optbench-leak", os.O_RDWR, 0o600, None)
        except OSError:
            pass
        return {"shm": libc.shmget(KEY, 0, 0), "msg": libc.msgget(KEY, 0), "sem": libc.semget(KEY, 0, 0),
                "rows": [rows("shm"), rows("msg"), rows("sem")], "mq": mq}
""")


def test_sysv_ipc_and_message_queues_do_not_outlive_a_case(bwrap_sandbox: Sandbox) -> None:
    planted = bwrap_sandbox.run_solve(_PLANT_IPC, QUICK)
    assert planted.outcome is Outcome.OK, planted.error
    assert planted.value is not None
    assert min(planted.value["shm"], planted.value["msg"], planted.value["sem"]) >= 0, planted.value
    assert planted.value["sent"] == 0
    time.sleep(0.05)
    seen = bwrap_sandbox.run_solve(_FIND_IPC, QUICK)
    assert seen.outcome is Outcome.OK, seen.error
    assert seen.value == {"shm": -1, "msg": -1, "sem": -1, "rows": [0, 0, 0], "mq": -1}


# -------------------------------------------------------- ground truth under /usr and in site-packages

_HUNT_EVERYWHERE = code("""
    import os
    MARKER = {marker!r}
    SKIP = {skip!r}

    def solve():
        hits, seen = [], 0
        for top, dirs, files in os.walk("/"):
            if top in SKIP:
                dirs[:] = []
                continue
            seen += len(files)
            hits += [os.path.join(top, n) for n in dirs + files if MARKER in n]
        names = {{}}
        for probe in ("/usr/local", "/usr/share", "/usr/lib/python3", {base_site!r}):
            try:
                names[probe] = sorted(os.listdir(probe))
            except OSError as exc:
                names[probe] = type(exc).__name__
        return {{"hits": hits, "files_seen": seen, "listings": names}}
""")


def _base_site_packages() -> Path:
    """The base installation's site-packages (the one this venv was made from)."""
    return Path(sysconfig.get_paths(vars={"base": sys.base_prefix})["purelib"])


def _site_packages_dirs(sandbox: Sandbox) -> list[Path]:
    """Site-packages folders on this host that are not the sandbox environment's own: the base
    interpreter's, the harness's venv, the system Python's."""
    found = [_base_site_packages(), *map(Path, site.getsitepackages())]
    found.append(Path("/usr/lib/python3/dist-packages"))
    own = set(sandbox.environment.site_packages)
    return [p for p in dict.fromkeys(found) if p.is_dir() and p not in own and os.access(p, os.W_OK)]


@pytest.fixture
def ground_truth_under_usr_and_site_packages(bwrap_sandbox: Sandbox) -> Iterator[tuple[str, list[Path]]]:
    """A real package's ground truth copied under /usr/local/share and into every other
    site-packages folder this user can write (a non-editable install puts packages there)."""
    reference = sorted((REPO_ROOT / "fixtures" / "mmopt").glob("*/*/*/*/ground_truth"))[0]
    marker = f"planted{os.getpid()}x{time.monotonic_ns()}"
    targets = [Path("/usr/local/share"), *_site_packages_dirs(bwrap_sandbox)]
    made: list[Path] = []
    try:
        for parent in targets:
            if not os.access(parent, os.W_OK):
                continue
            dest = parent / marker
            shutil.copytree(reference, dest / "ground_truth")
            made.append(dest)
        yield marker, made
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)


@NEEDS_BWRAP
def test_ground_truth_under_usr_local_or_in_a_site_packages_is_unreachable(
    bwrap_sandbox: Sandbox, ground_truth_under_usr_and_site_packages: tuple[str, list[Path]]
) -> None:
    marker, planted = ground_truth_under_usr_and_site_packages
    assert any(str(p).startswith("/usr/local/share/") for p in planted), "run as a user who can write there"
    assert any("site-packages" in str(p) or "dist-packages" in str(p) for p in planted)
    env = bwrap_sandbox.environment
    base_site = str(_base_site_packages())
    skip = ["/proc", "/sys", *map(str, env.site_packages)]
    result = bwrap_sandbox.run_solve(
        _HUNT_EVERYWHERE.format(marker=marker, skip=skip, base_site=base_site), Limits(wall_timeout_s=120.0)
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    assert result.value["hits"] == []
    assert result.value["files_seen"] > 1000  # the walk did cover the standard library and /usr/bin
    listings = result.value["listings"]
    assert listings["/usr/local"] == "FileNotFoundError"
    assert listings["/usr/share"] == "FileNotFoundError"
    assert listings["/usr/lib/python3"] == "FileNotFoundError"
    assert listings[base_site] in ([], "FileNotFoundError")


@NEEDS_BWRAP
def test_the_base_interpreters_packages_cannot_be_imported(bwrap_sandbox: Sandbox) -> None:
    """pytest, hypothesis and friends live in the base installation's site-packages here; a
    candidate that puts that folder on its path still cannot import them."""
    base_site = _base_site_packages()
    present = [m for m in ("pytest", "hypothesis", "boto3", "requests") if (base_site / m).is_dir()]
    assert present, f"nothing to import from {base_site}"
    for module in present:
        source = f"import sys\nsys.path.append({str(base_site)!r})\nimport {module}\n"
        result = bwrap_sandbox.run_solve(source + "def solve():\n    return {}\n", QUICK)
        assert result.outcome is Outcome.DEPENDENCY, (module, result.error)
    uses_stack = "import numpy, scipy, ortools, pulp\ndef solve():\n    return {}\n"
    stack = bwrap_sandbox.run_solve(uses_stack, QUICK)
    assert stack.outcome is Outcome.OK, stack.error


@NEEDS_BWRAP
def test_another_pinned_venv_can_be_the_sandboxs_python(tmp_path: Path) -> None:
    """A suite needing its own package stack passes its venv; the sandbox then sees that venv's
    packages and not the default stack's."""
    venv_dir = tmp_path / "agent-venv"
    base_python = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base_python), "-m", "venv", "--without-pip", str(venv_dir)], check=True)
    (site_dir,) = venv_dir.glob("lib/python*/site-packages")
    (site_dir / "agent_pinned_pkg.py").write_text("VERSION = '1.2.3'\n")
    environment = sandbox_environment(venv_dir)
    assert environment.dedicated and environment.site_packages == (site_dir.resolve(),)
    probe = code("""
        import importlib.util
        def solve():
            import agent_pinned_pkg
            numpy = importlib.util.find_spec("numpy") is not None
            return {"version": agent_pinned_pkg.VERSION, "numpy": numpy}
    """)
    with create_sandbox([REPO_ROOT], prefer=SandboxKind.BWRAP, environment=environment) as sandbox:
        result = sandbox.run_solve(probe, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"version": "1.2.3", "numpy": False}


# ---------------------------------------------------------------------------- files without end

_FILE_FLOOD = code("""
    import os
    def solve():
        for n in range(10**7):
            open(f"f{n}", "w").close()
""")


@pytest.mark.parametrize("kind", ISOLATED_KINDS)
def test_a_flood_of_empty_files_stops_at_the_file_cap_with_a_clear_error(kind: SandboxKind) -> None:
    if inode_cap_problem() is not None:
        pytest.skip(f"this harness cannot mount a capped tmpfs: {inode_cap_problem()}")
    limits = Limits(wall_timeout_s=60.0, disk_files=3000)
    host_mounts_before = _scratch_mounts_on_the_host()
    with create_sandbox([REPO_ROOT], prefer=kind, limits=limits) as sandbox:
        if isinstance(sandbox, PoolSandbox):
            assert sandbox.wait_until_warm(), sandbox.unavailable
        flood = sandbox.run_solve(_FILE_FLOOD, limits)
        assert flood.outcome is Outcome.RUNTIME, flood
        assert "No space left on device" in flood.error
        assert "at most 1024 MB and 3000 files and folders" in flood.error
        started = time.monotonic()
        after = sandbox.run_solve("import os\ndef solve():\n    return {'files': os.listdir('.')}\n", limits)
        assert after.outcome is Outcome.OK and after.value == {"files": ["candidate.py"]}
        assert time.monotonic() - started < 10
    # The capped tmpfs lives in the sandbox's own mount namespace, never in the host's.
    assert _scratch_mounts_on_the_host() <= host_mounts_before


def _scratch_mounts_on_the_host() -> set[str]:
    return {
        line.split()[1]
        for line in Path("/proc/self/mounts").read_text().splitlines()
        if "optbench-tmp-" in line
    }
