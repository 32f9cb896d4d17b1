"""The pytest plugin: benchmark cases as parametrized items, model adapters behind fixtures, records
written as cases finish, and reports at the end of the session.

This module declares the options and the two benchmark fixtures, and registers one plugin object
per concept, each holding its own state and given the session's :class:`.configuration.BenchRun`;
what one of them makes for others is in ``config.stash`` under a typed key (in capitals below):

- :mod:`.arguments` (``ValueOptions``): ``--opt VALUE`` as ``--opt=VALUE``, or a usage error saying so;
- :mod:`.configuration`: the session's suite, dataset and run folder, checked once;
- :mod:`.collection` (``CaseCollection``): cases as items, the selection (``SELECTION``) and the
  cases dropped for want of a model (``DESELECTED_WITHOUT_MODEL``);
- :mod:`.evaluation` (``CaseEvaluation``, ``EVALUATION``): running a case into exactly one record;
- :mod:`.workers` (``WorkerAccounting``): the xdist controller's side, a dead worker's case;
- :mod:`.run_folder` (``RunFolder``): manifest, summary and gate (``OUTCOME``);
- :mod:`.terminal` (``TerminalReport``) and :mod:`.status` (``StatusLine``): what the user sees.

Model failures make the test fail; infrastructure faults (endpoint, sandbox, damaged dataset) fail
it as not the model's, so JUnit dashboards keep the two apart. Under xdist the controller picks
the run folder and hands it to the workers; only the controller writes the summary, the manifest
and JUnit XML.
"""

from __future__ import annotations

import atexit
import gc
import os
from collections.abc import Iterator

import pytest

from benchmark.cases import Case
from benchmark.ledger import LEDGER_FILE, RequestLedger
from benchmark.options import add_options
from benchmark.plugin.arguments import ValueOptions, value_option_names
from benchmark.plugin.collection import CaseCollection
from benchmark.plugin.configuration import configure_run
from benchmark.plugin.evaluation import EVALUATION, CaseEvaluation, Runtime
from benchmark.plugin.run_folder import RunFolder
from benchmark.plugin.status import StatusLine
from benchmark.plugin.terminal import TerminalReport, one_line_failures
from benchmark.plugin.workers import WorkerAccounting
from benchmark.schema import CaseRecord
from benchmark.suites.base import get_suite, suite_names

_VALUE_OPTIONS = "optbench-value-options"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser)
    groups = [parser.getgroup("optbench")]
    for name in suite_names():
        groups.append(parser.getgroup(f"optbench {name}", f"optbench suite {name}"))
        get_suite(name).add_options(groups[-1])
    if pluginmanager.get_plugin(_VALUE_OPTIONS) is None:
        pluginmanager.register(ValueOptions(value_option_names(groups)), _VALUE_OPTIONS)


@pytest.hookimpl(tryfirst=True)  # before junitxml and the terminal reporter read the options it sets
def pytest_configure(config: pytest.Config) -> None:
    run = configure_run(config)
    register = config.pluginmanager.register
    register(CaseCollection(config, run), "optbench-collection")
    config.stash[EVALUATION] = CaseEvaluation(config, run)
    register(config.stash[EVALUATION], "optbench-evaluation")
    register(TerminalReport(config, run), "optbench-terminal")
    if config.pluginmanager.hasplugin("xdist"):
        register(WorkerAccounting(config, run), "optbench-xdist")
    if run.run is None:
        return
    one_line_failures(config)
    # A benchmark process ends with the solver stack and plotting libraries loaded: the garbage
    # collections of interpreter finalization would walk all of it for nothing (seconds).
    atexit.register(gc.freeze)
    if run.worker:
        return
    register(RunFolder(config, run, run.run), "optbench-run-folder")
    status = StatusLine(config, RequestLedger(run.run.root / LEDGER_FILE, run.session))
    interval = os.environ.get("OPTBENCH_STATUS_INTERVAL_S")
    if interval:
        status.tty_interval_s = status.plain_interval_s = float(interval)
    register(status, "optbench-status")


@pytest.fixture(scope="session")
def bench_runtime(pytestconfig: pytest.Config) -> Iterator[Runtime]:
    """What every case of this process shares: the adapter, the sandbox and the resume set. Its
    sandbox is closed when the session ends, so that no warm pool server outlives the cases
    (interpreter exit, atexit's turn, may come much later or never)."""
    runtime = pytestconfig.stash[EVALUATION].runtime()
    yield runtime
    runtime.sandbox.close()


@pytest.fixture
def bench_verdict(request: pytest.FixtureRequest, bench_case: Case, bench_runtime: Runtime) -> CaseRecord:
    """The case's record: evaluated now, or taken from the run when resuming."""
    return request.config.stash[EVALUATION].verdict(request.node, bench_case, bench_runtime)
