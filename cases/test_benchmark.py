"""Every benchmark case is a parametrization of this one test (see ``benchmark.plugin.collection``)."""

from __future__ import annotations

from typing import Any

from benchmark.cases import Case
from benchmark.plugin.evaluation import assert_case_passed


def test_case(bench_case: Case, bench_verdict: dict[str, Any]) -> None:
    assert_case_passed(bench_verdict)
