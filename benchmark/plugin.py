"""The pytest plugin: benchmark cases as parametrized items, model adapters as fixtures, records
written as cases finish, and reports at the end of the session.

Flow of one case (the ``bench_verdict`` fixture): resume check → ``suite.evaluate`` (prompt →
adapter → parse → sandboxed execution → scoring) → one record appended to ``results.jsonl``.
Model failures make the test fail; infrastructure faults (endpoint, sandbox, damaged dataset)
happen in fixture setup and show as errors, so JUnit dashboards keep the two apart.

Under xdist the controller picks the run folder and hands it to the workers; only the controller
writes the summary, the manifest and JUnit XML.

The model side of a process (:class:`ModelSide`) is the adapter stack cache → gate → endpoint plus
the generation phase that keeps ``--max-in-flight`` requests in flight whatever ``-n`` is (see
:mod:`benchmark.prefetch` for the design, :mod:`benchmark.limiter` for the gate and the spend cap).
"""

from __future__ import annotations

import atexit
import dataclasses
import gc
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adapters import resolve_adapter
from adapters.base import AdapterError, ModelAdapter, OracleUnavailable
from adapters.cache import CachedAdapter
from adapters.record import CallLog, ReplayRecorder
from benchmark import HARNESS_VERSION
from benchmark.cases import Case, InstanceRef
from benchmark.gate import Allowance, GateError, parse_allowance, parse_gate
from benchmark.ledger import LEDGER_FILE, RequestLedger
from benchmark.limiter import GatedAdapter
from benchmark.options import RunOptions, add_options
from benchmark.prefetch import GenerationPhase, Share
from benchmark.records import append_record, finished_cases, latest_by_case, read_records
from benchmark.reporting.baseline import add_junit_properties, junit_properties, run_gate
from benchmark.reporting.html import write_html_report
from benchmark.reporting.render import to_markdown, to_text
from benchmark.reporting.shards import Shard, parse_shard
from benchmark.reporting.summary import build_summary
from benchmark.run import (
    RunPaths,
    choose_run_dir,
    git_revision,
    now_iso,
    package_versions,
    read_manifest,
    write_manifest,
)
from benchmark.sandbox import Limits, Sandbox, create_sandbox, isolation_warning, kind_for_option
from benchmark.schedules import sample_specs
from benchmark.status import StatusLine
from benchmark.suites.base import (
    CaseContext,
    Suite,
    get_suite,
    instance_markers,
    marker_declarations,
    suite_names,
)
from benchmark.verdict import DatasetError, InfrastructureError, NotEvaluable, Verdict

CASE_FIXTURE = "bench_case"
_WORKER_RUN_DIR = "optbench_run_dir"
_WORKER_SESSION = "optbench_session"
#: Characters of a harness error's traceback kept in its record (the end, where the cause is).
TRACEBACK_TAIL_CHARS = 4000
#: Characters of each output stream (stdout, stderr) of the generated code kept in its record.
OUTPUT_TAIL_CHARS = 8000


@dataclass
class ModelSide:
    """One process's model side: the adapter the cases use, its share of the run and its generation
    phase (None until started, and for runs that have none). ``build`` makes the adapter of any
    alias on the same stack (cache, the shared in-flight slots, ledger and spend cap): the other
    models a suite asks (:attr:`CaseContext.models`) are built with it on first use."""

    adapter: ModelAdapter
    share: Share
    build: Callable[[str], ModelAdapter]
    phase: GenerationPhase | None = None
    others: dict[str, ModelAdapter] = field(default_factory=dict)
    _others_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def other(self, alias: str) -> ModelAdapter:
        with self._others_lock:
            if alias not in self.others:
                self.others[alias] = self.build(alias)
            return self.others[alias]


