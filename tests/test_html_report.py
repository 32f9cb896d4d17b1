"""``report.html`` built from records alone: plots for what the run has, every case linked to its
response, code and output, and model text escaped (a response cannot inject markup or script); in
headless chromium the filter hides the details of the cases it leaves out and a column sorts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmark.reporting.html import case_seconds, to_html
from benchmark.reporting.summary import build_summary
from benchmark.schema import CaseRecord
from benchmark.suites.base import Grouping
from tests.conftest import REPO


def _typed(records: list[dict[str, Any]]) -> list[CaseRecord]:
    """The records as the report writers take them (as the run log's reader gives them)."""
    return [CaseRecord.model_validate(record) for record in records]


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
    summary = build_summary(_typed(records), {"model": "demo"})
    page = to_html(summary, _typed(records), groupings=(Grouping("family", compare=True),))
    captions = [part.split("'", 1)[0] for part in page.split("<img alt='")[1:]]
    assert captions == [
        # EBC is 1 exactly when the case passed: one heat map, both names
        "pass@1 (sample rate), mean ebc by family × all (the same in every cell)",
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


def test_the_heat_maps_are_drawn_by_the_labels_the_suite_compares_by() -> None:
    """Rows × columns are the first two groupings marked ``compare``; a grouping not so marked is
    no axis though every record carries it, and without any the rows are the settings."""
    records = [
        {**_record(i, "nl", i % 3 == 0), "subcategory": f"sub{i}", "difficulty": ("hard", "easy")[i % 2]}
        for i in range(6)
    ]
    summary = build_summary(_typed(records), {"model": "demo"})

    def heat_caption(groupings: tuple[Grouping, ...]) -> str:
        page = to_html(summary, _typed(records), groupings=groupings)
        return page.split("<img alt='", 1)[1].split("'", 1)[0].removeprefix("pass@1 (sample rate), mean ebc ")

    declared = (
        Grouping("subcategory"),
        Grouping("family", compare=True),
        Grouping("difficulty", order=("easy", "hard"), compare=True),
    )
    assert heat_caption(declared) == "by family × difficulty (the same in every cell)"
    assert heat_caption(declared[:1]) == "by setting × all (the same in every cell)"


def _dom(page: str, tmp_path: Path, fragment: str) -> str:
    """The page's DOM after its script ran in headless chromium, opened with ``#fragment``."""
    binary = shutil.which("chromium")
    assert binary, "chromium is not installed: run scripts/setup.sh as root (apt-get install chromium)"
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    done = subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{path.as_uri()}#{fragment}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'data-rendered="ok"' in done.stdout, done.stderr[-2000:]
    return done.stdout


def test_the_filter_hides_the_details_of_the_cases_it_leaves_out_and_columns_sort(tmp_path: Path) -> None:
    records = [_record(i, "nl", i % 3 != 0) for i in range(6)]  # tasks 0 and 3 fail
    for i, record in enumerate(records):
        record["cost_usd"] = [0.5, 0.1, 0.9, 0.3, 0.2, 0.4][i]
    page = to_html(build_summary(_typed(records), {"model": "demo"}), _typed(records))
    dom = _dom(page, tmp_path, "q=failed&sort=-cost%20%24")
    shown = re.findall(r"<section id=\"(case-\d+)\"( style=\"display: none;\")?>", dom)
    visible = [section for section, hidden in shown if not hidden]
    assert len(shown) == 6 and visible == ["case-0", "case-3"]  # task_0, task_3 in case order
    assert '<span id="shown">2 of 6 cases</span>' in dom
    order = re.findall(r"<tr data-section=\"case-\d+\"[^>]*><td class=\"t\" data-v=\"demo/task_(\d)/", dom)
    assert order == ["2", "0", "5", "3", "4", "1"]  # by cost, highest first (0.9, 0.5, 0.4, ...)


def test_a_prefetched_model_call_counts_in_the_case_time() -> None:
    # the generation phase asked the model before the case started: the case only waited 0.01 s
    record = {**_record(1, "nl", True), "total_time_s": 0.01, "model_time_s": 49.6, "execution_time_s": 0.4}
    assert case_seconds(CaseRecord.model_validate(record)) == pytest.approx(50.0)
    page = to_html(build_summary(_typed([record]), {"model": "demo"}), _typed([record]))
    row = page.split("<tr data-section='case-0'>", 1)[1].split("</tr>", 1)[0]
    assert ">49.60</td>" in row and ">0.40</td>" in row and ">50.00</td>" in row


def test_small_histograms_count_cases_in_whole_numbers(monkeypatch) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    ticks: list[list[float]] = []
    close = plt.close

    def keep_ticks(figure: Any) -> None:  # read each figure's y ticks before it is closed
        for axes in figure.axes:
            if axes.get_ylabel() == "cases":
                ticks.append(list(axes.get_yticks()))
        close(figure)

    monkeypatch.setattr(plt, "close", keep_ticks)
    records = [_record(i, "nl", True) for i in range(3)]  # 3 cases: counts 0..1 per bin
    to_html(build_summary(_typed(records), {"model": "demo"}), _typed(records))
    assert len(ticks) == 2  # seconds and output tokens
    assert all(float(t).is_integer() for axis in ticks for t in axis)


def test_thumbnails_go_to_the_cases_that_did_not_pass_first(monkeypatch) -> None:
    import benchmark.reporting.html as report

    visuals = sorted(
        (REPO / "fixtures/mmopt/network_optimization/maximum_flow/easy").glob("mf_e_00[12]/visuals/*.png")
    )
    assert len(visuals) == 2, visuals
    records = []
    for i, (passed, png) in enumerate(zip((True, False), visuals, strict=True)):
        image = {"name": png.name, "sha256": f"{i}" * 64, "path": str(png)}
        record = _record(i, "nl", passed)
        record["turns"] = [
            {
                "key": record["case"],
                "response": "",
                "messages": [{"role": "user", "text": "see", "images": [image]}],
            }
        ]
        records.append(record)
    monkeypatch.setattr(report, "THUMBNAIL_LIMIT", 1)
    page = to_html(build_summary(_typed(records), {"model": "demo"}), _typed(records))
    passed_section, failed_section = page.split("<section id='case-")[1:]
    assert "past the page's 1 thumbnails" in passed_section and "<img alt='visual" not in passed_section
    assert f"<img alt='{visuals[1].name} (sha256 111111111111)'" in failed_section
    assert "src='data:image/png;base64," in failed_section
