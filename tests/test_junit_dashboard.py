"""``junit.xml`` as a CI dashboard reads it (junitparser): cases grouped by suite, family and
subcategory, a testsuite named after the suite with the run's model, dataset and pass@1 as
properties (no gate needed), tokens and cost per case, and a run time that is the run's wall time."""

from __future__ import annotations

import time
from collections import Counter
from xml.etree import ElementTree

import pytest
from junitparser import JUnitXml

from benchmark.plugin.evaluation import junit_case_properties
from benchmark.suites.base import get_suite

pytestmark = pytest.mark.slow


def _properties(suite) -> dict[str, str]:
    return {p.name: p.value for p in suite.properties()}


def test_junit_groups_cases_by_suite_and_subcategory_and_shows_the_model_and_pass_at_1(bench) -> None:
    started = time.monotonic()
    run = bench("--model=oracle", "-k", "mf_e_001 or mf_e_002 or mcf_e_001", "-n", "2")
    elapsed = time.monotonic() - started
    assert run.returncode == 0, run.output[-3000:]
    xml = JUnitXml.fromfile(str(run.run_dir / "junit.xml"))
    (suite,) = list(xml)
    assert suite.name == "mmopt"
    classes = Counter(case.classname for case in suite)
    assert classes == {
        "mmopt.network_optimization.maximum_flow": 2,
        "mmopt.network_optimization.minimum_cost_flow": 1,
    }
    properties = _properties(suite)
    assert properties["optbench.model"] == "oracle"
    assert properties["optbench.suite"] == "mmopt"
    assert float(properties["optbench.pass@1"]) == 1.0
    record = run.records[0]
    assert properties["optbench.dataset.version"] == record["dataset_version"]
    assert properties["optbench.dataset.sha256"] == record["dataset_sha256"]
    assert "optbench.gate" not in properties  # no gate ran, the run's facts are there all the same
    # junitparser reads test-case properties only as elements (its TestCase has no properties())
    for case in ElementTree.parse(run.run_dir / "junit.xml").getroot().iter("testcase"):
        case_properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert case_properties["input_tokens"] == "0" and case_properties["output_tokens"] == "0"
        assert float(case_properties["model_time_s"]) >= 0.0
        assert case_properties["end_reason"].startswith("model finished")
    # the root's time is the session's wall time, never more than the test measured around it
    assert 0 < float(xml.time) <= elapsed
    assert float(xml.time) == float(suite.time)


def test_tbmath_junit_names_its_o_eval_as_such_and_other_suites_an_objective() -> None:
    record = {
        "suite": "tbmath",
        "family": "forecasting",
        "outcome": "failed",
        "category": "wrong_objective",
        "returned_objective": 0.42,
        "expected_objective": 1.0,
        "input_tokens": 1200,
        "output_tokens": 80,
        "cost_usd": 0.0031,
    }
    tbmath = dict(junit_case_properties(record, get_suite("tbmath")))
    assert tbmath["returned_o_eval"] == 0.42 and tbmath["expected_o_eval"] == 1.0
    assert not any("objective" in name for name in tbmath)
    assert (tbmath["input_tokens"], tbmath["output_tokens"], tbmath["cost_usd"]) == (1200, 80, 0.0031)
    mmopt = dict(junit_case_properties({**record, "suite": "mmopt"}, get_suite("mmopt")))
    assert mmopt["returned_objective"] == 0.42


def test_merged_shards_take_the_wall_time_they_spanned_not_the_sum(tmp_path) -> None:
    from benchmark.reporting.merge import _merge_junit

    shards = []
    for index, (start, seconds) in enumerate(
        (("2026-01-05T10:00:00+00:00", 60.0), ("2026-01-05T10:00:10+00:00", 60.0))
    ):
        path = tmp_path / f"shard{index}.xml"
        path.write_text(
            f'<testsuites><testsuite name="pytest" tests="1" errors="0" failures="0" skipped="0" '
            f'time="{seconds}" timestamp="{start}"><testcase classname="cases.test_benchmark" '
            f'name="test_case[x{index}]" time="{seconds}"/></testsuite></testsuites>'
        )
        shards.append(path)
    _merge_junit(shards, tmp_path / "merged.xml")
    xml = JUnitXml.fromfile(str(tmp_path / "merged.xml"))
    (suite,) = list(xml)
    assert float(suite.time) == 70.0 and float(xml.time) == 70.0  # 10:00:00 to 10:01:10, side by side
    assert suite.tests == 2