@dataclass
class BenchState:
    """Per-process state of the plugin, kept in ``config.stash``."""

    options: RunOptions
    suite: Suite
    dataset: Path
    instances: list[InstanceRef]
    rootdir: Path
    run: RunPaths | None = None
    summary: dict[str, Any] | None = None
    gate_lines: tuple[str, ...] = ()
    problem_lines: tuple[str, ...] = ()
    """One line per failed or unscored case of this session, for the terminal."""
    dataset_problem: str | None = None
    described: tuple[dict[str, object], dict[str, object]] | None = None  # (model, sandbox) for the manifest
    started: str = field(default_factory=now_iso)
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Names this invocation across its xdist workers (cache entries and ledger lines carry it)."""
    model_side: ModelSide | None = None
    allowance: Allowance = field(default_factory=Allowance)
    selected: list[str] | None = None
    """Case keys of the selected benchmark items (known to the controller after collection)."""
    status: StatusLine | None = None
    deselected_without_model: int = 0
    """Benchmark cases dropped because no ``--model`` was given (told to the user at the end)."""


STATE = pytest.StashKey[BenchState]()


@dataclass(frozen=True)
class ValueOptions:
    """Long names of the benchmark's options that take a value (the harness's and every suite's).

    Known once the options are declared, which is before any ``config`` exists, so it is a plugin
    object registered by ``pytest_addoption`` (under :data:`VALUE_OPTIONS_PLUGIN`) rather than state
    of this module; :func:`_joined_values` uses it to join ``--opt VALUE`` into ``--opt=VALUE``.
    """

    names: frozenset[str]

    def joined(self, args: list[str]) -> list[str]:
        """``--report-dir DIR`` rewritten as ``--report-dir=DIR`` for every optbench value option."""
        joined: list[str] = []
        index = 0
        while index < len(args):
            if args[index] in self.names and index + 1 < len(args):
                joined.append(f"{args[index]}={args[index + 1]}")
                index += 2
                continue
            joined.append(args[index])
            index += 1
        return joined


VALUE_OPTIONS_PLUGIN = "optbench-value-options"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser)
    groups = [parser.getgroup("optbench")]
    for name in suite_names():
        groups.append(parser.getgroup(f"optbench {name}", f"optbench suite {name}"))
        get_suite(name).add_options(groups[-1])
    names = {
        name
        for group in groups
        for argument in group.options
        if argument.attrs().get("action") not in ("store_true", "store_false", "count")
        for name in argument.names()
        if name.startswith("--")
    }
    if pluginmanager.get_plugin(VALUE_OPTIONS_PLUGIN) is None:
        pluginmanager.register(ValueOptions(frozenset(names)), VALUE_OPTIONS_PLUGIN)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _hidden_paths(state: BenchState) -> tuple[Path, ...]:
    """What generated code must not see: the checkout (fixtures, reports), the dataset, the response
    cache and the home directory (credentials). Nested paths are covered by their parents."""
    candidates = [
        state.rootdir,
        *state.suite.hidden_paths(state.dataset),
        state.options.cache_dir,
        Path.home(),
    ]
    resolved = sorted({p.resolve() for p in candidates}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in resolved:
        if not any(path.is_relative_to(parent) for parent in kept):
            kept.append(path)
    return tuple(kept)


def _joined_values(config: pytest.Config, args: list[str]) -> list[str]:
    options = config.pluginmanager.get_plugin(VALUE_OPTIONS_PLUGIN)
    return options.joined(args) if isinstance(options, ValueOptions) else list(args)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Make ``--dataset PATH`` work like ``--dataset=PATH``.

    pytest picks its rootdir and ini file before any plugin option is known, so the value of an
    option given after a space counts as a test path there: a path outside the checkout makes it
    miss this project's ``pytest.ini`` (no ``testpaths``, no markers). When that happened, pytest
    is run again, at once, with the values joined; the run then is exactly the ``=`` form's. When
    pytest is not the main program (``pytest.main()`` inside another process) it cannot be, and
    the error says what to write instead.
    """
    if _is_worker(early_config):
        return
    raw = [str(arg) for arg in early_config.invocation_params.args]
    joined = _joined_values(early_config, raw)
    project_ini = Path(__file__).resolve().parents[1] / "pytest.ini"
    if (
        joined == raw
        or not project_ini.is_file()
        or early_config.inipath == project_ini
        or not early_config.invocation_params.dir.resolve().is_relative_to(project_ini.parent)
        or any(arg == "-c" or arg.startswith(("--config-file", "--rootdir")) for arg in raw)
    ):
        return
    if sys.argv[1:] != raw:
        raise pytest.UsageError(
            "pytest read the value of an optbench option as a test path and so missed pytest.ini; "
            "write value options with '=', e.g. --dataset=PATH --report-dir=DIR"
        )
    capture = early_config.pluginmanager.getplugin("capturemanager")
    if capture is not None:  # give the terminal back: the new process inherits the descriptors
        capture.stop_global_capturing()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "pytest", *joined])


def _join_option_values(config: pytest.Config) -> None:
    """Hand xdist workers the ``=`` form of every value option, so that a worker, which finds its
    rootdir from the same arguments, never reads a value as a test path."""
    joined = _joined_values(config, [str(arg) for arg in config.invocation_params.args])
    config.invocation_params = dataclasses.replace(config.invocation_params, args=tuple(joined))


