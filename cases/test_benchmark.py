"""Every benchmark case is a parametrization of this one test (see ``benchmark.plugin.collection``)."""

from __future__ import annotations

from benchmark.cases import Case
from benchmark.plugin.evaluation import assert_case_passed
from benchmark.schema import CaseRecord


def test_case(bench_case: Case, bench_verdict: CaseRecord) -> None:
    assert_case_passed(bench_verdict)
