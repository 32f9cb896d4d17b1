"""The generation phase's first request of an MM-OptBench case is the case's own first request.

``MMOptSuite.first_request`` builds it from the case alone, without the instance check (see
``benchmark/prefetch.py``), so it must still be the very request ``solve`` makes first: the same
cache key (or the case would send it again) and the same case key (or the record would say the
reply was another case's). Each setting is compared with what ``solve`` sends, caught at its
first call by an endpoint that stops the case there.
"""

from __future__ import annotations

import pytest

from adapters.base import Completion, CompletionRequest
from adapters.cache import cache_key
from benchmark.cases import Case
from benchmark.prefetch import first_request
from benchmark.sandbox import Limits, SandboxKind, create_sandbox
from benchmark.suites.base import CaseContext
from benchmark.suites.mmopt.attribution_tables import SETTINGS
from benchmark.suites.mmopt.package import discover
from benchmark.suites.mmopt.suite import _FIXTURES, SUITE

IDENTITY = {"model_id": "m", "endpoint": "e", "extra_body": None}


class _Stop(Exception):
    def __init__(self, request: CompletionRequest) -> None:
        super().__init__(request.case_key)
        self.request = request


class _StopAtFirstCall:
    name = "stop-at-first-call"

    def describe(self) -> dict[str, object]:
        return {"adapter": self.name}

    def complete(self, request: CompletionRequest) -> Completion:
        raise _Stop(request)


def _solve_first_request(case: Case) -> CompletionRequest:
    """The request ``solve`` sends first."""
    context = CaseContext(
        case=case,
        adapter=_StopAtFirstCall(),
        sandbox=create_sandbox((), prefer=SandboxKind.SUBPROCESS),
        limits=Limits(),
        objective_only=False,
        max_tokens=512,
    )
    with pytest.raises(_Stop) as stopped:
        SUITE.solve(case, context)
    return stopped.value.request


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_prefetched_request_is_the_one_the_case_sends_first(setting: str) -> None:
    refs = [ref for ref in discover(_FIXTURES) if ref.labels["instance_id"] in ("gc_e_001", "mf_h_002")]
    assert len(refs) == 2
    for ref in refs:
        case = Case(instance=ref, setting=setting, sample=1, temperature=0.7)
        expected = _solve_first_request(case)
        prefetched = first_request(SUITE, case, max_tokens=512)
        assert prefetched is not None
        assert prefetched.case_key == expected.case_key
        assert prefetched.decoding == expected.decoding
        assert cache_key(IDENTITY, prefetched) == cache_key(IDENTITY, expected)


def test_an_unknown_setting_gets_no_prefetch() -> None:
    ref = discover(_FIXTURES)[0]
    case = Case(instance=ref, setting="no_such_setting", sample=0, temperature=0.0)
    assert first_request(SUITE, case, max_tokens=512) is None