def dry_run(config: pytest.Config) -> bool:
    """``--collect-only``, ``--setup-only`` and ``--setup-plan`` list cases: no model call, no
    sandbox, no run folder."""
    option = config.option
    return bool(
        option.collectonly or getattr(option, "setuponly", False) or getattr(option, "setupplan", False)
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "benchmark: a benchmark case (collected from a suite's dataset)")
    if not _is_worker(config):
        _join_option_values(config)
    options = RunOptions.from_config(config, suite_names())
    rootdir = Path(config.rootpath)
    dataset_problem: str | None = None
    try:
        suite = get_suite(options.suite)
        dataset = (options.dataset or suite.default_dataset()).resolve()
        try:
            instances = list(suite.discover(dataset))
        except DatasetError as exc:
            if options.model:
                raise
            instances, dataset_problem = [], str(exc)  # harness tests need no dataset
        if options.setting is not None and options.setting not in suite.settings:
            raise ValueError(
                f"suite {suite.name} has no setting {options.setting!r}; choose from {suite.settings}"
            )
        if options.gate:
            relative = any(c.relative for c in parse_gate(options.gate))
            if relative and options.gate_baseline is None:
                raise GateError(
                    f"--gate {options.gate!r} compares with a baseline: give --gate-baseline RUN_DIR"
                )
            baseline = options.gate_baseline
            # A listing (--collect-only) reads no baseline, so it may name one not made yet.
            if baseline is not None and not dry_run(config) and not (baseline / "results.jsonl").exists():
                raise GateError(f"--gate-baseline {options.gate_baseline}: no results.jsonl there")
        elif options.gate_allow_unscored is not None:
            raise GateError("--gate-allow-unscored needs a --gate")
        elif options.gate_baseline is not None:
            raise GateError("--gate-baseline needs a --gate, e.g. --gate 'pass@1>=baseline-0.02'")
        allowance = parse_allowance(options.gate_allow_unscored or "0")
        sample_specs(options.schedule, options.samples, options.temperature)
        if options.shard is not None:
            parse_shard(options.shard)
    except (ValueError, DatasetError, GateError) as exc:
        raise pytest.UsageError(str(exc)) from None
    suite.configure(config)
    state = BenchState(options=options, suite=suite, dataset=dataset, instances=instances, rootdir=rootdir)
    state.dataset_problem = dataset_problem
    state.allowance = allowance
    for marker, description in marker_declarations(suite, instances).items():
        config.addinivalue_line("markers", f"{marker}: {description}")
    for setting in _run_settings(suite):
        config.addinivalue_line("markers", f"{setting}: {suite.name} cases under setting {setting}")
    if options.model and not dry_run(config):
        if _is_worker(config):
            state.run = RunPaths(Path(config.workerinput[_WORKER_RUN_DIR]))  # type: ignore[attr-defined]
            state.session = config.workerinput[_WORKER_SESSION]  # type: ignore[attr-defined]
        else:
            _check_model_options(options, _other_models(config, suite))
            run_dir = choose_run_dir(
                rootdir / "reports", options.model, suite.name, options.report_dir, options.resume
            )
            state.run = RunPaths(run_dir.resolve())
            state.run.root.mkdir(parents=True, exist_ok=True)
            if getattr(config.option, "xmlpath", "") is None:  # absent under -p no:junitxml
                config.option.xmlpath = str(state.run.junit)
            if options.record is not None:
                ReplayRecorder(options.record).start(keep=options.resume)
    if state.run is not None and getattr(config.option, "tbstyle", None) == "auto":
        # a benchmark failure is one line (the record and JUnit hold the detail), not a traceback:
        # the optbench summary lists each failed or unscored case once, with its category
        config.option.tbstyle = "no"
        chars = str(getattr(config.option, "reportchars", "")).replace("a", "sxX").replace("A", "sxXpP")
        config.option.reportchars = chars.replace("f", "").replace("E", "").replace("s", "")
    config.stash[STATE] = state
    if state.run is not None:
        # A benchmark process ends with the solver stack and plotting libraries loaded: the garbage
        # collections of interpreter finalization would walk all of it for nothing (seconds).
        atexit.register(gc.freeze)
    if state.run is not None and not _is_worker(config):
        interval = os.environ.get("OPTBENCH_STATUS_INTERVAL_S")
        status = StatusLine(config, RequestLedger(state.run.root / LEDGER_FILE, state.session))
        if interval:
            status.tty_interval_s = status.plain_interval_s = float(interval)
        state.status = status
        config.pluginmanager.register(status, "optbench-status")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(config), "optbench-xdist")


def _other_models(config: pytest.Config, suite: Suite) -> dict[str, str]:
    """The other model aliases the suite will ask, by the option that names each (``model_options``,
    e.g. a code modifier's), for those given on this command line."""
    given = {name: config.getoption(name) for name in getattr(suite, "model_options", ())}
    return {name: str(alias) for name, alias in given.items() if alias}


