"""The generation phase's first request of an MM-OptBench case is the case's own first request.

``MMOptSuite.first_request`` builds it without the instance check (see ``benchmark/prefetch.py``),
so it must still be the very request ``evaluate`` makes first: the same cache key (or the case
would send it again) and the same case key (or the record would say the reply was another
case's). Each setting is compared with what ``evaluate`` sends, captured at its first call.
"""

from __future__ import annotations

import pytest

from adapters.base import CompletionRequest
from adapters.cache import cache_key
from benchmark.cases import Case
from benchmark.prefetch import _Captured, _CaptureModel, _NoSandbox, first_request
from benchmark.sandbox import Limits
from benchmark.suites.base import CaseContext
from benchmark.suites.mmopt.attribution_tables import SETTINGS
from benchmark.suites.mmopt.package import discover
from benchmark.suites.mmopt.suite import _FIXTURES, SUITE

IDENTITY = {"model_id": "m", "endpoint": "e", "extra_body": None}


def _evaluate_first_request(case: Case) -> CompletionRequest:
    """The request ``evaluate`` sends first (what the generation phase captured before)."""
    context = CaseContext(
        case=case,
        adapter=_CaptureModel(),
        sandbox=_NoSandbox(),  # type: ignore[arg-type]
        limits=Limits(),
        objective_only=False,
        max_tokens=512,
    )
    with pytest.raises(_Captured) as captured:
        SUITE.evaluate(case, context)
    return captured.value.request


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_prefetched_request_is_the_one_the_case_sends_first(setting: str) -> None:
    refs = [ref for ref in discover(_FIXTURES) if ref.labels["instance_id"] in ("gc_e_001", "mf_h_002")]
    assert len(refs) == 2
    for ref in refs:
        case = Case(instance=ref, setting=setting, sample=1, temperature=0.7)
        expected = _evaluate_first_request(case)
        prefetched = first_request(SUITE, case, max_tokens=512, objective_only=False)
        assert prefetched is not None
        assert prefetched.case_key == expected.case_key
        assert prefetched.decoding == expected.decoding
        assert cache_key(IDENTITY, prefetched) == cache_key(IDENTITY, expected)


def test_an_unknown_setting_gets_no_prefetch() -> None:
    ref = discover(_FIXTURES)[0]
    case = Case(instance=ref, setting="no_such_setting", sample=0, temperature=0.0)
    assert first_request(SUITE, case, max_tokens=512, objective_only=False) is None
