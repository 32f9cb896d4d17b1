"""Benchmark cases as pytest items: one parametrization of ``cases/test_benchmark.py::test_case`` per
instance, setting and sample, with the suite's markers; the selection that a run must account for.

Without ``--model`` the cases are deselected (and the terminal says so), so that a plain ``pytest``
in the checkout lists them without running anything; ``--shard I/N`` keeps one share of what ``-k``
and ``-m`` selected.
"""

from __future__ import annotations

import pytest

from benchmark.cases import Case
from benchmark.plugin.configuration import BenchRun
from benchmark.reporting.shards import Shard, parse_shard
from benchmark.schedules import sample_specs
from benchmark.suites.base import Suite, instance_markers, marker_declarations

CASE_FIXTURE = "bench_case"
_TEST_PATH = "cases/test_benchmark.py::test_case"

SELECTION = pytest.StashKey[list[str]]()
"""Case keys of the selected benchmark items, in order (controller only, once collection is known)."""
DESELECTED_WITHOUT_MODEL = pytest.StashKey[int]()
"""Benchmark cases dropped because no ``--model`` was given (told to the user at the end)."""


def run_settings(suite: Suite) -> tuple[str, ...]:
    """Settings a suite runs without ``--setting`` when it runs several (nldata's nine); each such
    case also carries its setting as a marker."""
    return suite.run_settings


def cases(run: BenchRun) -> list[Case]:
    """Every case of the session, in collection order."""
    options = run.options
    several = run_settings(run.suite)
    settings = (options.setting,) if options.setting else several or (run.suite.default_setting,)
    specs = sample_specs(options.schedule, options.samples, options.temperature)
    return [
        Case(
            instance,
            setting,
            spec.index,
            spec.temperature,
            markers=(*instance_markers(run.suite, instance), *((setting,) if several else ())),
        )
        for instance in run.instances
        for setting in settings
        for spec in specs
    ]


def case_of_nodeid(run: BenchRun) -> dict[str, Case]:
    """Benchmark node ids → cases, as the xdist controller derives them without collecting items."""
    return {f"{_TEST_PATH}[{case.test_id}]": case for case in cases(run)}


def selected_keys(run: BenchRun, nodeids: list[str]) -> list[str]:
    by_nodeid = case_of_nodeid(run)
    return [by_nodeid[n].key for n in nodeids if n in by_nodeid]


def is_case_item(item: pytest.Item) -> bool:
    return CASE_FIXTURE in getattr(item, "fixturenames", ()) and hasattr(item, "callspec")


class CaseCollection:
    """Parametrizes the benchmark test with the session's cases and narrows them to the selection."""

    def __init__(self, config: pytest.Config, run: BenchRun) -> None:
        self.config = config
        self.run = run
        config.addinivalue_line("markers", "benchmark: a benchmark case (collected from a suite's dataset)")
        for marker, description in marker_declarations(run.suite, run.instances).items():
            config.addinivalue_line("markers", f"{marker}: {description}")
        # a setting chosen with --setting outside the default ones still marks its cases
        chosen = (run.options.setting,) if run.options.setting else ()
        for setting in dict.fromkeys((*run_settings(run.suite), *chosen)):
            config.addinivalue_line("markers", f"{setting}: {run.suite.name} cases under setting {setting}")

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if CASE_FIXTURE not in metafunc.fixturenames:
            return
        params = [
            pytest.param(
                case,
                id=case.test_id,
                marks=[pytest.mark.benchmark, *(getattr(pytest.mark, m) for m in case.markers)],
            )
            for case in cases(self.run)
        ]
        metafunc.parametrize(CASE_FIXTURE, params)

    @pytest.hookimpl(trylast=True)  # after -k/-m deselection, so shards split what was selected
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        options = self.run.options
        if options.model is not None:
            if options.shard is not None:
                _keep_shard(config, items, parse_shard(options.shard))
            return
        benchmark_items = [item for item in items if CASE_FIXTURE in getattr(item, "fixturenames", ())]
        if benchmark_items:
            config.stash[DESELECTED_WITHOUT_MODEL] = len(benchmark_items)
            config.hook.pytest_deselected(items=benchmark_items)
            items[:] = [item for item in items if item not in set(benchmark_items)]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Without xdist the controller collects the items itself (with it, see :mod:`.xdist`)."""
        if not self.run.worker:
            self.config.stash[SELECTION] = selected_keys(self.run, [item.nodeid for item in session.items])


def _keep_shard(config: pytest.Config, items: list[pytest.Item], shard: Shard) -> None:
    """Deselect the benchmark cases of the other shards."""
    case_items = [item for item in items if CASE_FIXTURE in getattr(item, "fixturenames", ())]
    keep = {id(item) for item in shard.take(case_items)}
    dropped = [item for item in case_items if id(item) not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if id(item) not in {id(d) for d in dropped}]