def _check_model_options(options: RunOptions, others: dict[str, str]) -> None:
    """Resolve every alias once up front so a typo fails before any case runs, with the known list;
    refuse a spend cap that could not be enforced."""
    assert options.model is not None
    if options.max_in_flight < 1:
        raise pytest.UsageError(f"--max-in-flight must be at least 1, got {options.max_in_flight}")
    if options.max_cost is not None and options.max_cost <= 0:
        raise pytest.UsageError(f"--max-cost must be positive, got {options.max_cost:g}")
    for option, alias in {"--model": options.model, **others}.items():
        try:
            adapter = resolve_adapter(
                alias,
                models_file=options.models_file,
                cache_dir=options.cache_dir,
                offline=options.offline,
                cache_mode=options.cache,
            )
        except (ValueError, OSError) as exc:
            raise pytest.UsageError(f"{option}={alias}: {exc}") from None
        described = adapter.describe()
        priced = described.get("input_price_per_mtok") is not None
        if options.max_cost is not None and not (
            priced and described.get("output_price_per_mtok") is not None
        ):
            raise pytest.UsageError(
                f"--max-cost needs the cost of every call, but model {alias} ({option}) has no "
                "input_price_per_mtok and output_price_per_mtok in its models file"
            )


def _share(config: pytest.Config) -> Share:
    """This process's part of the run: xdist worker ``gwN`` of ``workercount``, or 1 of 1."""
    if not _is_worker(config):
        return Share()
    workerinput = config.workerinput  # type: ignore[attr-defined]
    return Share(index=int(str(workerinput["workerid"]).removeprefix("gw")), count=workerinput["workercount"])


def model_side(config: pytest.Config) -> ModelSide:
    """The process's model side, built on first use (every case and the generation phase share it)."""
    state = config.stash[STATE]
    if state.model_side is None:
        options = state.options
        assert options.model is not None and state.run is not None
        share = _share(config)
        ledger = RequestLedger(state.run.root / LEDGER_FILE, state.session)
        slots = share.slots(options.max_in_flight)
        permits = threading.BoundedSemaphore(slots)

        def build(alias: str) -> ModelAdapter:
            return resolve_adapter(
                alias,
                models_file=options.models_file,
                cache_dir=options.cache_dir,
                offline=options.offline,
                cache_mode=options.cache,
                session=state.session,
                behind_cache=lambda inner: GatedAdapter(inner, slots, ledger, options.max_cost, permits),
            )

        state.model_side = ModelSide(adapter=build(options.model), share=share, build=build)
    return state.model_side


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start this process's generation phase over its share of the selected cases (not for the
    oracle, which is not cached, nor offline, nor for cases a resumed run already finished)."""
    config = session.config
    state = config.stash[STATE]
    options = state.options
    if state.run is not None:
        gc.freeze()  # what startup and collection built lives to the end: later collections skip it
    if not _is_worker(config):
        state.selected = _selected_keys(state, [item.nodeid for item in session.items])
        if state.status is not None:
            state.status.selected = len(state.selected)
    if options.model is None or options.offline or state.run is None:
        return
    side = model_side(config)
    if not isinstance(side.adapter, CachedAdapter) or not side.adapter.prefetches:
        return
    assert state.run is not None
    finished = finished_cases(state.run.results) if options.resume else {}
    cases = [item.callspec.params[CASE_FIXTURE] for item in session.items if _is_case_item(item)]  # type: ignore[attr-defined]
    mine = [
        case for position, case in enumerate(cases) if side.share.owns(position) and case.key not in finished
    ]
    if not mine:
        return
    side.phase = GenerationPhase(
        side.adapter,
        state.suite,
        threads=min(len(mine), side.share.slots(options.max_in_flight)),
        max_tokens=options.max_tokens,
        objective_only=options.objective_only,
    )
    side.phase.start(mine)


def _is_case_item(item: pytest.Item) -> bool:
    return CASE_FIXTURE in getattr(item, "fixturenames", ()) and hasattr(item, "callspec")


def _case_of_nodeid(state: BenchState) -> dict[str, Case]:
    """Benchmark node ids → cases, as the controller derives them without collecting items."""
    path = "cases/test_benchmark.py::test_case"
    return {f"{path}[{case.test_id}]": case for case in _cases(state)}


def _selected_keys(state: BenchState, nodeids: list[str]) -> list[str]:
    by_nodeid = _case_of_nodeid(state)
    return [by_nodeid[n].key for n in nodeids if n in by_nodeid]


class _XdistHooks:
    """Registered only when xdist is installed (its hooks are unknown otherwise)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_configure_node(self, node: Any) -> None:
        state = node.config.stash[STATE]
        if state.run is not None:
            node.workerinput[_WORKER_RUN_DIR] = str(state.run.root)
            node.workerinput[_WORKER_SESSION] = state.session

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Every worker collects the same items; the first one to report names the selection."""
        state = self.config.stash[STATE]
        if state.selected is None:
            state.selected = _selected_keys(state, list(ids))
            if state.status is not None:
                state.status.selected = len(state.selected)

    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died under a case (``kill -9``, the OOM killer): the controller writes the case's
        record, a ``harness_error`` that ``--resume`` runs again, so it cannot silently vanish."""
        state = self.config.stash[STATE]
        case = _case_of_nodeid(state).get(crashitem)
        if case is None or state.run is None:
            return
        worker = getattr(getattr(report, "node", None), "gateway", None)
        detail = f"the xdist worker {getattr(worker, 'id', '?')} died while running this case"
        record = {
            **_base_record(case, state, state.suite.dataset_fingerprint(state.dataset), sandbox=None),
            "outcome": "error",
            "passed": False,
            "category": "harness_error",
            "detail": detail,
            "finished_at": now_iso(),
        }
        append_record(state.run.results, record)


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = config.stash[STATE]
    lines = [f"optbench: suite {state.suite.name}, {len(state.instances)} instances in {state.dataset}"]
    if state.dataset_problem:
        lines.append(f"optbench: dataset not loadable: {state.dataset_problem}")
    if state.options.model is None:
        lines.append("optbench: no --model given, so benchmark cases are not run (try --model=oracle)")
    elif state.run is not None:
        lines.append(f"optbench: model {state.options.model}, run folder {state.run.root}")
    return lines


