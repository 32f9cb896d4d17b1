"""``report.html`` built from records alone: plots for what the run has, every case linked to its
response, code and output, and model text escaped (a response cannot inject markup or script)."""

from __future__ import annotations

from typing import Any

from benchmark.reporting.html import to_html
from benchmark.reporting.summary import build_summary


def _record(i: int, setting: str, passed: bool) -> dict[str, Any]:
    return {
        "suite": "demo",
        "case": f"demo/task_{i}/{setting}/s0",
        "setting": setting,
        "family": "lp" if i % 2 else "milp",
        "sample": 0,
        "temperature": 0.0,
        "outcome": "passed" if passed else "failed",
        "passed": passed,
        "category": None if passed else "wrong_objective",
        "valid_code": True,
        "scores": {"ebc": 1.0 if passed else 0.0, "ef1": 0.5},
        "total_time_s": 0.1 * i,
        "output_tokens": 100 + i,
        "turns": [{"key": f"demo/task_{i}/{setting}/s0", "response": "</pre><script>alert(1)</script>"}],
        "artifact": {"model.mod": f"var x{i} >= 0;"},
        "output": {"stdout": "OPTIMAL"},
    }


def test_report_has_a_plot_per_view_and_links_and_escapes_every_case() -> None:
    records = [
        _record(i, setting, (i + len(setting)) % 3 != 0) for i in range(12) for setting in ("nl", "nl_data")
    ]
    summary = build_summary(records, {"model": "demo"})
    page = to_html(summary, records)
    captions = [part.split("'", 1)[0] for part in page.split("<img alt='")[1:]]
    assert captions == [
        "pass@1 (sample rate) by family × all",
        "mean ebc by family × all",
        "mean ef1 by family × all",
        "failures by category",
        "pass@1 by setting",
        "distribution of seconds per case",
        "distribution of output tokens per case",
    ]
    assert page.count("<section id='case-") == len(records)
    assert page.count("href='#case-") == len(records)
    assert "var x11 &gt;= 0;" in page and "OPTIMAL" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own filter script only
    assert "95% CI" in page
