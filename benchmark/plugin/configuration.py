"""What a benchmark session is, decided once in ``pytest_configure``: the suite, the dataset and its
instances, the gate's allowance and the run folder.

Every option is checked here, before anything runs, so that a wrong one is a usage error naming it
rather than a failure in the middle of a run. The result, :class:`BenchRun`, is given to every
optbench plugin object when it is registered; it does not change afterwards.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _pytest.mark import deselect_by_keyword, deselect_by_mark

from adapters import resolve_adapter
from adapters.record import ReplayRecorder
from benchmark.cases import InstanceRef
from benchmark.categories import CaseOutcome
from benchmark.gate import Allowance, GateError, check_metrics, parse_allowance, parse_gate
from benchmark.options import RunOptions
from benchmark.reporting.shards import parse_shard
from benchmark.reporting.summary import metric_block
from benchmark.run import RunPaths, check_reuse, choose_run_dir, now_iso
from benchmark.schedules import SampleSpec, sample_specs
from benchmark.schema import CaseRecord
from benchmark.suites.base import Suite, get_suite, suite_names
from benchmark.verdict import DatasetError

#: ``workerinput`` keys by which the xdist controller hands its run folder, session and the
#: dataset's fingerprint to workers.
WORKER_RUN_DIR = "optbench_run_dir"
WORKER_SESSION = "optbench_session"
WORKER_DATASET = "optbench_dataset"


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
    given_fingerprint: dict[str, str] | None = None
    """The dataset's fingerprint as the xdist controller computed it (workers only)."""

    @property
    def setting(self) -> str:
        return self.options.setting or self.suite.default_setting

    @functools.cached_property
    def dataset_fingerprint(self) -> dict[str, str]:
        """The dataset's name, version and content hash (manifest and records), computed once per
        run: hashing every file of MM-OptBench's 780 packages takes about a second, which each
        worker used to spend again on its first case while its generation phase started."""
        if self.given_fingerprint is not None:
            return self.given_fingerprint
        return self.suite.dataset_fingerprint(self.dataset)


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
    its folder. A bad option or an unreadable dataset of a run is a :class:`pytest.UsageError`.

    The folder itself is made when the session starts (:mod:`.run_folder`), after pytest's own
    checks of ``-k`` and ``-m``: a usage error leaves no run folder behind."""
    options = RunOptions.from_config(config, suite_names())
    try:
        options.check()
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
        if options.model and not instances:
            raise ValueError(f"dataset {dataset}: no {suite.name} cases there (an empty or wrong folder?)")
        if options.setting is not None and options.setting not in suite.settings:
            raise ValueError(
                f"suite {suite.name} has no setting {options.setting!r}; choose from {suite.settings}"
            )
        specs = sample_specs(options.schedule, options.samples, options.temperature)
        allowance = _checked_gate(config, options, suite, specs)
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
        worker_run = _with_run(run, RunPaths(Path(workerinput[WORKER_RUN_DIR])), workerinput[WORKER_SESSION])
        return dataclasses.replace(worker_run, given_fingerprint=workerinput.get(WORKER_DATASET))
    _check_model_options(options, _other_models(config, suite))
    run_dir = choose_run_dir(
        run.rootdir / "reports", options.model, suite.name, options.report_dir, options.resume
    )
    try:
        check_reuse(run_dir, options.model, suite.name, options.resume)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    paths = RunPaths(run_dir.resolve())
    if getattr(config.option, "xmlpath", "") is None:  # absent under -p no:junitxml
        config.option.xmlpath = str(paths.junit)
    return _with_run(run, paths, run.session)


def start_run_folder(config: pytest.Config, run: BenchRun) -> None:
    """Make the run folder (and start the replay recording) once every check has passed: pytest's
    own of ``-k`` and ``-m`` too, which it makes only at collection, after ``pytest_configure``.

    Those run here first, on no items, so that a marker typo is one usage error before anything is
    written rather than a run folder of "not recorded" cases followed by the error."""
    deselect_by_keyword([], config)
    deselect_by_mark([], config)
    assert run.run is not None
    run.run.root.mkdir(parents=True, exist_ok=True)
    if run.options.record is not None:
        ReplayRecorder(run.options.record).start(keep=run.options.resume)


def _with_run(run: BenchRun, paths: RunPaths, session: str) -> BenchRun:
    return dataclasses.replace(run, run=paths, session=session)


def _checked_gate(
    config: pytest.Config, options: RunOptions, suite: Suite, specs: tuple[SampleSpec, ...]
) -> Allowance:
    """The gate's options agree with each other and name metrics this run defines; the allowance
    of unscored cases they give."""
    if options.gate:
        conditions = parse_gate(options.gate)
        check_metrics(conditions, _defined_metrics(options, suite, specs), len(specs))
        relative = any(c.relative for c in conditions)
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


def _defined_metrics(options: RunOptions, suite: Suite, specs: tuple[SampleSpec, ...]) -> set[str]:
    """The numeric metrics the summary of this run will have, as the gate reads them: the summary's
    own metric block over one instance of this run's samples (none when every setting it runs is a
    diagnostic one, whose records the official metrics leave out)."""
    settings = (options.setting,) if options.setting else suite.run_settings or (suite.default_setting,)
    official = any(s in suite.official_settings for s in settings)
    shape = [
        CaseRecord(suite=suite.name, case=f"instance/s{spec.index}", setting=settings[0], sample=spec.index,
                   temperature=spec.temperature, outcome=CaseOutcome.FAILED, passed=False)
        for spec in (specs if official else ())
    ]  # fmt: skip
    return {k for k, v in metric_block(shape).items() if isinstance(v, int | float) or v is None}


def _other_models(config: pytest.Config, suite: Suite) -> dict[str, str]:
    """The other model aliases the suite will ask, by the option that names each (``model_options``,
    e.g. a code modifier's), for those given on this command line."""
    given = {name: config.getoption(name) for name in suite.model_options}
    return {name: str(alias) for name, alias in given.items() if alias}


def _check_model_options(options: RunOptions, others: dict[str, str]) -> None:
    """Resolve every alias once up front so a typo fails before any case runs, with the known list;
    refuse a spend cap that could not be enforced."""
    assert options.model is not None
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
        key_env = described.get("api_key_env")
        if isinstance(key_env, str) and not os.environ.get(key_env) and not options.offline:
            raise pytest.UsageError(
                f"{option}={alias}: environment variable {key_env} is not set; it must hold the API "
                f"key for {described.get('base_url')} (models file {described.get('models_file')}), "
                "or pass --offline to answer from the response cache alone"
            )
        priced = described.get("input_price_per_mtok") is not None
        if options.max_cost is not None and not (
            priced and described.get("output_price_per_mtok") is not None
        ):
            raise pytest.UsageError(
                f"--max-cost needs the cost of every call, but model {alias} ({option}) has no "
                "input_price_per_mtok and output_price_per_mtok in its models file"
            )
        output_price = described.get("output_price_per_mtok")
        if options.max_cost is not None and isinstance(output_price, int | float):
            limit = described.get("max_output_tokens")
            tokens = min(options.max_tokens, limit) if isinstance(limit, int) else options.max_tokens
            if tokens * output_price / 1e6 > options.max_cost:
                raise pytest.UsageError(
                    f"--max-cost ${options.max_cost:g} cannot cover one request of model {alias} ({option}): "
                    f"{tokens} output tokens at ${output_price:g}/Mtok may cost "
                    f"${tokens * output_price / 1e6:.4f}, and each request reserves its worst case "
                    "before it is sent; raise --max-cost or lower --max-tokens"
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
    named = suite.model_source(config)
    if named is None and config.getoption("artifacts", None):
        raise ValueError(
            f"--artifacts: suite {suite.name} takes no answer files (its answers are model replies; "
            "--model=replay:FILE scores replies recorded elsewhere)"
        )
    if options.model is not None:
        return options
    return dataclasses.replace(options, model=named) if named else options
