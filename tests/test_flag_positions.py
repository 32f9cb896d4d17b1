"""On/off flags and value options in every position, under xdist, as a user types them.

pytest 9.2 changed what ``Argument.attrs()`` returns (the parsed ``argparse.Action``'s attributes,
no ``action`` key); the value-joining rewrite then glued ``--offline`` to the next word and every
worker crashed. These tests read the options pytest itself registered, and run real sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.plugin.arguments import takes_value
from tests.conftest import REPO, run_bench

FLAGS = ("--offline", "--resume", "--objective-only")


def _registered_value_options(config: pytest.Config) -> frozenset[str]:
    plugin = config.pluginmanager.get_plugin("optbench-value-options")
    assert plugin is not None, "the plugin registers its value-option table at pytest_addoption"
    return plugin.names


def test_flags_are_never_value_options(pytestconfig: pytest.Config) -> None:
    names = _registered_value_options(pytestconfig)
    assert not set(FLAGS) & names
    assert {"--report-dir", "--model", "--dataset", "--suite"} <= names


def test_takes_value_reads_both_pytest_shapes() -> None:
    assert not takes_value({"nargs": 0, "option_strings": ["--offline"]})  # pytest >= 9.2: the Action
    assert not takes_value({"action": "store_true"})  # pytest < 9.2: the addoption keywords
    assert takes_value({"nargs": None, "option_strings": ["--model"]})
    assert takes_value({"type": str})


@pytest.mark.slow
@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_flags_in_every_position_under_xdist(tmp_path: Path, position: str) -> None:
    run_dir = tmp_path / "run"
    value_args = ["--report-dir", str(run_dir), "-k", "mf_e_001", "--model", "oracle", "-n", "2"]
    flags = list(FLAGS)
    if position == "first":
        args = [*flags, *value_args]
    elif position == "middle":
        args = [*value_args[:2], *flags, *value_args[2:]]
    else:
        args = [*value_args, *flags]
    # run_bench adds its own --report-dir=...; pass the same folder so both name one place.
    run = run_bench(run_dir, *args)
    assert "ignored explicit argument" not in run.output, run.output[-2000:]
    assert "maximum crashed workers" not in run.output, run.output[-2000:]
    assert run.returncode == 0, run.output[-3000:]
    records = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["passed"] for r in records] == [True]
    assert (REPO / "pytest.ini").is_file()
