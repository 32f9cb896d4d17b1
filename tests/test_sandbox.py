"""The sandbox with real processes and real bwrap: every outcome class from a minimal candidate,
the limits, the process-tree kill, and (bwrap only) the isolation promises of DESIGN.md §3.

Candidates are source strings, exactly what a model would send. Tests that make sense for both
sandbox kinds are parametrized over them; the bwrap variants skip only when bwrap is not installed.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import stat
import sys
import tempfile
import textwrap
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmark.sandbox import (
    OPTION_CHOICES,
    BwrapSandbox,
    ExecutionResult,
    Limits,
    Outcome,
    PoolSandbox,
    Sandbox,
    SandboxKind,
    SandboxUnavailableError,
    create_sandbox,
    kind_for_option,
)
from benchmark.sandbox.environment import StackFileError, solver_stack
from benchmark.sandbox.executor import clean_env
from tests.pool_watch import live_marked_processes

REPO_ROOT = Path(__file__).resolve().parents[1]
HAVE_BWRAP = shutil.which("bwrap") is not None
NEEDS_BWRAP = pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap (Debian package bubblewrap) is not installed")
ISOLATED_KINDS = [
    pytest.param(SandboxKind.BWRAP, marks=NEEDS_BWRAP, id="cold"),
    pytest.param(SandboxKind.POOL, marks=NEEDS_BWRAP, id="warm"),
]
KINDS = [*ISOLATED_KINDS, pytest.param(SandboxKind.SUBPROCESS, id="subprocess")]
QUICK = Limits(wall_timeout_s=60.0)
PPID = "import os\ndef solve():\n    return {'ppid': os.getppid()}\n"


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def everything(result: ExecutionResult) -> str:
    """All text a result carries, for asserting that a secret leaked nowhere."""
    return repr(result.value) + result.stdout + result.stderr + result.error


def _warm(sandbox: Sandbox) -> Sandbox:
    """A pool runs cases cold until its first server is up: wait, so that "warm" tests run warm."""
    if isinstance(sandbox, PoolSandbox):
        assert sandbox.wait_until_warm(), sandbox.unavailable
    return sandbox


@pytest.fixture(scope="module", params=KINDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with create_sandbox([REPO_ROOT], prefer=request.param) as made:
        yield _warm(made)


@pytest.fixture(scope="module", params=ISOLATED_KINDS)
def bwrap_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """The bwrap sandbox, cold (one bwrap per case) and warm (forking pool)."""
    with create_sandbox([REPO_ROOT], prefer=request.param) as made:
        yield _warm(made)


def _live_processes_with(token: str) -> list[int]:
    """Host pids (any pid namespace) whose command line contains token and that are not zombies."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry))
    return found


# ---------------------------------------------------------------------------------------------- OK


@pytest.mark.parametrize("kind", KINDS)
def test_create_sandbox_honours_prefer(kind: SandboxKind) -> None:
    sandbox = create_sandbox([REPO_ROOT], prefer=kind)
    assert sandbox.kind is kind
    assert sandbox.describe()["kind"] == kind.value


def test_ok_returns_the_dict_and_captures_prints(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            def solve():
                print("working on it")
                return {"status": "optimal", "objective": 12.5, "x": [1, 2], "nested": {"a": None}}
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"status": "optimal", "objective": 12.5, "x": [1, 2], "nested": {"a": None}}
    assert result.stdout == "working on it\n"
    assert result.error == ""
    assert result.sandbox is sandbox.kind
    assert 0 < result.wall_s < 30


