"""``compare``, the baseline gate and ``--shard`` on run folders written record by record: 300
cases, a candidate equal to its baseline and one 15 points worse, runs of other datasets."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from benchmark.cli import main
from benchmark.gate import Allowance, GateError, parse_gate
from benchmark.records import read_records
from benchmark.reporting.baseline import run_gate
from benchmark.reporting.compare import CompareError, compare_runs, load_run
from benchmark.reporting.shards import parse_shard
from benchmark.reporting.summary import build_summary
from benchmark.run import RunPaths, write_manifest

FAMILIES = ("network_optimization", "location_covering_assignment")
DIFFICULTIES = ("easy", "medium", "hard")


def _write_run(
    root: Path,
    failing: set[int],
    cases: int = 300,
    version: str = "1.0",
    decoding: dict[str, Any] | None = None,
) -> Path:
    """A finished run of ``cases`` single-sample cases where the indices in ``failing`` fail."""
    paths = RunPaths(root)
    records: list[dict[str, Any]] = []
    for i in range(cases):
        family, difficulty = FAMILIES[i % 2], DIFFICULTIES[i % 3]
        passed = i not in failing
        records.append(
            {
                "suite": "mmopt",
                "case": f"mmopt/{family}/maximum_flow/{difficulty}/x_{i:03d}/stage1/s0",
                "family": family,
                "subcategory": "maximum_flow",
                "difficulty": difficulty,
                "setting": "stage1",
                "sample": 0,
                "temperature": 0.0,
                "outcome": "passed" if passed else "failed",
                "passed": passed,
                "category": None if passed else "wrong_objective",
                "valid_code": True,
            }
        )
    write_manifest(
        paths,
        {
            "suite": "mmopt",
            "dataset": {"name": "mm-optbench-fixtures", "version": version, "sha256": "ab" * 32},
            "scoring": "strict",
            "setting": "stage1",
            "decoding": decoding or {"schedule": "single", "samples": 1, "temperature": 0.0},
            "sessions": [],
        },
    )
    paths.results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return root


def _gate(candidate: Path, baseline: Path, expression: str = "pass@1>=baseline-0.02") -> dict[str, Any]:
    records = read_records(RunPaths(candidate).results)
    summary = build_summary(records, {}, selected=[r.case for r in records])
    result = run_gate(summary, candidate, expression, Allowance(), baseline)
    assert summary["run"]["gate"]["passed"] is result.passed
    return summary["run"]["gate"]


BASE_FAILING = set(range(0, 300, 4))  # 75 failures: pass@1 0.75


def test_a_run_equal_to_its_baseline_passes_the_gate(tmp_path: Path) -> None:
    base = _write_run(tmp_path / "base", BASE_FAILING)
    same = _write_run(tmp_path / "same", BASE_FAILING)
    gate = _gate(same, base)
    assert gate["passed"]
    (detail,) = gate["baseline"]
    assert (detail["instances"], detail["difference"], detail["ci95"]) == (300, 0.0, [0.0, 0.0])
    assert detail["p_value"] == 1.0 and detail["test"] == "exact McNemar"


def test_a_run_15_points_worse_on_the_same_300_cases_fails_the_gate(tmp_path: Path) -> None:
    base = _write_run(tmp_path / "base", BASE_FAILING)
    worse_failing = BASE_FAILING | set(sorted(set(range(300)) - BASE_FAILING)[:45])  # 45 more = 15 points
    worse = _write_run(tmp_path / "worse", worse_failing)
    gate = _gate(worse, base)
    assert not gate["passed"]
    (detail,) = gate["baseline"]
    assert detail["difference"] == pytest.approx(-0.15)
    assert detail["ci95"][1] < -0.02 and detail["p_value"] < 1e-6
    assert any(
        line.startswith("FAIL pass@1>=baseline-0.02: candidate 0.6000 vs baseline 0.7500")
        for line in gate["lines"]
    )
    # a margin wider than the drop passes
    assert _gate(worse, base, "pass@1>=baseline-0.25")["passed"]


def test_a_slightly_worse_run_within_noise_and_margin_passes(tmp_path: Path) -> None:
    base = _write_run(tmp_path / "base", set())
    one_worse = _write_run(tmp_path / "one", {7})
    assert _gate(one_worse, base, "pass@1>=baseline-0.02")["passed"]
    assert not _gate(one_worse, base, "pass@1>=baseline")["passed"]  # the interval reaches below 0


def test_a_baseline_of_another_dataset_version_fails_the_gate_with_the_reason(tmp_path: Path) -> None:
    base = _write_run(tmp_path / "base", set(), version="0.9")
    gate = _gate(_write_run(tmp_path / "cand", set()), base)
    assert not gate["passed"]
    assert "dataset.version differs" in gate["lines"][0]


def test_relative_gate_conditions_parse_and_bad_ones_are_refused() -> None:
    (condition,) = parse_gate("pass@1>=baseline-0.02")
    assert (condition.relative, condition.threshold, str(condition)) == (True, -0.02, "pass@1>=baseline-0.02")
    assert parse_gate("valid_code_rate>=baseline-2%")[0].threshold == pytest.approx(-0.02)
    assert parse_gate("pass@1>=baseline")[0].threshold == 0.0
    for bad in ("pass@1==baseline", "pass@4>=baseline-0.02", "pass@1>=baseline0.02", "pass@1>=baseline-"):
        with pytest.raises(GateError):
            parse_gate(bad)


def test_compare_lists_flipped_cases_and_refuses_other_dataset_versions(tmp_path: Path, capsys) -> None:
    a = _write_run(tmp_path / "a", {1, 2})
    b = _write_run(tmp_path / "b", {2, 3, 4})
    comparison = compare_runs(load_run(a), load_run(b))
    assert sorted(f["case"].split("/")[4] for f in comparison["flipped"]) == ["x_001", "x_003", "x_004"]
    assert comparison["pass@1"]["difference"] == pytest.approx(-1 / 300)
    assert set(comparison["by"]) == {"family", "difficulty"}
    other = _write_run(tmp_path / "other", set(), version="2.0")
    with pytest.raises(CompareError, match=r"dataset\.version differs"):
        compare_runs(load_run(a), load_run(other))
    assert main(["compare", str(a), str(other)]) == 2
    assert "refusing to compare" in capsys.readouterr().err
    assert main(["compare", str(a), str(other), "--allow-mismatch", "--out", str(tmp_path / "cmp")]) == 0
    assert "warning" in (tmp_path / "cmp" / "compare.md").read_text()
    assert (tmp_path / "cmp" / "compare.html").read_text().startswith("<!doctype html>")


def test_shards_are_disjoint_balanced_and_cover_everything() -> None:
    items = list(range(61))
    shards = [parse_shard(f"{i}/3").take(items) for i in (1, 2, 3)]
    assert sorted(x for shard in shards for x in shard) == items
    assert sorted(len(s) for s in shards) == [20, 20, 21]
    assert parse_shard("2/3").take(items) == parse_shard("2/3").take(items)
    for bad in ("0/3", "4/3", "3", "a/b"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_compare_on_four_cases_gives_an_interval_with_a_width_and_says_its_method(tmp_path: Path) -> None:
    a = _write_run(tmp_path / "a", set(), cases=4)
    b = _write_run(tmp_path / "b", {0, 1, 2, 3}, cases=4)
    result = compare_runs(load_run(a), load_run(b))["pass@1"]
    assert result["difference"] == -1.0 and result["p_value"] == 0.125  # 2 · (1/2)^4
    # Newcombe's method 10 by hand: Wilson(4 of 4) = [1/(1+z²/4), 1], Wilson(0 of 4) = [0, w] with
    # w = (z²/4)/(1+z²/4); the pairs' correlation is 0 (a margin is empty), so the upper end of
    # B − A is −1 + √(w² + w²) and the lower end −1
    z2 = 1.959963984540054**2
    w = (z2 / 4) / (1 + z2 / 4)
    assert result["low"] == pytest.approx(-1.0)
    assert result["high"] == pytest.approx(-1 + math.sqrt(2) * w)
    assert result["high"] - result["low"] > 0.5  # never [-100, -100] on four instances
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "cmp")]) == 0
    markdown = (tmp_path / "cmp" / "compare.md").read_text()
    assert "| all | 4 | 100.0% | 0.0% | -100.0 | [-100.0, -30.7] | 0.125 | exact McNemar |" in markdown
    assert "- **95% intervals**: Newcombe hybrid score (paired, from Wilson intervals)" in markdown


def test_compare_warns_when_the_runs_settings_differ(tmp_path: Path) -> None:
    a = _write_run(tmp_path / "a", {1}, cases=30)
    hot = {"schedule": "single", "samples": 1, "temperature": 0.7}
    b = _write_run(tmp_path / "b", {2}, cases=30, decoding=hot)
    comparison = compare_runs(load_run(a), load_run(b))
    assert comparison["mismatches"] == []  # comparable: same dataset and scoring
    assert comparison["setting_differences"] == ["decoding.temperature differs: 0.0 in A vs 0.7 in B"]
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "cmp")]) == 0
    for name in ("compare.md", "compare.html"):
        assert "decoding.temperature differs: 0.0 in A vs 0.7 in B" in (tmp_path / "cmp" / name).read_text()
    same = compare_runs(load_run(a), load_run(_write_run(tmp_path / "c", {3}, cases=30)))
    assert same["setting_differences"] == []
