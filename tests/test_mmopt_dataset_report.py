"""The dataset report (``python -m benchmark dataset-report``) on a small copy of the fixtures.

The report's numbers are checked against what they are computed from, read here independently:
``meta.json`` for counts and sizes, ``generation_report.json`` for rejections. Runtimes come from
real reference solves on this machine, so only their internal consistency is asserted.
"""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest
from PIL import Image

from benchmark.cli import main
from benchmark.suites.mmopt.generation.dataset import GENERATION_REPORT, write_manifest
from benchmark.suites.mmopt.generation.report import (
    REPORT_NAME,
    RUNTIME_PLOT,
    SIZE_PLOT,
    DatasetReport,
    Growth,
    build_dataset_report,
)
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
PACKAGES = (
    "network_optimization/maximum_flow/easy/mf_e_001",
    "network_optimization/maximum_flow/easy/mf_e_002",
    "network_optimization/maximum_flow/hard/mf_h_001",
    "network_optimization/minimum_cost_flow/easy/mcf_e_001",
    "network_optimization/minimum_cost_flow/medium/mcf_m_001",
    "network_optimization/minimum_cost_flow/hard/mcf_h_001",
)


@pytest.fixture(scope="module")
def copy_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dataset")
    # the packages and the generation report are shipped: a missing one fails here, never skips
    missing = [rel for rel in (*PACKAGES, GENERATION_REPORT) if not (FIXTURES / rel).exists()]
    assert missing == [], f"fixtures/mmopt lacks {missing}"
    for rel in PACKAGES:
        shutil.copytree(FIXTURES / rel, root / rel)
    shutil.copy(FIXTURES / GENERATION_REPORT, root / GENERATION_REPORT)
    write_manifest(root)
    return root


@pytest.fixture(scope="module")
def report(copy_root: Path, tmp_path_factory: pytest.TempPathFactory) -> DatasetReport:
    return build_dataset_report(copy_root, tmp_path_factory.mktemp("report"), repeats=1)


def _metas(root: Path) -> list[dict]:
    return [json.loads((root / rel / "meta.json").read_text()) for rel in PACKAGES]


def test_counts_match_the_packages(report, copy_root):
    table = report.tables["counts"]
    assert table.headers == ("family", "subcategory", *DIFFICULTIES, "total")
    rows = {row[1]: row for row in table.rows}
    places = [(m["subcategory"], m["difficulty"]) for m in _metas(copy_root)]
    for subcategory in {name for name, _ in places}:
        expected = [places.count((subcategory, d)) for d in DIFFICULTIES]
        assert rows[subcategory][2:] == (*map(str, expected), str(sum(expected)))
    assert rows[""][-1] == str(len(PACKAGES))


def test_sizes_by_difficulty_match_meta(report, copy_root):
    table = report.tables["by_difficulty"]
    column = {name: i for i, name in enumerate(table.headers)}
    rows = {(row[0], row[1]): row for row in table.rows}
    metas = _metas(copy_root)
    assert len(rows) == len({(m["subcategory"], m["difficulty"]) for m in metas})
    for (subcategory, difficulty), row in rows.items():
        group = [
            m["formulation_size"]
            for m in metas
            if (m["subcategory"], m["difficulty"]) == (subcategory, difficulty)
        ]
        assert row[column["n"]] == str(len(group))
        variables = [size["variables"] for size in group]
        assert float(row[column["variables median"]]) == statistics.median(variables)
        assert float(row[column["variables max"]]) == max(variables)
        sizes = [size["variables"] + size["constraints"] for size in group]
        assert float(row[column["size median"]]) == statistics.median(sizes)
        runtime_ms = [float(row[column[f"runtime {s} (ms)"]]) for s in ("median", "p95", "max")]
        assert 0 < runtime_ms[0] <= runtime_ms[1] <= runtime_ms[2] < 60_000


def test_family_runtime_table_counts_every_timed_package(report):
    rows = {row[0]: row for row in report.tables["family_runtime"].rows}
    assert set(rows) == {"Network Optimization", "Overall"}
    assert rows["Overall"][1] == str(len(PACKAGES))
    assert rows["Overall"][-1] == "0"  # no solve over the budget
    assert all(fact.runtime_s is not None for fact in report.facts)
    slowest_ms = 1000 * max(f.runtime_s for f in report.facts)
    assert float(rows["Overall"][4]) == pytest.approx(slowest_ms, rel=5e-3, abs=0.5)  # shown rounded


def test_rejections_match_the_generation_report(report, copy_root):
    generation = json.loads((copy_root / GENERATION_REPORT).read_text())["subcategories"]
    acceptance = {(row[0], row[1]): row[2:4] for row in report.tables["acceptance"].rows}
    reasons = {(row[0], row[1], row[2]): row[3] for row in report.tables["rejections"].rows}
    expected_reasons = {}
    for subcategory, entry in generation.items():
        for difficulty, tally in entry["difficulties"].items():
            assert acceptance[(subcategory, difficulty)] == (str(tally["accepted"]), str(tally["candidates"]))
            for reason, count in tally["rejections"].items():
                expected_reasons[(subcategory, difficulty, reason)] = str(count)
    assert reasons == expected_reasons


def test_growth_flags_a_subcategory_that_does_not_grow():
    assert Growth("x", {"easy": 10, "medium": 20, "hard": 30}, {"easy": 0.1, "hard": 0.2}).size_grows
    flat = Growth("x", {"easy": 10, "hard": 10}, {"easy": 0.2, "hard": 0.1})
    assert not flat.size_grows and not flat.runtime_grows


def test_markdown_plots_and_contact_sheet_are_written(report):
    names = {path.name for path in report.files}
    assert {REPORT_NAME, SIZE_PLOT, RUNTIME_PLOT, "contact_sheet_network_optimization.png"} <= names
    markdown = next(path for path in report.files if path.name == REPORT_NAME).read_text()
    for table in report.tables.values():
        assert f"## {table.title}" in markdown
    for path in report.files:
        if path.suffix == ".png":
            with Image.open(path) as image:
                assert image.format == "PNG" and min(image.size) > 200
            assert f"]({path.name})" in markdown


def test_cli_writes_the_report(copy_root, tmp_path, capsys):
    assert main(["dataset-report", str(copy_root), "--out", str(tmp_path), "--repeats", "1"]) == 0
    assert (tmp_path / REPORT_NAME).is_file()
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{len(PACKAGES)} packages reported")


def test_the_report_sets_our_sizes_against_the_official_release(copy_root, tmp_path):
    official = Path(__file__).resolve().parent / "data" / "official_mmopt"
    args = [
        "dataset-report",
        str(copy_root),
        "--out",
        str(tmp_path),
        "--repeats",
        "1",
        "--official",
        str(official),
    ]
    assert main(args) == 0
    markdown = (tmp_path / REPORT_NAME).read_text()
    assert "## Instance sizes: ours versus the official release (medians per tier)" in markdown
    # the sample's mcf_h_001 has 20 nodes; ours is read from its file
    nodes = json.loads((copy_root / PACKAGES[-1] / "ground_truth/instance_data.json").read_text())["nodes"]
    within = "yes" if abs(len(nodes) - 20) <= 5 else "no"
    row = f"| minimum_cost_flow | hard | nodes | {len(nodes)} | 20 | {20 / len(nodes):.2f} | {within} |"
    assert row in markdown