def test_main_block_is_not_run_by_run_solve(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            def solve():
                return {"n": 1}
            if __name__ == "__main__":
                print("main block ran")
                raise SystemExit(3)
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert "main block ran" not in result.stdout


def test_numpy_values_are_coerced_to_json(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            import numpy as np
            def solve():
                return {
                    "count": np.int64(7),
                    "obj": np.float32(1.5),
                    "flag": np.bool_(True),
                    "x": np.arange(3),
                    "grid": np.eye(2, dtype=int),
                    np.int32(4): "numpy key",
                    5: "int key",
                    "pair": (1, 2),
                    "unbounded": float("inf"),
                    "undefined": float("nan"),
                }
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    value = result.value
    assert value is not None
    assert value["count"] == 7 and type(value["count"]) is int
    assert value["obj"] == 1.5 and value["flag"] is True
    assert value["x"] == [0, 1, 2] and value["grid"] == [[1, 0], [0, 1]]
    # JSON object keys are strings: numbers (NumPy or not) come back stringified, tuples as lists.
    assert value["4"] == "numpy key" and value["5"] == "int key" and value["pair"] == [1, 2]
    # Non-finite floats are kept (documented choice): a wrong objective, not a format failure.
    assert value["unbounded"] == math.inf and math.isnan(value["undefined"])


def test_ortools_lp_networkx_and_pulp_cbc_work_inside(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            import networkx as nx
            import pulp
            from ortools.linear_solver import pywraplp

            def solve():
                lp = pywraplp.Solver.CreateSolver("GLOP")
                x = lp.NumVar(0, 10, "x")
                y = lp.NumVar(0, 10, "y")
                lp.Add(x + 2 * y <= 14)
                lp.Add(3 * x - y >= 0)
                lp.Add(x - y <= 2)
                lp.Maximize(3 * x + 4 * y)
                assert lp.Solve() == pywraplp.Solver.OPTIMAL
                g = nx.Graph()
                g.add_weighted_edges_from([("a", "b", 1), ("b", "c", 2), ("a", "c", 5)])
                mip = pulp.LpProblem("m", pulp.LpMinimize)
                z = pulp.LpVariable("z", 0, 10, cat="Integer")
                mip += z
                mip += z >= 2.5
                mip.solve(pulp.PULP_CBC_CMD(msg=0))
                return {
                    "lp": round(lp.Objective().Value(), 6),
                    "path": nx.shortest_path(g, "a", "c", weight="weight"),
                    "cbc": pulp.value(z),
                }
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"lp": 34.0, "path": ["a", "b", "c"], "cbc": 3.0}


# ------------------------------------------------------------------------------- failure outcomes

FAILURES = {
    "syntax": (
        "def solve(:\n    return {}\n",
        Outcome.SYNTAX,
        "SyntaxError",
    ),
    "indentation": (
        "def solve():\nreturn {}\n",
        Outcome.SYNTAX,
        "IndentationError",
    ),
    "tab": (
        "def solve():\n\tif True:\n        return {}\n",
        Outcome.SYNTAX,
        "TabError",
    ),
    "dependency_at_import": (
        "import not_a_real_pkg\ndef solve():\n    return {}\n",
        Outcome.DEPENDENCY,
        "not_a_real_pkg",
    ),
    "dependency_in_solve": (
        "def solve():\n    import not_a_real_pkg.sub\n    return {}\n",
        Outcome.DEPENDENCY,
        "not_a_real_pkg",
    ),
    "runtime": (
        "def solve():\n    total = 0\n    return {'x': 1 / total}\n",
        Outcome.RUNTIME,
        "ZeroDivisionError",
    ),
    "runtime_at_import": (
        "data = {}['missing']\ndef solve():\n    return {}\n",
        Outcome.RUNTIME,
        "KeyError",
    ),
    "sys_exit_in_solve": (
        "import sys\ndef solve():\n    sys.exit(0)\n",
        Outcome.RUNTIME,
        "sys.exit",
    ),
    "no_solve": (
        "def main():\n    return {}\n",
        Outcome.RESPONSE_CONTRACT,
        "solve",
    ),
    "solve_not_callable": (
        "solve = {'x': 1}\n",
        Outcome.RESPONSE_CONTRACT,
        "not a function",
    ),
    "solve_needs_argument": (
        "def solve(x):\n    return {'x': x}\n",
        Outcome.RESPONSE_CONTRACT,
        "requires: x",
    ),
    "returns_string": (
        "def solve():\n    return 'optimal'\n",
        Outcome.OUTPUT_FORMAT,
        "returned str",
    ),
    "tuple_keys": (
        "def solve():\n    return {'x': {(0, 1): 1.0}}\n",
        Outcome.OUTPUT_FORMAT,
        "(0, 1)",
    ),
    "set_value": (
        "def solve():\n    return {'route': {1, 2}}\n",
        Outcome.OUTPUT_FORMAT,
        "set",
    ),
    "colliding_keys": (
        "def solve():\n    return {1: 'a', '1': 'b'}\n",
        Outcome.OUTPUT_FORMAT,
        "collide",
    ),
    "cycle": (
        "def solve():\n    d = {}\n    d['self'] = d\n    return d\n",
        Outcome.OUTPUT_FORMAT,
        "circular",
    ),
    "native_crash": (
        "import os, signal\ndef solve():\n    os.kill(os.getpid(), signal.SIGSEGV)\n",
        Outcome.RUNTIME,
        "SIGSEGV",
    ),
    "os_exit": (
        "import os\ndef solve():\n    os._exit(3)\n",
        Outcome.RUNTIME,
        "status 3",
    ),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_each_failure_is_classified(sandbox: Sandbox, case: str) -> None:
    source, outcome, needle = FAILURES[case]
    result = sandbox.run_solve(source, QUICK)
    assert result.outcome is outcome, result.error
    assert result.value is None
    assert needle in result.error


def test_runtime_error_names_the_candidate_line_not_the_runner(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        "def helper():\n    raise ValueError('bad data')\ndef solve():\n    helper()\n", QUICK
    )
    assert result.outcome is Outcome.RUNTIME
    first_line, _, traceback_tail = result.error.partition("\n")
    assert "ValueError: bad data" in first_line
    assert 'File "candidate.py", line 2, in helper' in traceback_tail
    assert "_optbench_runner" not in result.error


def test_memory_hog_is_a_runtime_error_not_a_hang(sandbox: Sandbox) -> None:
    start = time.monotonic()
    result = sandbox.run_solve(
        "def solve():\n    block = bytearray(20 * 10**9)\n    return {'n': len(block)}\n"
    )
    assert result.outcome is Outcome.RUNTIME
    assert "MemoryError" in result.error
    assert time.monotonic() - start < 30


def test_gradual_memory_growth_stops_at_the_cap(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        "def solve():\n    hog = []\n    while True:\n        hog.append(bytearray(50 * 2**20))\n",
        Limits(wall_timeout_s=60.0, memory_mb=512),
    )
    assert result.outcome is Outcome.RUNTIME
    assert "MemoryError" in result.error


def test_cpu_limit_is_a_timeout(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        "def solve():\n    while True:\n        pass\n", Limits(wall_timeout_s=30.0, cpu_s=1)
    )
    assert result.outcome is Outcome.TIMEOUT
    assert "SIGXCPU" in result.error
    assert result.wall_s < 10


def test_wall_timeout_kills_the_whole_process_tree(sandbox: Sandbox) -> None:
    token = uuid.uuid4().hex
    timeout = 2.0
    candidate = code(f"""
        import os, subprocess, sys
        def solve():
            # A grandchild by Popen, and one by fork+exec, both tagged with the token, both immortal.
            sleeper = "print('grandchild up', flush=True)\\nimport time\\ntime.sleep(1000)"
            subprocess.Popen([sys.executable, "-c", sleeper, "{token}"])
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "while True: pass", "{token}"])
            print("spawned", flush=True)
            while True:
                pass
    """)
    result = sandbox.run_solve(candidate, Limits(wall_timeout_s=timeout))
    assert result.outcome is Outcome.TIMEOUT
    assert "wall timeout" in result.error
    assert result.wall_s < timeout + 3
    # The grandchildren did start, so their absence below means something.
    assert "spawned" in result.stdout and "grandchild up" in result.stdout
    deadline = time.monotonic() + 2.0
    while _live_processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_processes_with(token) == []


@NEEDS_BWRAP
def test_bwrap_kills_even_a_grandchild_that_left_the_session(bwrap_sandbox: Sandbox) -> None:
    token = uuid.uuid4().hex
    candidate = code(f"""
        import subprocess, sys
        def solve():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", "{token}"],
                             start_new_session=True)
            while True:
                pass
    """)
    result = bwrap_sandbox.run_solve(candidate, Limits(wall_timeout_s=1.5))
    assert result.outcome is Outcome.TIMEOUT
    deadline = time.monotonic() + 2.0
    while _live_processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_processes_with(token) == []


def test_leftover_threads_and_children_do_not_delay_a_finished_run(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            import os, threading, time
            def solve():
                threading.Thread(target=time.sleep, args=(1000,)).start()  # non-daemon
                child = os.fork()
                return {"in_child": child == 0}  # the forked copy must not write a second verdict
        """),
        Limits(wall_timeout_s=20.0),
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"in_child": False}
    assert result.wall_s < 10


def test_huge_output_is_capped_to_its_tail(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            def solve():
                for i in range(200_000):
                    print(f"line {i:06d} " + "x" * 20)
                print("THE END")
                return {"done": True}
        """),
        Limits(wall_timeout_s=60.0, output_bytes=10_000),
    )
    assert result.outcome is Outcome.OK, result.error
    marker, _, kept = result.stdout.partition("\n")
    assert "output truncated" in marker
    assert len(kept.encode()) <= 10_000
    assert kept.endswith("THE END\n")
    assert "line 000000" not in result.stdout


def test_runaway_file_writes_stop_at_the_file_size_cap(sandbox: Sandbox) -> None:
    result = sandbox.run_solve(
        code("""
            def solve():
                with open("big.bin", "wb") as fh:
                    for _ in range(100):
                        fh.write(b"\\0" * 2**20)
                return {"wrote": True}
        """),
        Limits(wall_timeout_s=60.0, output_bytes=1000, file_bytes=4 * 2**20, result_bytes=2**20),
    )
    assert result.outcome is Outcome.RUNTIME
    assert "File too large" in result.error


# ------------------------------------------------------------------------------------ run_script


def test_run_script_runs_main_with_files_and_captures_prints(sandbox: Sandbox) -> None:
    result = sandbox.run_script(
        code("""
            import json, sys
            data = json.load(open("data/input.json"))
            if __name__ == "__main__":
                print("objective:", sum(data["costs"]))
                sys.exit(0)
        """),
        QUICK,
        files={"data/input.json": '{"costs": [3, 4, 5]}'},
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is None
    assert result.stdout == "objective: 12\n"


@pytest.mark.parametrize(
    ("source", "outcome"),
    [
        ("import sys\nprint('partial')\nsys.exit(2)\n", Outcome.RUNTIME),
        ("print(undefined_name)\n", Outcome.RUNTIME),
        ("import not_a_real_pkg\n", Outcome.DEPENDENCY),
        ("print('x'\n", Outcome.SYNTAX),
    ],
    ids=["exit_2", "name_error", "dependency", "syntax"],
)
def test_run_script_failures(sandbox: Sandbox, source: str, outcome: Outcome) -> None:
    result = sandbox.run_script(source, QUICK)
    assert result.outcome is outcome, result.error
    assert result.value is None


def test_run_script_rejects_unsafe_file_names(sandbox: Sandbox) -> None:
    for bad in ("../escape.txt", "/etc/x", "candidate.py"):
        with pytest.raises(ValueError, match="relative path"):
            sandbox.run_script("pass\n", QUICK, files={bad: "x"})


# ------------------------------------------------------------------------ environment and cleanup


def test_environment_is_clean_and_holds_no_secrets(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sk-test-secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("OPTBENCH_TEST_TOKEN", secret)
    result = sandbox.run_solve(
        "import os\ndef solve():\n    print(dict(os.environ))\n    return dict(os.environ)\n", QUICK
    )
    assert result.outcome is Outcome.OK, result.error
    assert secret not in everything(result)
    assert result.value is not None
    allowed = {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
    allowed |= {
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
        "PWD",
        "LC_CTYPE",
    }  # the last two are set by Python/bwrap
    assert set(result.value) <= allowed
    assert result.value["PYTHONHASHSEED"] == "0" and result.value["LANG"] == "C.UTF-8"


def test_work_dir_is_fresh_and_deleted_afterwards(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work_root = tmp_path / "work"
    work_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work_root))
    result = sandbox.run_solve(
        code("""
            import os
            def solve():
                open("scratch.txt", "w").write("x")
                os.makedirs("locked/inner")
                os.chmod("locked", 0o500)
                return {"cwd_entries": sorted(os.listdir("."))}
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None and "scratch.txt" in result.value["cwd_entries"]
    assert list(work_root.iterdir()) == []


def test_concurrent_runs_do_not_interfere(sandbox: Sandbox) -> None:
    def run(i: int) -> ExecutionResult:
        return sandbox.run_solve(
            f"import os\ndef solve():\n    open('mine.txt', 'w').write('{i}')\n"
            f"    return {{'i': {i}, 'files': sorted(os.listdir('.'))}}\n",
            QUICK,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, range(8)))
    for i, result in enumerate(results):
        assert result.outcome is Outcome.OK, result.error
        assert result.value is not None and result.value["i"] == i


# ------------------------------------------------------------------------- isolation (bwrap only)


@NEEDS_BWRAP
def test_hidden_paths_cannot_be_read(tmp_path: Path) -> None:
    secret = f"ground-truth-{uuid.uuid4().hex}"
    fixtures = tmp_path / "fixtures"
    (fixtures / "inst").mkdir(parents=True)
    (fixtures / "inst" / "solution_ref.json").write_text(secret)
    sandbox = create_sandbox([REPO_ROOT, fixtures], prefer=SandboxKind.BWRAP)
    targets = [str(fixtures / "inst" / "solution_ref.json"), str(REPO_ROOT / "pyproject.toml")]
    result = sandbox.run_solve(
        code(f"""
            import os
            def solve():
                found = {{}}
                for path in {targets!r}:
                    try:
                        found[path] = open(path).read()
                    except OSError as exc:
                        found[path] = type(exc).__name__
                try:
                    found["repo_listing"] = sorted(os.listdir({str(REPO_ROOT)!r}))
                except OSError:
                    found["repo_listing"] = []
                print(found)
                return found
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    assert secret not in everything(result)
    assert result.value[targets[0]] == "FileNotFoundError"
    assert result.value[targets[1]] == "FileNotFoundError"
    # At most the mount point of the sandbox's own environment shows inside the checkout.
    assert set(result.value["repo_listing"]) <= {".venv-sandbox"}


# The case id is in the prompt, so a solve() can look for its own ground truth anywhere on the host.
GROUND_TRUTH_HUNT = """
import glob, json, os
CASE = {case!r}
SKIP = {skip!r}  # the allowlisted system and Python folders (too big to walk in a test)
def solve():
    hits = []
    for depth in range(1, 5):
        hits += glob.glob("/*" * depth + "/fixtures/mmopt/*/*/*/" + CASE + "/ground_truth/solution_ref.json")
    for top, dirs, files in os.walk("/"):
        if top in SKIP:
            dirs[:] = []
            continue
        if "solution_ref.json" in files:
            hits.append(os.path.join(top, "solution_ref.json"))
    found = {{}}
    for path in hits:
        try:
            with open(path) as fh:
                found[path] = json.load(fh)
        except (OSError, ValueError) as exc:
            found[path] = type(exc).__name__
    return {{"hits": sorted(set(hits)), "found": found}}
"""


@pytest.fixture
def planted_ground_truth() -> Iterator[tuple[str, str, list[Path]]]:
    """A real package's ground_truth/ copied (with a unique marker) to places outside the checkout:
    a new folder under /, /srv, /opt, /var/tmp, $HOME, the host's /tmp, and a path reached only
    through a symlink. Every copy is removed afterwards."""
    reference = sorted((REPO_ROOT / "fixtures" / "mmopt").glob("*/*/*/*/ground_truth/solution_ref.json"))[0]
    package = reference.parent.parent
    case = package.name
    marker = f"planted-{uuid.uuid4().hex}"
    bases = [Path(f"/{marker}"), Path("/srv") / marker, Path("/opt") / marker, Path("/var/tmp") / marker]
    bases += [Path.home() / marker, Path(tempfile.gettempdir()) / marker]
    made: list[Path] = []
    try:
        for base in bases:
            dest = base / "optbench" / "fixtures" / "mmopt" / "fam" / "sub" / "easy" / case
            shutil.copytree(package / "ground_truth", dest / "ground_truth")
            (dest / "ground_truth" / "marker.txt").write_text(marker)
            made.append(base)
        link = Path("/var/tmp") / f"{marker}-link"
        link.symlink_to(bases[0])
        made.append(link)
        yield case, marker, made
    finally:
        for path in made:
            if path.is_symlink():
                path.unlink()
            else:
                shutil.rmtree(path, ignore_errors=True)


@NEEDS_BWRAP
def test_planted_copies_of_the_ground_truth_are_invisible(
    bwrap_sandbox: Sandbox, planted_ground_truth: tuple[str, str, list[Path]]
) -> None:
    case, marker, planted = planted_ground_truth
    assert all(p.exists() for p in planted)
    skip = ["/proc", "/sys", "/usr", *map(str, bwrap_sandbox.environment.mounts)]
    result = bwrap_sandbox.run_solve(
        GROUND_TRUTH_HUNT.format(case=case, skip=skip), Limits(wall_timeout_s=120.0)
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"hits": [], "found": {}}
    assert marker not in everything(result)


def test_the_hunt_finds_the_planted_copies_without_isolation(
    planted_ground_truth: tuple[str, str, list[Path]],
) -> None:
    """The attack is real: without bwrap the same solve() reads the planted ground truth."""
    case = planted_ground_truth[0]
    sandbox = create_sandbox([REPO_ROOT], prefer=SandboxKind.SUBPROCESS)
    pattern = "/*/*/fixtures/mmopt/*/*/*/" + case + "/ground_truth/solution_ref.json"
    hunt = code(f"""
        import glob, json
        def solve():
            return {{"found": [json.load(open(p)) for p in glob.glob({pattern!r})]}}
    """)
    result = sandbox.run_solve(hunt, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None and len(result.value["found"]) >= 2


@NEEDS_BWRAP
def test_a_hidden_folder_inside_the_python_installation_stays_hidden(bwrap_sandbox: Sandbox) -> None:
    package_dir = bwrap_sandbox.environment.site_packages[0] / "networkx"
    assert package_dir.is_dir()
    sandbox = create_sandbox([REPO_ROOT, package_dir], prefer=SandboxKind.BWRAP)
    result = sandbox.run_solve(
        f"import os\ndef solve():\n    return {{'listing': os.listdir({str(package_dir)!r})}}\n", QUICK
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"listing": []}


@NEEDS_BWRAP
def test_the_harness_package_cannot_be_imported(bwrap_sandbox: Sandbox) -> None:
    for module in ("benchmark", "benchmark.sandbox", "adapters"):
        result = bwrap_sandbox.run_solve(f"import {module}\ndef solve():\n    return {{}}\n", QUICK)
        assert result.outcome is Outcome.DEPENDENCY, (module, result.error)


@NEEDS_BWRAP
def test_network_is_unreachable(bwrap_sandbox: Sandbox) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        result = bwrap_sandbox.run_solve(
            code(f"""
                import socket
                def solve():
                    out = {{}}
                    for host, port in [("127.0.0.1", {port}), ("1.1.1.1", 53), ("8.8.8.8", 443)]:
                        try:
                            socket.create_connection((host, port), timeout=2).close()
                            out[host] = "connected"
                        except OSError as exc:
                            out[host] = type(exc).__name__
                    return out
            """),
            QUICK,
        )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    assert "connected" not in result.value.values()


@NEEDS_BWRAP
def test_writes_outside_the_work_dir_fail(bwrap_sandbox: Sandbox) -> None:
    name = f"sandbox-escape-{uuid.uuid4().hex}"
    targets = [
        str(REPO_ROOT / name),
        str(REPO_ROOT / ".venv" / name),
        str(Path(sys.prefix) / name),
        f"/etc/{name}",
    ]
    result = bwrap_sandbox.run_solve(
        code(f"""
            def solve():
                out = {{}}
                for path in {targets!r}:
                    try:
                        open(path, "w").write("x")
                        out[path] = "written"
                    except OSError as exc:
                        out[path] = type(exc).__name__
                open("inside.txt", "w").write("fine")
                return out
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    # A target under /tmp (a checkout cloned there) lands in the case's private /tmp tmpfs, which
    # is thrown away with the case; anywhere else the write itself must fail.
    written = {path for path, verdict in result.value.items() if verdict == "written"}
    assert all(Path(path).is_relative_to("/tmp") for path in written), written
    for path in targets:
        assert not Path(path).exists()


@NEEDS_BWRAP
def test_capabilities_are_dropped(bwrap_sandbox: Sandbox) -> None:
    result = bwrap_sandbox.run_solve(
        code("""
            import subprocess
            def solve():
                caps = [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1]
                remount = subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True)
                return {"caps": caps, "remount_rc": remount.returncode}
        """),
        QUICK,
    )
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    assert int(result.value["caps"], 16) == 0
    assert result.value["remount_rc"] != 0


# -------------------------------------------------------------------------- describe and fallback


def test_subprocess_describe_says_it_is_not_isolated() -> None:
    info = create_sandbox([REPO_ROOT], prefer=SandboxKind.SUBPROCESS).describe()
    assert info["kind"] == "subprocess"
    assert info["filesystem_isolated"] is False and info["network_isolated"] is False
    assert "NOT isolated" in str(info["note"])
    assert info["limits"] == Limits().as_dict()


@NEEDS_BWRAP
def test_bwrap_describe_lists_version_hidden_and_exposed(bwrap_sandbox: Sandbox) -> None:
    info = bwrap_sandbox.describe()
    assert info["kind"] == str(bwrap_sandbox.kind)
    assert info["bwrap_version"] and info["filesystem_isolated"] is True and info["network_isolated"] is True
    assert str(REPO_ROOT) in info["hidden_paths"]  # type: ignore[operator]
    filesystem = info["filesystem"]
    assert isinstance(filesystem, dict)
    exposed = [Path(p) for p in [*filesystem["python_read_only"], *filesystem["system_read_only"]]]
    assert REPO_ROOT not in exposed
    assert not any(p == REPO_ROOT / "benchmark" or REPO_ROOT / "benchmark" in p.parents for p in exposed)
    assert info["process_cap"]["mechanism"]  # type: ignore[index]


def _fake_bwrap(tmp_path: Path) -> Path:
    """An executable named bwrap that fails the way bwrap does where user namespaces are forbidden."""
    fake_dir = tmp_path / "fakebin"
    fake_dir.mkdir()
    fake = fake_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "bubblewrap 0.0-fake"; exit 0; fi\n'
        'echo "bwrap: No permissions to create new namespace" >&2\n'
        "exit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return fake


def test_bwrap_failing_to_start_is_a_sandbox_error(tmp_path: Path) -> None:
    sandbox = BwrapSandbox([REPO_ROOT], bwrap=str(_fake_bwrap(tmp_path)))
    result = sandbox.run_solve("def solve():\n    return {}\n", QUICK)
    assert result.outcome is Outcome.SANDBOX_ERROR
    assert "No permissions to create new namespace" in result.error
    assert result.is_infrastructure_fault


def test_a_vanished_bwrap_executable_is_a_sandbox_error(tmp_path: Path) -> None:
    fake = _fake_bwrap(tmp_path)
    sandbox = BwrapSandbox([REPO_ROOT], bwrap=str(fake))
    fake.unlink()
    result = sandbox.run_solve("def solve():\n    return {}\n", QUICK)
    assert result.outcome is Outcome.SANDBOX_ERROR
    assert "could not run the sandbox" in result.error


def test_unusable_bwrap_falls_back_or_raises_when_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _fake_bwrap(tmp_path)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    fallback = create_sandbox([REPO_ROOT])
    assert fallback.kind is SandboxKind.SUBPROCESS
    assert "No permissions" in str(fallback.describe()["fallback_reason"])
    assert fallback.run_solve("def solve():\n    return {'ok': 1}\n", QUICK).value == {"ok": 1}
    with pytest.raises(SandboxUnavailableError, match="No permissions"):
        create_sandbox([REPO_ROOT], prefer=SandboxKind.BWRAP)


def test_missing_bwrap_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert create_sandbox([REPO_ROOT]).kind is SandboxKind.SUBPROCESS
    for kind in (SandboxKind.BWRAP, SandboxKind.POOL):
        with pytest.raises(SandboxUnavailableError, match="not found"):
            create_sandbox([REPO_ROOT], prefer=kind)


def test_sandbox_option_values_map_to_kinds() -> None:
    assert kind_for_option("auto") is None
    assert kind_for_option("warm") is SandboxKind.POOL
    assert kind_for_option("cold") is kind_for_option("bwrap") is SandboxKind.BWRAP
    assert kind_for_option("subprocess") is SandboxKind.SUBPROCESS
    assert set(OPTION_CHOICES) == {"auto", "warm", "cold", "bwrap", "subprocess"}


# ------------------------------------------------------------------------------------------ limits


def test_limits_validate_and_derive_cpu_from_wall() -> None:
    assert Limits(wall_timeout_s=10, cpu_s=None).effective_cpu_s >= 15
    assert Limits(cpu_s=2.2).effective_cpu_s == 3
    for bad in ({"wall_timeout_s": 0}, {"memory_mb": 0}, {"output_bytes": 0}, {"cpu_s": -1.0}):
        with pytest.raises(ValueError):
            Limits(**bad)  # type: ignore[arg-type]


# ----------------------------------------------------------------------- the sandbox's environment

HARNESS_ONLY = ("openai", "pytest", "hypothesis", "syrupy", "xdist", "benchmark", "adapters")


def test_the_prompt_lists_exactly_the_advertised_stack() -> None:
    from benchmark.suites.mmopt.prompts import ALLOWED_LIBRARIES

    stack = solver_stack()
    assert ("the Python standard library", *(p.prompt for p in stack if p.prompt)) == ALLOWED_LIBRARIES
    # Every advertised entry names its own import, so the list cannot promise one package and pin another.
    for package in stack:
        if package.prompt is not None:
            assert package.prompt.split()[0] == package.import_name
    assert "solver_stack.txt" in (REPO_ROOT / "scripts" / "setup.sh").read_text()


def test_a_malformed_stack_line_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "stack.txt"
    bad.write_text("# header\nnumpy>=2  # import numpy; prompt numpy\n")
    with pytest.raises(StackFileError, match=r"stack\.txt:2"):
        solver_stack(bad)


def test_every_stack_package_imports_inside_and_no_harness_package_does(sandbox: Sandbox) -> None:
    assert sandbox.environment.dedicated, "the sandbox environment is missing: run scripts/setup.sh"
    probe = code(f"""
        import importlib
        def solve():
            out = {{}}
            for name in {[p.import_name for p in solver_stack()] + list(HARNESS_ONLY)!r}:
                try:
                    importlib.import_module(name)
                    out[name] = "ok"
                except ImportError as exc:
                    out[name] = type(exc).__name__
            return out
    """)
    result = sandbox.run_solve(probe, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {
        **{p.import_name: "ok" for p in solver_stack()},
        **{name: "ModuleNotFoundError" for name in HARNESS_ONLY},
    }


def test_the_manifest_records_the_sandbox_environments_versions(sandbox: Sandbox) -> None:
    info = sandbox.describe()["python_environment"]
    assert isinstance(info, dict) and info["dedicated"] is True
    packages = {name.lower(): version for name, version in info["packages"].items()}
    for package in solver_stack():
        assert packages[package.name.lower()] == package.version
    assert "openai" not in packages and "pytest" not in packages


# -------------------------------------------------------------- bounds that hold as root (attacks)


def _needs_process_cap(sandbox: Sandbox) -> None:
    if sandbox.cap.mechanism == "none":
        pytest.skip(f"no process cap on this machine: {sandbox.cap.describe().get('note')}")


def test_a_fork_storm_stops_at_the_process_cap(sandbox: Sandbox) -> None:
    _needs_process_cap(sandbox)
    storm = code("""
        import os, time
        def solve():
            started = failed = 0
            for _ in range(300):
                try:
                    pid = os.fork()
                except OSError:
                    failed += 1
                    continue
                if pid == 0:
                    time.sleep(30)
                    os._exit(0)
                started += 1
            return {"started": started, "failed": failed}
    """)
    result = sandbox.run_solve(storm, Limits(wall_timeout_s=60.0, processes=24))
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    assert result.value["started"] <= 24 and result.value["failed"] > 250
    again = sandbox.run_solve("def solve():\n    return {'alive': True}\n", QUICK)
    assert again.value == {"alive": True}


def test_a_daemon_left_behind_is_killed_when_the_case_ends(sandbox: Sandbox) -> None:
    _needs_process_cap(sandbox)
    token = f"optbench-daemon-{uuid.uuid4().hex}"
    daemon = code(f"""
        import os, subprocess, sys
        def solve():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", {token!r}],
                             start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return {{"spawned": True}}
    """)
    result = sandbox.run_solve(daemon, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert _live_processes_with(token) == []


@NEEDS_BWRAP
def test_disk_is_capped_across_many_files(bwrap_sandbox: Sandbox) -> None:
    fill = code("""
        import os
        def solve():
            written = 0
            for place in ("/tmp", ".", "/dev/shm"):
                for i in range(20):
                    try:
                        with open(os.path.join(place, f"fill{i}.bin"), "wb") as fh:
                            for _ in range(16):
                                fh.write(b"\\1" * 2**20)
                                written += 2**20
                    except OSError:
                        break
            return {"written_mb": written // 2**20}
    """)
    result = bwrap_sandbox.run_solve(fill, Limits(wall_timeout_s=60.0, disk_mb=48))
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    # /tmp (work dir included) holds at most 48 MiB, /dev/shm at most its own 64 MiB.
    assert result.value["written_mb"] <= 48 + 64 + 2


def test_a_huge_return_value_is_result_too_large(sandbox: Sandbox) -> None:
    big = "def solve():\n    return {str(i): i for i in range(300_000)}\n"
    result = sandbox.run_solve(big, Limits(wall_timeout_s=60.0, result_bytes=1_000_000))
    assert result.outcome is Outcome.OUTPUT_FORMAT
    assert "result too large" in result.error


def test_a_forged_huge_verdict_is_read_with_a_bound(sandbox: Sandbox) -> None:
    """Candidate code can write to the runner's result pipe itself; the harness reads at most the
    limit and calls it too large instead of parsing it."""
    forge = code("""
        import os, stat
        def solve():
            for name in os.listdir("/proc/self/fd"):
                fd = int(name)
                try:
                    if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, b'{"outcome": "ok", "value": {"x": "' + b"y" * 8_000_000 + b'"}}')
                except OSError:
                    pass
            os._exit(0)
    """)
    result = sandbox.run_solve(forge, Limits(wall_timeout_s=60.0, result_bytes=1_000_000))
    assert result.outcome is Outcome.OUTPUT_FORMAT
    assert "result too large" in result.error


def test_the_parents_environment_cannot_be_read_through_proc(sandbox: Sandbox) -> None:
    probe = code("""
        import os
        def solve():
            try:
                with open(f"/proc/{os.getppid()}/environ", "rb") as fh:
                    names = sorted(v.split(b"=", 1)[0].decode() for v in fh.read().split(b"\\0") if v)
                return {"names": names}
            except OSError as exc:
                return {"error": type(exc).__name__}
    """)
    result = sandbox.run_solve(probe, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert result.value is not None
    if sandbox.kind is SandboxKind.SUBPROCESS:
        assert result.value == {"error": "PermissionError"}
    else:  # the parent in the sandbox is bwrap's init, with the same scrubbed environment
        assert set(result.value.get("names", [])) <= set(clean_env(sandbox.environment.python, "-", "-"))


@NEEDS_BWRAP
def test_signals_to_the_parent_do_not_reach_the_harness(bwrap_sandbox: Sandbox) -> None:
    attack = code("""
        import os, signal
        def solve():
            sent = []
            for target in (os.getppid(), 1, -1):
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    try:
                        os.kill(target, sig)
                        sent.append(target)
                    except OSError:
                        pass
            return {"sent": sent}
    """)
    result = bwrap_sandbox.run_solve(attack, QUICK)
    # kill(-1) also kills the runner itself: that is a runtime failure of this case, nothing more.
    assert result.outcome in (Outcome.OK, Outcome.RUNTIME), result.error
    assert bwrap_sandbox.run_solve("def solve():\n    return {'alive': 1}\n", QUICK).value == {"alive": 1}


# --------------------------------------------------------------------------- the honest fallback


@pytest.mark.slow
def test_a_subprocess_run_warns_at_start_end_and_in_the_summary(bench) -> None:
    run = bench("--model=oracle", "-k", "mf_e_001", "--sandbox=subprocess")
    assert run.returncode == 0, run.output[-3000:]
    assert run.output.count("WARNING: sandbox subprocess is NOT isolated") == 2
    first = run.output.index("NOT isolated")
    last = run.output.rindex("NOT isolated")
    summary_at = run.output.index("optbench summary")
    assert first < summary_at < last  # once before the cases run, once after the summary
    assert "NOT isolated" in (run.run_dir / "summary.md").read_text()
    assert "NOT isolated" in run.summary["run"]["sandbox"]


@NEEDS_BWRAP
def test_an_isolated_run_has_no_isolation_warning(bwrap_sandbox: Sandbox) -> None:
    from benchmark.sandbox import isolation_warning

    assert isolation_warning(bwrap_sandbox.describe()) is None
    warning = isolation_warning(create_sandbox([REPO_ROOT], prefer=SandboxKind.SUBPROCESS).describe())
    assert warning is not None and "NOT isolated" in warning


# ------------------------------------------- isolation between cases (warm pool equals cold)

LEAKS = {
    "processes": (
        """
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "optbench-leak-daemon"],
                         start_new_session=True)
        """,
        """
        import os
        mine = {os.getpid(), os.getppid(), 1}
        others = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in mine:
                try:
                    cmd = open(f"/proc/{entry}/cmdline", "rb").read()
                except OSError:
                    continue
                if b"optbench-leak-daemon" in cmd:
                    others.append(entry)
        CLEAN = not others
        """,
    ),
    "files": (
        """
        import os
        for path in ("/tmp/leak", "leak", "/dev/shm/leak", os.path.expanduser("~/leak2")):
            open(path, "w").write("x")
        """,
        """
        import os
        CLEAN = not any(os.path.exists(p) for p in ("/tmp/leak", "leak", "/dev/shm/leak",
                                                     os.path.expanduser("~/leak2")))
        """,
    ),
    "modules": (
        """
        import sys, types, builtins, numpy
        sys.modules["json"] = types.ModuleType("json")
        numpy.LEAKED = True
        builtins.LEAKED = True
        """,
        """
        import json, builtins, numpy
        CLEAN = hasattr(json, "dumps") and not hasattr(numpy, "LEAKED") and not hasattr(builtins, "LEAKED")
        """,
    ),
    "environment": (
        """
        import os
        os.environ["OPTBENCH_LEAK"] = "1"
        os.putenv("OPTBENCH_LEAK2", "1")
        """,
        """
        import os
        CLEAN = "OPTBENCH_LEAK" not in os.environ and "OPTBENCH_LEAK2" not in os.environ
        """,
    ),
    "cwd": (
        """
        import os
        os.chdir("/")
        """,
        """
        import os
        CLEAN = os.getcwd() == "/tmp/sandbox"
        """,
    ),
    "signal handlers": (
        """
        import signal
        signal.signal(signal.SIGTERM, lambda *a: None)
        signal.signal(signal.SIGINT, lambda *a: None)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        """,
        # A fresh interpreter's SIGINT is Python's handler, or ignored when the harness itself was
        # started in the background (a shell's '&' without job control ignores SIGINT): either is
        # clean, a planted handler is not.
        """
        import signal
        CLEAN = (signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
                 and signal.getsignal(signal.SIGINT) in (signal.default_int_handler, signal.SIG_IGN)
                 and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL)
        """,
    ),
}


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_nothing_planted_in_one_case_is_seen_by_the_next(bwrap_sandbox: Sandbox, leak: str) -> None:
    plant, check = LEAKS[leak]
    planted = bwrap_sandbox.run_solve(code(plant) + "\ndef solve():\n    return {'planted': True}\n", QUICK)
    assert planted.outcome is Outcome.OK, planted.error
    seen = bwrap_sandbox.run_solve(code(check) + "\ndef solve():\n    return {'clean': CLEAN}\n", QUICK)
    assert seen.outcome is Outcome.OK, seen.error
    assert seen.value == {"clean": True}


def test_a_dead_pool_server_is_replaced_and_the_case_rerun() -> None:
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    pool = _warm(create_sandbox([REPO_ROOT], prefer=SandboxKind.POOL))
    assert isinstance(pool, PoolSandbox)
    warm = pool.run_solve(PPID, QUICK)
    assert warm.outcome is Outcome.OK and warm.value is not None
    assert warm.value["ppid"] != 1  # forked by the server, not started by bwrap's init
    killer = code("""
        import os, signal
        os.kill(os.getppid(), signal.SIGKILL)
        def solve():
            return {"after": 1}
    """)
    result = pool.run_solve(killer, QUICK)
    assert result.outcome is Outcome.OK and result.value == {"after": 1}, result.error
    assert pool.restarts == 1
    assert pool.wait_until_warm(), pool.unavailable  # the replacement starts in the background
    again = pool.run_solve(PPID, QUICK)
    assert again.outcome is Outcome.OK and again.value is not None and again.value["ppid"] != 1
    pool.close()


def test_cases_run_cold_while_the_first_pool_server_starts() -> None:
    """No case waits for the seconds a server spends importing the stack: the first one runs in a
    cold sandbox (its parent is bwrap's init) while the server starts, later ones are forked by it."""
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    pool = create_sandbox([REPO_ROOT], prefer=SandboxKind.POOL)
    assert isinstance(pool, PoolSandbox)
    first = pool.run_solve(PPID, QUICK)
    assert first.outcome is Outcome.OK and first.value == {"ppid": 1}, first.error
    assert pool.wait_until_warm(), pool.unavailable
    later = pool.run_solve(PPID, QUICK)
    assert later.outcome is Outcome.OK and later.value is not None and later.value["ppid"] != 1
    pool.close()


def test_closing_a_pool_while_its_server_starts_stops_that_server() -> None:
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    pool = create_sandbox([REPO_ROOT], prefer=SandboxKind.POOL)
    assert isinstance(pool, PoolSandbox)
    pool.run_solve(PPID, QUICK)  # runs cold and starts a server
    deadline = time.monotonic() + 30
    while pool._starting is None and time.monotonic() < deadline:
        time.sleep(0.01)
    starting = pool._starting
    assert starting is not None and starting.proc is not None
    pool.close()
    assert starting.proc.poll() is not None
    assert not starting.dir.exists()
    assert pool.wait_until_warm() is False and pool.run_solve(PPID, QUICK).value == {"ppid": 1}


def test_the_pool_server_cannot_be_ptraced_or_read_by_a_case() -> None:
    """In a cold sandbox the parent is the case's own bwrap init; in the pool it is the server that
    forks every later case, so it must be out of reach."""
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    pool = _warm(create_sandbox([REPO_ROOT], prefer=SandboxKind.POOL))
    probe = code("""
        import ctypes, os
        def solve():
            libc = ctypes.CDLL(None, use_errno=True)
            attached = libc.ptrace(16, os.getppid(), 0, 0) == 0  # PTRACE_ATTACH
            errno = ctypes.get_errno()
            try:
                open(f"/proc/{os.getppid()}/mem", "rb").read(1)
                mem = "read"
            except OSError as exc:
                mem = type(exc).__name__
            return {"attached": attached, "errno": errno, "mem": mem}
    """)
    result = pool.run_solve(probe, QUICK)
    assert result.outcome is Outcome.OK, result.error
    assert result.value == {"attached": False, "errno": 1, "mem": "PermissionError"}  # EPERM
    assert pool.restarts == 0
    pool.close()


@pytest.mark.slow
def test_no_pool_process_outlives_the_workers_session(bench, tmp_path: Path) -> None:
    """A real ``-n 2`` oracle run: the warm pool's servers ran, none is left when the controller
    starts its teardown (each worker closes its pool as its session ends, not at interpreter
    exit), and none after the run. Pool processes are told apart by the run's own pool folders."""
    if not HAVE_BWRAP:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    run_tmp = tmp_path / "tmp"
    run_tmp.mkdir()
    watch = tmp_path / "pool_watch.json"
    env = {"TMPDIR": str(run_tmp), "OPTBENCH_POOL_WATCH": str(watch)}
    run = bench("--model=oracle", "-n", "2", "-k", "maximum_flow", "-p", "tests.pool_watch", env=env)
    assert run.returncode == 0, run.output[-3000:]
    seen = json.loads(watch.read_text())
    assert seen["marker"].startswith(str(run_tmp.resolve()))
    assert seen["most_seen"] >= 2, seen  # the pool ran: its servers' bwrap and what runs inside
    assert seen["at_finish"] == [], seen
    assert live_marked_processes(seen["marker"]) == []
