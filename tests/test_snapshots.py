"""What a model is shown and what a reader of ``summary.md`` sees, locked as reviewed snapshots.

Update on purpose with ``pytest tests/test_snapshots.py --snapshot-update`` and review the diff.
"""

from __future__ import annotations

from typing import Any

from benchmark.messages import ImagePart
from benchmark.reporting.render import to_markdown
from benchmark.reporting.summary import build_summary
from benchmark.schema import CaseRecord
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.prompts import stage1_messages
from benchmark.suites.mmopt.suite import SUITE
from tests.conftest import FIXTURES


def test_stage1_prompt_of_a_fixed_instance(snapshot) -> None:
    ref = next(r for r in discover(FIXTURES) if r.path[-1] == "mcf_m_003")
    messages = stage1_messages(load_package(ref), case_id="mcf_m_003")
    rendered = []
    for message in messages:
        rendered.append(f"--- {message.role} ---")
        for part in message.parts:
            rendered.append(
                f"[image {part.name} sha256={part.sha256}]" if isinstance(part, ImagePart) else part.text
            )
    assert "\n".join(rendered) == snapshot


def _record(case: str, sample: int, passed: bool, category: str | None = None, **extra: Any) -> CaseRecord:
    family, subcategory, difficulty, instance = case.split("/")
    fields = {
        "suite": "mmopt",
        "setting": "stage1",
        "case": f"mmopt/{case}/stage1/s{sample}",
        "family": family,
        "subcategory": subcategory,
        "difficulty": difficulty,
        "instance_id": instance,
        "sample": sample,
        "temperature": 0.0 if sample == 0 else 0.4,
        "outcome": extra.pop("outcome", "passed" if passed else "failed"),
        "passed": passed,
        "category": category,
        "valid_code": category not in ("syntax", "timeout", "response_contract"),
        **extra,
    }
    return CaseRecord.model_validate(fields)


def test_summary_markdown_layout(snapshot) -> None:
    a = "network_optimization/maximum_flow/easy/mf_e_001"
    b = "network_optimization/minimum_cost_flow/hard/mcf_h_004"
    records = [
        *(_record(a, s, s != 2, None if s != 2 else "wrong_objective") for s in range(5)),
        _record(b, 0, False, "syntax"),
        _record(b, 1, False, "infeasible_solution"),
        _record(b, 2, True),
        _record(b, 3, False, "timeout"),
        _record(b, 4, False, "api_error", outcome="error", detail="connection refused"),
    ]
    run = {"model": "replay:demo.jsonl", "suite": "mmopt", "schedule": "paper"}
    summary = build_summary(
        records, run, groupings=SUITE.groupings, failure_categories=SUITE.failure_categories
    )
    assert summary["metrics"]["pass@1"] == (4 / 5 + 1 / 4) / 2
    assert summary["metrics"]["pass@5"] is None  # instance b has only 4 scored samples
    assert summary["metrics"]["pass@4"] == 1.0
    assert to_markdown(summary) == snapshot
