"""Sharded runs, merge, compare and the baseline gate on real benchmark sessions: 60 shipped
MM-OptBench cases answered by the oracle (recorded as a replay file), a replay run of those
answers with 10 known cases broken, the same replay split into 3 shards (two of them ``--shard
auto`` under a Kubernetes and a Slurm environment) and merged."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from benchmark.reporting.shards import Shard, ShardEnvironmentError, parse_shard
from tests.conftest import REPO, BenchRun, run_bench

SUBCATEGORIES = (
    "maximum_flow", "minimum_cost_flow", "bipartite_assignment", "facility_location",
    "set_covering_partitioning", "graph_coloring",
)  # fmt: skip
SELECTION = f"easy and ({' or '.join(SUBCATEGORIES)})"
#: Summary sections that are the run's scores (timings and the run description are not).
SCORE_KEYS = ("accounting", "run")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmark", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("shards")
    recorded = root / "oracle.jsonl"
    oracle = run_bench(root / "oracle", "--model=oracle", "-m", SELECTION, f"--record={recorded}", "-n", "2")
    assert oracle.returncode == 0, oracle.output[-3000:]
    assert len(oracle.records) == 60
    lines = [json.loads(line) for line in recorded.read_text().splitlines()]
    broken = sorted(line["case"] for line in lines)[::6]  # 10 cases spread over the subcategories
    assert len(broken) == 10
    damaged = root / "damaged.jsonl"
    damaged.write_text(
        "".join(
            json.dumps({**line, "response": "I cannot solve this."} if line["case"] in broken else line)
            + "\n"
            for line in lines
        )
    )
    a = run_bench(root / "a", f"--model=replay:{recorded}", "-m", SELECTION, "-n", "2")
    b = run_bench(
        root / "b", f"--model=replay:{damaged}", "-m", SELECTION, "-n", "2",
        f"--gate-baseline={a.run_dir}", "--gate", "pass@1>=baseline-0.02",
    )  # fmt: skip
    # Shard 1 as pod 0 of a Kubernetes Indexed Job, shard 2 as task 5 of a Slurm array 4-6, shard 3
    # named on the command line: the merge must not tell them apart.
    engines: dict[int, tuple[str, dict[str, str]]] = {
        1: ("auto", {"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "3"}),
        2: ("auto", {"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "6",
                     "SLURM_ARRAY_TASK_COUNT": "3"}),
        3: ("3/3", {}),
    }  # fmt: skip
    shards = [
        run_bench(root / f"shard{i}", f"--model=replay:{damaged}", "-m", SELECTION, "--shard", shard, env=env)
        for i, (shard, env) in engines.items()
    ]
    return {"root": root, "broken": broken, "oracle": oracle, "a": a, "b": b, "shards": shards}


def _scores(summary: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in summary.items() if k not in SCORE_KEYS}, sort_keys=True)


def test_three_merged_shards_give_byte_identical_metrics_to_the_single_run(runs: dict[str, Any]) -> None:
    b: BenchRun = runs["b"]
    shards: list[BenchRun] = runs["shards"]
    assert [len(s.records) for s in shards] == [20, 20, 20]
    keys = [{r["case"] for r in s.records} for s in shards]
    assert not (keys[0] & keys[1]) and not (keys[0] & keys[2]) and not (keys[1] & keys[2])
    assert {json.loads((s.run_dir / "manifest.json").read_text())["shard"]["index"] for s in shards} == {
        1,
        2,
        3,
    }
    out = runs["root"] / "merged"
    done = _cli("merge", *(str(s.run_dir) for s in shards), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    merged = json.loads((out / "summary.json").read_text())
    assert merged["counts"]["scored"] == 60 and merged["counts"]["failed"] == 10
    assert _scores(merged) == _scores(b.summary)
    assert json.dumps(merged["metrics"], sort_keys=True) == json.dumps(b.summary["metrics"], sort_keys=True)
    suite = ElementTree.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "60" and len(suite.findall("testcase")) == 60
    assert (out / "summary.md").read_text().count("| all |") == 1


def test_merge_refuses_missing_doubled_and_overlapping_shards(runs: dict[str, Any], tmp_path: Path) -> None:
    one, two, three = (str(s.run_dir) for s in runs["shards"])
    missing = _cli("merge", one, two, "--out", str(tmp_path / "m1"))
    assert missing.returncode == 2 and "shard(s) missing: 3/3" in missing.stderr
    doubled = _cli("merge", one, one, two, three, "--out", str(tmp_path / "m2"))
    assert doubled.returncode == 2 and "shard(s) given twice: 1/3" in doubled.stderr
    other = _cli("merge", one, two, three, str(runs["a"].run_dir), "--out", str(tmp_path / "m3"))
    assert other.returncode == 2 and "not a shard" in other.stderr and "model.alias differs" in other.stderr
    overlap = tmp_path / "shard3"
    shutil.copytree(three, overlap)
    stolen = (Path(one) / "results.jsonl").read_text().splitlines()[0]
    with (overlap / "results.jsonl").open("a") as handle:
        handle.write(stolen + "\n")
    dup = _cli("merge", one, two, str(overlap), "--out", str(tmp_path / "m4"))
    assert dup.returncode == 2 and "1 case(s) recorded by two shards" in dup.stderr


def test_compare_lists_exactly_the_10_broken_cases_with_a_p_value(runs: dict[str, Any]) -> None:
    out = runs["root"] / "compare"
    done = _cli("compare", str(runs["a"].run_dir), str(runs["b"].run_dir), "--out", str(out))
    assert done.returncode == 0, done.stderr
    comparison = json.loads((out / "compare.json").read_text())
    assert sorted(f["case"] for f in comparison["flipped"]) == runs["broken"]
    assert all(f["a"] and not f["b"] for f in comparison["flipped"])
    overall = comparison["pass@1"]
    assert overall["difference"] == pytest.approx(-10 / 60)
    assert overall["test"] == "exact McNemar" and overall["p_value"] == pytest.approx(2 / 2**10)
    assert "Flipped cases (10)" in done.stdout and "p-value" in done.stdout


def test_the_gate_against_the_baseline_is_printed_stored_and_in_junit(runs: dict[str, Any]) -> None:
    b: BenchRun = runs["b"]
    assert b.returncode == 1, b.output[-2000:]
    assert "gate: FAIL pass@1>=baseline-0.02: candidate 0.8333 vs baseline 1.0000" in b.output
    gate = b.summary["run"]["gate"]
    assert gate["passed"] is False and gate["baseline"][0]["test"] == "exact McNemar"
    properties = {
        p.get("name"): p.get("value")
        for p in ElementTree.parse(b.run_dir / "junit.xml").getroot().iter("property")
    }
    assert properties["optbench.gate"] == "failed"
    assert properties["optbench.gate.baseline.0.condition"] == "pass@1>=baseline-0.02"
    assert "McNemar" in properties["optbench.gate.baseline.0.test"]
    # the merged shards of the same replay, gated against that run as their baseline, pass
    out = runs["root"] / "merged-gated"
    done = _cli(
        "merge", *(str(s.run_dir) for s in runs["shards"]), "--out", str(out),
        "--gate", "pass@1>=baseline-0.02", "--gate-baseline", str(b.run_dir),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gate: PASS pass@1>=baseline-0.02" in done.stdout


CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0",
)  # fmt: skip


def _chromium(page: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("chromium")
    assert binary, "chromium is not installed: run scripts/setup.sh as root (apt-get install chromium)"
    return subprocess.run(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("run_name", ["oracle", "b"])
def test_report_html_renders_in_headless_chromium_without_console_errors(
    runs: dict[str, Any], run_name: str, tmp_path: Path
) -> None:
    run: BenchRun = runs[run_name]
    report = run.run_dir / "report.html"
    text = report.read_text()
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", text), "the report must not load anything remotely"
    assert text.count("data:image/png;base64,") >= 2  # heat map and at least one distribution
    failed = sum(not r["passed"] for r in run.records)
    assert failed == (10 if run_name == "b" else 0)
    screenshot = tmp_path / f"report-{run_name}.png"
    shot = _chromium(
        report.as_uri(), tmp_path / "profile1", "--window-size=1400,2400", f"--screenshot={screenshot}"
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.stat().st_size > 10_000
    dom = _chromium(report.as_uri() + "#q=failed", tmp_path / "profile2", "--dump-dom")
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    assert 'data-rendered="ok"' in dom.stdout  # the page's script ran to its end
    assert f'<span id="shown">{failed} of 60 cases</span>' in dom.stdout  # the filter from the URL applied
    print(f"screenshot of {run_name} report.html: {screenshot}")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "4"}, Shard(1, 4)),
        ({"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "4"}, Shard(4, 4)),
        ({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
          "SLURM_ARRAY_TASK_COUNT": "3"}, Shard(1, 3)),
        ({"SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "13",
          "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "1"}, Shard(3, 4)),
    ],
)  # fmt: skip
def test_shard_auto_reads_kubernetes_and_slurm(environ: dict[str, str], expected: Shard) -> None:
    assert parse_shard("auto", environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID"),
        ({"JOB_COMPLETION_INDEX": "1"}, "JOB_COMPLETIONS is not set; set it in the Job's pod template"),
        ({"JOB_COMPLETION_INDEX": "4", "JOB_COMPLETIONS": "4"}, "is not a shard of 1..4"),
        ({"JOB_COMPLETION_INDEX": "x", "JOB_COMPLETIONS": "4"}, "JOB_COMPLETION_INDEX='x' is not an integer"),
        ({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "5",
          "SLURM_ARRAY_TASK_COUNT": "3"}, "not one contiguous range"),  # --array=1,3,5
        ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4",
          "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "2"}, "not one contiguous range"),
        ({"SLURM_ARRAY_TASK_ID": "2", "JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "2"}, "both"),
    ],
)  # fmt: skip
def test_shard_auto_refuses_what_is_no_shard(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ShardEnvironmentError, match="--shard auto") as error:
        parse_shard("auto", environ)
    assert message in str(error.value)


def test_shard_auto_without_an_engine_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    engine_vars = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")
    env = {k: v for k, v in os.environ.items() if k not in engine_vars and k != "PYTEST_XDIST_WORKER"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--model=oracle", "-k", "mf_e_001",
         "--shard", "auto", f"--report-dir={tmp_path / 'run'}"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]  # pytest's usage error
    assert "--shard auto: neither JOB_COMPLETION_INDEX" in done.stderr
    assert not (tmp_path / "run").exists()