def _run_settings(suite: Suite) -> tuple[str, ...]:
    """Settings a suite runs without ``--setting`` when it runs several (nldata's nine); each such
    case also carries its setting as a marker."""
    return tuple(getattr(suite, "run_settings", ()))


def _cases(state: BenchState) -> list[Case]:
    options = state.options
    several = _run_settings(state.suite)
    settings = (options.setting,) if options.setting else several or (state.suite.default_setting,)
    specs = sample_specs(options.schedule, options.samples, options.temperature)
    return [
        Case(
            instance,
            setting,
            spec.index,
            spec.temperature,
            markers=(*instance_markers(state.suite, instance), *((setting,) if several else ())),
        )
        for instance in state.instances
        for setting in settings
        for spec in specs
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_FIXTURE not in metafunc.fixturenames:
        return
    state = metafunc.config.stash[STATE]
    params = [
        pytest.param(
            case,
            id=case.test_id,
            marks=[pytest.mark.benchmark, *(getattr(pytest.mark, m) for m in case.markers)],
        )
        for case in _cases(state)
    ]
    metafunc.parametrize(CASE_FIXTURE, params)


@pytest.hookimpl(trylast=True)  # after -k/-m deselection, so shards split what was selected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    options = config.stash[STATE].options
    if options.model is not None:
        if options.shard is not None:
            _keep_shard(config, items, parse_shard(options.shard))
        return
    benchmark_items = [item for item in items if CASE_FIXTURE in getattr(item, "fixturenames", ())]
    if benchmark_items:
        config.stash[STATE].deselected_without_model = len(benchmark_items)
        config.hook.pytest_deselected(items=benchmark_items)
        items[:] = [item for item in items if item not in set(benchmark_items)]


def _keep_shard(config: pytest.Config, items: list[pytest.Item], shard: Shard) -> None:
    """Deselect the benchmark cases of the other shards."""
    cases = [item for item in items if CASE_FIXTURE in getattr(item, "fixturenames", ())]
    keep = {id(item) for item in shard.take(cases)}
    dropped = [item for item in cases if id(item) not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if id(item) not in {id(d) for d in dropped}]


@dataclass
class Runtime:
    """What every case of one worker shares: the adapter, the sandbox and the resume set."""

    adapter: ModelAdapter
    other: Callable[[str], ModelAdapter]
    """The adapter of another alias a suite asks (see :meth:`ModelSide.other`)."""
    sandbox: Sandbox
    limits: Limits
    finished: dict[str, dict[str, Any]]
    dataset: dict[str, str]


@pytest.fixture(scope="session")
def bench_runtime(pytestconfig: pytest.Config) -> Iterator[Runtime]:
    """Per worker; its sandbox is closed when the worker's session ends, so that no warm pool
    server outlives the cases (interpreter exit, atexit's turn, may come much later or never)."""
    state = pytestconfig.stash[STATE]
    options = state.options
    if state.run is None:
        pytest.skip("--setup-only/--setup-plan: benchmark cases are listed, not evaluated")
    assert options.model is not None
    prefer = kind_for_option(options.sandbox)
    side = model_side(pytestconfig)
    runtime = Runtime(
        adapter=side.adapter,
        other=side.other,
        sandbox=create_sandbox(_hidden_paths(state), prefer=prefer),
        limits=Limits(wall_timeout_s=options.exec_timeout, memory_mb=options.memory_mb),
        finished=finished_cases(state.run.results) if options.resume else {},
        dataset=state.suite.dataset_fingerprint(state.dataset),
    )
    yield runtime
    runtime.sandbox.close()


def _base_record(
    case: Case, state: BenchState, dataset: dict[str, str], sandbox: str | None
) -> dict[str, Any]:
    return {
        "suite": case.suite,
        "case": case.key,
        "test_id": case.test_id,
        **{label: case.instance.labels.get(label) for label in state.suite.labels},
        "setting": case.setting,
        "sample": case.sample,
        "temperature": case.temperature,
        "model": state.options.model,
        "harness_version": HARNESS_VERSION,
        "dataset_version": dataset.get("version"),
        "dataset_sha256": dataset.get("sha256"),
        "sandbox": sandbox,
    }


def _verdict_fields(verdict: Verdict) -> dict[str, Any]:
    return {
        "outcome": "passed" if verdict.passed else "failed",
        "passed": verdict.passed,
        "category": verdict.category,
        "detail": verdict.detail,
        "valid_code": verdict.valid_code,
        "expected_objective": verdict.expected_objective,
        "returned_objective": verdict.returned_objective,
        "recomputed_objective": verdict.recomputed_objective,
        "scores": verdict.scores,
        "execution": verdict.execution,
        "execution_time_s": (verdict.execution or {}).get("wall_s"),
        "extra": verdict.extra,
        "artifact": verdict.artifact,
        "output": {name: _tail(text, OUTPUT_TAIL_CHARS) for name, text in verdict.output.items()},
    }


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"[… {len(text) - limit} characters cut]\n{text[-limit:]}"


def _turns(calls: CallLog) -> list[dict[str, Any]]:
    """Every model call of the case, in order: the request key and the raw response."""
    return [
        {
            "key": key,
            "response": completion.text,
            "finish_reason": completion.finish_reason,
            "usage": dataclasses.asdict(completion.usage),
            "model_id": completion.model_id,
            "cache_hit": completion.cache_hit,
        }
        for key, completion in calls.turns
    ]


@pytest.fixture
def bench_verdict(request: pytest.FixtureRequest, bench_case: Case, bench_runtime: Runtime) -> dict[str, Any]:
    """Evaluate the case (or take its record when resuming) and return its result record."""
    state = request.config.stash[STATE]
    assert state.run is not None
    node = request.node
    previous = bench_runtime.finished.get(bench_case.key)
    if previous is not None:
        record = previous
    else:
        calls = CallLog(bench_runtime.adapter)
        context = CaseContext(
            case=bench_case,
            adapter=calls,
            models=lambda alias: CallLog(bench_runtime.other(alias), calls.turns),
            sandbox=bench_runtime.sandbox,
            limits=bench_runtime.limits,
            objective_only=state.options.objective_only,
            max_tokens=state.options.max_tokens,
        )
        record = _base_record(
            bench_case, state, bench_runtime.dataset, sandbox=str(bench_runtime.sandbox.kind)
        )
        started = time.perf_counter()
        problem: tuple[str, str, str] | None = None  # (outcome, category, detail)
        try:
            record.update(_verdict_fields(_checked(state.suite, state.suite.evaluate(bench_case, context))))
        except OracleUnavailable as exc:
            problem = ("skipped", "oracle_unavailable", str(exc))
        except NotEvaluable as exc:
            problem = ("skipped", "not_evaluable", str(exc))
            record["extra"] = exc.extra
        except AdapterError as exc:
            if exc.kind == "unsupported_input":
                problem = ("skipped", exc.kind, str(exc))
            else:
                problem = ("error", "api_error", f"{exc.kind}: {exc}")
        except DatasetError as exc:
            problem = ("error", "dataset_error", str(exc))
        except InfrastructureError as exc:
            problem = ("error", exc.category, str(exc))
        except Exception as exc:  # a bug in the suite's evaluation: recorded, never lost
            problem = ("error", "harness_error", f"{type(exc).__name__}: {exc}")
            record["traceback"] = "".join(traceback.format_exception(exc))[-TRACEBACK_TAIL_CHARS:]
        accounting = context.accounting
        record.update(
            {
                "model_ids": context.model_ids,
                "model_calls": accounting.calls,
                "cache_hits": accounting.cache_hits,
                "cache_hit": accounting.calls > 0 and accounting.cache_hits == accounting.calls,
                "shared_reply_from": accounting.shared_from,
                "turns": _turns(calls),
                "input_tokens": accounting.input_tokens,
                "output_tokens": accounting.output_tokens,
                "cost_usd": accounting.cost_usd,
                "model_time_s": round(accounting.latency_s, 4),
                "truncated": accounting.truncated,
                "total_time_s": round(time.perf_counter() - started, 4),
                "finished_at": now_iso(),
            }
        )
        if problem is not None:
            outcome, category, detail = problem
            record.update({"outcome": outcome, "passed": False, "category": category, "detail": detail})
        append_record(state.run.results, record)
        if state.options.record is not None:
            ReplayRecorder(state.options.record).append(bench_case.key, calls.turns)
    for key in (
        "family",
        "subcategory",
        "difficulty",
        "category",
        "returned_objective",
        "expected_objective",
    ):
        if record.get(key) is not None:
            node.user_properties.append((key, record[key]))
    node.user_properties.append(("outcome", record["outcome"]))
    if record["outcome"] == "skipped":
        pytest.skip(f"[{record['category']}] {record['detail']}")
    if record["outcome"] == "error":
        pytest.fail(
            f"[{record['category']}] {record['detail']} (not a model failure; --resume runs this case again)",
            pytrace=False,
        )
    return record


def _checked(suite: Suite, verdict: Verdict) -> Verdict:
    """A failure category the suite did not declare is a bug in the suite, not a model failure."""
    if not verdict.passed and verdict.category not in suite.failure_categories:
        raise ValueError(
            f"suite {suite.name} returned failure category {verdict.category!r}, which it does not "
            f"declare ({', '.join(suite.failure_categories)})"
        )
    return verdict


def assert_case_passed(record: dict[str, Any]) -> None:
    """The body of every benchmark item: a model failure fails the test with its category."""
    if not record["passed"]:
        expected, returned = record.get("expected_objective"), record.get("returned_objective")
        numbers = f" (returned {returned}, expected {expected})" if returned is not None else ""
        pytest.fail(f"[{record['category']}] {record['detail']}{numbers}", pytrace=False)


def pytest_sessionstart(session: pytest.Session) -> None:
    state = session.config.stash[STATE]
    if _is_worker(session.config) or state.run is None:
        return
    _write_manifest(session.config, state, finished=None)
    _warn_if_not_isolated(session.config, read_manifest(state.run).get("sandbox", {}))


def _warn_if_not_isolated(config: pytest.Config, sandbox: dict[str, Any]) -> None:
    warning = isolation_warning(sandbox)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if warning and reporter is not None:
        reporter.write_line(f"optbench: {warning}", yellow=True, bold=True)


def _write_manifest(
    config: pytest.Config,
    state: BenchState,
    finished: str | None,
    exitstatus: int | None = None,
    accounting: dict[str, Any] | None = None,
) -> None:
    assert state.run is not None and state.options.model is not None
    options = state.options
    previous = read_manifest(state.run)
    if state.described is None:  # once per session: the sandbox probe runs a process
        adapter = resolve_adapter(
            options.model,
            models_file=options.models_file,
            cache_dir=options.cache_dir,
            offline=options.offline,
            cache_mode=options.cache,
        )
        prefer = kind_for_option(options.sandbox)
        state.described = (adapter.describe(), create_sandbox(_hidden_paths(state), prefer=prefer).describe())
    model_description, sandbox_description = state.described
    sessions = list(previous.get("sessions", []))
    if finished is None:
        sessions.append(
            {"started": state.started, "args": list(config.invocation_params.args), "resume": options.resume}
        )
    else:
        spend = RequestLedger(state.run.root / LEDGER_FILE, state.session).spend()
        sessions[-1].update(
            {
                "finished": finished,
                "exitstatus": exitstatus,
                "requests_sent": spend.requests,
                "requests_failed": spend.failed,
                "request_retries": spend.retries,
                "spent_usd": round(spend.cost_usd, 6),
                "selected": state.selected,
            }
        )
    write_manifest(
        state.run,
        {
            "suite": state.suite.name,
            "dataset": {"root": str(state.dataset), **state.suite.dataset_fingerprint(state.dataset)},
            "model": model_description,
            "decoding": {
                "schedule": options.schedule,
                "samples": options.samples,
                "temperature": options.temperature,
                "max_tokens": options.max_tokens,
            },
            "setting": options.setting or state.suite.default_setting,
            **_suite_run_info(state.suite),
            "objective_only": options.objective_only,
            "execution": {"timeout_s": options.exec_timeout, "memory_mb": options.memory_mb},
            "requests": {
                "max_in_flight": options.max_in_flight,
                "max_cost_usd": options.max_cost,
                "offline": options.offline,
                "record": str(options.record) if options.record is not None else None,
            },
            "accounting": accounting if accounting is not None else previous.get("accounting"),
            "sandbox": sandbox_description,
            "git": git_revision(state.rootdir),
            "packages": package_versions(),
            "sessions": sessions,
            "shard": _shard_info(options.shard),
        },
    )


def _shard_info(text: str | None) -> dict[str, int] | None:
    shard = parse_shard(text) if text is not None else None
    return {"index": shard.index, "count": shard.count} if shard is not None else None


def _suite_run_info(suite: Suite) -> dict[str, Any]:
    """What a suite records about how it scored (its optional ``run_info()``, e.g. mmopt's scoring
    mode), for the run manifest and summary."""
    run_info = getattr(suite, "run_info", None)
    return dict(run_info()) if callable(run_info) else {}


def summarize_run(
    paths: RunPaths, run_info: dict[str, Any], suite: Suite, selected: list[str] | None = None
) -> dict[str, Any]:
    """Build and write ``summary.json`` and ``summary.md`` from the run's records."""
    records = list(latest_by_case(read_records(paths.results)).values())
    summary = build_summary(
        records,
        run_info,
        suite.report_tables(records),
        suite.official_settings,
        selected=selected,
        groupings=suite.groupings,
        failure_categories=suite.failure_categories,
    )
    paths.summary_json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths.summary_md.write_text(to_markdown(summary), encoding="utf-8")
    write_html_report(paths, summary, records)
    return summary


#: Failed or unscored cases listed one line each at the end of a run; the rest are in the records.
PROBLEM_LINES_SHOWN = 40


def _problem_lines(state: BenchState) -> tuple[str, ...]:
    """``FAILED|ERROR|SKIPPED <case>: [category] detail``, one line per case of the selection."""
    assert state.run is not None
    latest = latest_by_case(read_records(state.run.results))
    keys = state.selected if state.selected is not None else sorted(latest)
    word = {"failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED"}
    lines = []
    for key in keys:
        record = latest.get(key)
        if record is None:
            lines.append(f"ERROR {key}: [not recorded] the session ended before this case had a record")
        elif record["outcome"] in word:
            detail = " ".join(str(record.get("detail") or "").split())
            lines.append(f"{word[record['outcome']]} {key}: [{record.get('category')}] {detail}"[:400])
    if len(lines) > PROBLEM_LINES_SHOWN:
        more = len(lines) - PROBLEM_LINES_SHOWN
        lines = [*lines[:PROBLEM_LINES_SHOWN], f"… and {more} more (each in {state.run.results})"]
    return tuple(lines)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash[STATE]
    if state.model_side is not None and state.model_side.phase is not None:
        state.model_side.phase.stop()
    if _is_worker(config) or state.run is None:
        return
    options = state.options
    run_info: dict[str, Any] = {
        "model": options.model,
        "suite": state.suite.name,
        "setting": options.setting or state.suite.default_setting,
        "schedule": options.schedule
        if options.schedule == "paper"
        else f"single ({options.samples} samples)",
        "dataset": str(state.dataset),
        "sandbox": _sandbox_label(read_manifest(state.run).get("sandbox", {})),
        **_suite_run_info(state.suite),
    }
    summary = summarize_run(state.run, run_info, state.suite, state.selected)
    if options.gate:
        result = run_gate(summary, state.run.root, options.gate, state.allowance, options.gate_baseline)
        state.gate_lines = result.lines
        state.run.summary_json.write_text(
            json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        state.run.summary_md.write_text(to_markdown(summary), encoding="utf-8")
        write_html_report(state.run, summary)
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = pytest.ExitCode.OK if result.passed else pytest.ExitCode.TESTS_FAILED
    if options.record is not None:
        recording = ReplayRecorder(options.record).finalize()
        summary["run"]["recording"] = {"file": str(options.record), **dataclasses.asdict(recording)}
    state.summary = summary
    state.problem_lines = _problem_lines(state)
    exit_code = int(session.exitstatus)
    _write_manifest(config, state, finished=now_iso(), exitstatus=exit_code, accounting=summary["accounting"])


def pytest_unconfigure(config: pytest.Config) -> None:
    """The gate's decision as JUnit testsuite properties (junitxml has written the file by now)."""
    state = config.stash.get(STATE, None)
    xmlpath = getattr(config.option, "xmlpath", None)
    if state is None or state.summary is None or not xmlpath or not state.summary["run"].get("gate"):
        return
    add_junit_properties(Path(xmlpath), junit_properties(state.summary["run"]["gate"]))


def _sandbox_label(sandbox: dict[str, Any]) -> str | None:
    warning = isolation_warning(sandbox)
    return f"{sandbox.get('kind')} ({warning})" if warning else sandbox.get("kind")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Any:
    """The optbench summary is the last block: as the outermost wrapper it prints after pytest's own
    sections, the short test summary included."""
    result = yield
    state = config.stash[STATE]
    if state.deselected_without_model:
        terminalreporter.write_line(
            f"optbench: {state.deselected_without_model} benchmark cases deselected: they run only with"
            " --model=ALIAS (e.g. `pytest --model=oracle`); the harness's own tests are `pytest tests`"
        )
    if state.summary is None or state.run is None:
        return result
    terminalreporter.section("optbench summary")
    for line in state.problem_lines:
        terminalreporter.write_line(line)
    if state.problem_lines:
        terminalreporter.write_line("")
    for line in to_text(state.summary):
        terminalreporter.write_line(line)
    for line in state.gate_lines:
        terminalreporter.write_line(f"gate: {line}")
    terminalreporter.write_line(f"reports: {state.run.root}")
    _warn_if_not_isolated(config, read_manifest(state.run).get("sandbox", {}))
    return result
