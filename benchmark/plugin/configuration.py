"""What a benchmark session is, decided once in ``pytest_configure``: the suite, the dataset and its
instances, the gate's allowance and the run folder.

Every option is checked here, before anything runs, so that a wrong one is a usage error naming it
rather than a failure in the middle of a run. The result, :class:`BenchRun`, is given to every
optbench plugin object when it is registered; it does not change afterwards.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from adapters import resolve_adapter
from adapters.record import ReplayRecorder
from benchmark.cases import InstanceRef
from benchmark.gate import Allowance, GateError, parse_allowance, parse_gate
from benchmark.options import RunOptions
from benchmark.reporting.shards import parse_shard
from benchmark.run import RunPaths, choose_run_dir, now_iso
from benchmark.schedules import sample_specs
from benchmark.suites.base import Suite, get_suite, suite_names
from benchmark.verdict import DatasetError

#: ``workerinput`` keys by which the xdist controller hands its run folder and session to workers.
WORKER_RUN_DIR = "optbench_run_dir"
WORKER_SESSION = "optbench_session"


@dataclass(frozen=True)
class BenchRun:
    """The session's benchmark settings, the same for every plugin object of the process."""

    options: RunOptions
    suite: Suite
    dataset: Path
    instances: tuple[InstanceRef, ...]
    rootdir: Path
    worker: bool
    """An xdist worker: it runs cases and appends records; the controller writes the reports."""
    run: RunPaths | None = None
    """The run folder; None when there is no run (no ``--model``, or only a listing)."""
    allowance: Allowance = field(default_factory=Allowance)
    dataset_problem: str | None = None
    """Why the dataset did not load, when harness tests run without one."""
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Names this invocation across its xdist workers (cache entries and ledger lines carry it)."""
    started: str = field(default_factory=now_iso)

    @property
    def setting(self) -> str:
        return self.options.setting or self.suite.default_setting


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def dry_run(config: pytest.Config) -> bool:
    """``--collect-only``, ``--setup-only`` and ``--setup-plan`` list cases: no model call, no
    sandbox, no run folder."""
    option = config.option
    return bool(
        option.collectonly or getattr(option, "setuponly", False) or getattr(option, "setupplan", False)
    )


def configure_run(config: pytest.Config) -> BenchRun:
    """Check the options, load the dataset and, for a run, pick (controller) or take (xdist worker)
    its folder. A bad option or an unreadable dataset of a run is a :class:`pytest.UsageError`."""
    options = RunOptions.from_config(config, suite_names())
    try:
        suite = get_suite(options.suite)
        options = _with_model_source(config, suite, options)
        dataset = (options.dataset or suite.default_dataset()).resolve()
        dataset_problem: str | None = None
        try:
            instances = tuple(suite.discover(dataset))
        except DatasetError as exc:
            if options.model:
                raise
            instances, dataset_problem = (), str(exc)  # harness tests need no dataset
        if options.setting is not None and options.setting not in suite.settings:
            raise ValueError(
                f"suite {suite.name} has no setting {options.setting!r}; choose from {suite.settings}"
            )
        allowance = _checked_gate(config, options)
        sample_specs(options.schedule, options.samples, options.temperature)
        if options.shard is not None:
            parse_shard(options.shard)
    except (ValueError, DatasetError, GateError) as exc:
        raise pytest.UsageError(str(exc)) from None
    suite.configure(config)
    run = BenchRun(
        options=options,
        suite=suite,
        dataset=dataset,
        instances=instances,
        rootdir=Path(config.rootpath),
        worker=is_worker(config),
        allowance=allowance,
        dataset_problem=dataset_problem,
    )
    if not options.model or dry_run(config):
        return run
    if run.worker:
        workerinput = config.workerinput  # type: ignore[attr-defined]
        return _with_run(run, RunPaths(Path(workerinput[WORKER_RUN_DIR])), workerinput[WORKER_SESSION])
    _check_model_options(options, _other_models(config, suite))
    run_dir = choose_run_dir(
        run.rootdir / "reports", options.model, suite.name, options.report_dir, options.resume
    )
    paths = RunPaths(run_dir.resolve())
    paths.root.mkdir(parents=True, exist_ok=True)
    if getattr(config.option, "xmlpath", "") is None:  # absent under -p no:junitxml
        config.option.xmlpath = str(paths.junit)
    if options.record is not None:
        ReplayRecorder(options.record).start(keep=options.resume)
    return _with_run(run, paths, run.session)


def _with_run(run: BenchRun, paths: RunPaths, session: str) -> BenchRun:
    return dataclasses.replace(run, run=paths, session=session)


def _checked_gate(config: pytest.Config, options: RunOptions) -> Allowance:
    """The gate's options agree with each other; the allowance of unscored cases they give."""
    if options.gate:
        relative = any(c.relative for c in parse_gate(options.gate))
        if relative and options.gate_baseline is None:
            raise GateError(f"--gate {options.gate!r} compares with a baseline: give --gate-baseline RUN_DIR")
        baseline = options.gate_baseline
        # A listing (--collect-only) reads no baseline, so it may name one not made yet.
        if baseline is not None and not dry_run(config) and not (baseline / "results.jsonl").exists():
            raise GateError(f"--gate-baseline {options.gate_baseline}: no results.jsonl there")
    elif options.gate_allow_unscored is not None:
        raise GateError("--gate-allow-unscored needs a --gate")
    elif options.gate_baseline is not None:
        raise GateError("--gate-baseline needs a --gate, e.g. --gate 'pass@1>=baseline-0.02'")
    return parse_allowance(options.gate_allow_unscored or "0")


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


def hidden_paths(run: BenchRun) -> tuple[Path, ...]:
    """What generated code must not see: the checkout (fixtures, reports), the dataset, the response
    cache and the home directory (credentials). Nested paths are covered by their parents."""
    candidates = [run.rootdir, *run.suite.hidden_paths(run.dataset), run.options.cache_dir, Path.home()]
    resolved = sorted({p.resolve() for p in candidates}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in resolved:
        if not any(path.is_relative_to(parent) for parent in kept):
            kept.append(path)
    return tuple(kept)


def _with_model_source(config: pytest.Config, suite: Suite, options: RunOptions) -> RunOptions:
    """Without ``--model``, the model source the suite's own options name (its optional
    ``model_source(config)``: a folder of answer files an external agent wrote is ``artifacts:DIR``),
    so a run that only scores such files needs no stand-in model, and its manifest, records and run
    folder name that source."""
    source = getattr(suite, "model_source", None)
    if options.model is not None or not callable(source):
        return options
    named = source(config)
    return dataclasses.replace(options, model=named) if named else options
