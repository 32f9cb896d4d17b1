"""Tasks in the public release's layout as a user runs them: real pytest sessions over
tests/data/tbmath_release, with the default (paper) scoring and with ``--scoring=official`` (each
task's own verifier), a damaged task among good ones, and a replayed agent transcript that opens the
task's ``.xlsx`` attachment with pandas inside the sandbox."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

RELEASE = REPO / "tests" / "data" / "tbmath_release"


def _by_task(run) -> dict[str, dict]:
    return {r["instance_id"]: r for r in run.records}


def test_one_damaged_task_is_one_dataset_error_and_the_others_score(bench, tmp_path) -> None:
    root = tmp_path / "release"
    for name in ("shop-demand", "route-budget"):
        shutil.copytree(RELEASE / name, root / name)
    shutil.copytree(RELEASE / "shop-demand", root / "shop-demand-damaged")
    config = root / "shop-demand-damaged" / "tests" / "score_config.json"
    config.write_text(config.read_text().replace('"weight": 2.0', '"weight": Infinity'))
    for scoring in ("strict", "official"):
        run = bench("--suite=tbmath", f"--dataset=tbmath:{root}", "--model=oracle", f"--scoring={scoring}")
        records = _by_task(run)
        assert set(records) == {"shop-demand", "route-budget", "shop-demand-damaged"}, run.output[-2000:]
        damaged = records.pop("shop-demand-damaged")
        assert damaged["outcome"] == "error" and damaged["category"] == "dataset_error"
        assert "score_config.json: metrics[2].weight" in damaged["detail"]
        assert all(r["passed"] for r in records.values()), run.output[-3000:]
        key = "official_reward" if scoring == "official" else "o_eval"
        assert {r["scores"][key] for r in records.values()} == {1.0}
        flags = records["route-budget"]["extra"]["task_flags"]
        assert flags["missing_attachments"] == [
            "environment/data/repo/travel_times.csv (listed in source_manifest.json)"
        ]
        assert flags["gate"] == "ungated" and flags["references"] == "single anchor"
        declared = {m["path"]: m for m in records["shop-demand"]["extra"]["declared_metrics"]}
        assert declared["plan.weekly_order"]["direction_source"].startswith("inferred")
        route = {m["path"]: m for m in records["route-budget"]["extra"]["declared_metrics"]}
        assert route["model.hours"]["unscored"] == "missing_baseline"
        assert route["model.round_km"]["direction"] == "lower_is_better"
        summary = (run.run_dir / "summary.md").read_text()
        assert "TB-MathModel task flags" in summary and "travel_times.csv" in summary
        html = (run.run_dir / "report.html").read_text()
        assert "TB-MathModel task flags" in html and "single anchor" in html and "ungated" in html


def test_official_scoring_scores_external_artifacts_with_the_tasks_verifier(bench, tmp_path) -> None:
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    route = json.loads((RELEASE / "route-budget" / "tests" / "expected_result.json").read_text())
    route["model"]["stops_served"] = 24  # past the outstanding endpoint: 0 officially, full credit by default
    (artifacts / "route-budget.json").write_text(json.dumps(route))
    shop = json.loads((RELEASE / "shop-demand" / "tests" / "expected_result.json").read_text())
    shop["model"]["mean_daily_units"] = "13.0"  # a numeric string: a number to the official float()
    (artifacts / "shop-demand.json").write_text(json.dumps(shop))
    official = _by_task(bench("--suite=tbmath", f"--dataset=tbmath:{RELEASE}", f"--artifacts={artifacts}",
                              "--scoring=official"))  # fmt: skip
    assert official["route-budget"]["scores"]["official_reward"] == pytest.approx(0.5, abs=1e-12)
    assert official["route-budget"]["category"] == "wrong_objective"
    assert official["shop-demand"]["scores"]["official_reward"] == 1.0
    checks = official["shop-demand"]["extra"]["official"]["checks"]
    assert [c["status"] for c in checks] == ["passed", "passed", "passed"]
    default = _by_task(bench("--suite=tbmath", f"--dataset=tbmath:{RELEASE}", f"--artifacts={artifacts}"))
    assert default["route-budget"]["scores"]["o_eval"] == 1.0  # one-sided: beating the anchor is full credit
    assert default["shop-demand"]["scores"]["o_eval"] < 1.0  # the paper's scoring: a string is no number


XLSX_TURN = """
import json, os
import pandas as pd
sales = pd.read_excel("/root/data/attachments/sales.xlsx", sheet_name="sales")
mean = float(sales["units"].mean())
peak = int(sales.loc[sales["units"].idxmax(), "day"])
print("rows", len(sales), "mean", mean, "peak", peak, "cwd", os.getcwd().endswith("root"))
artifact = {"problem_id": "SHOP-1", "method": "pandas", "model": {"mean_daily_units": mean, "peak_day": peak},
            "plan": {"weekly_order": 7 * mean}}
json.dump(artifact, open("/root/results/shop-demand_result.json", "w"))
"""


def test_a_replayed_agent_opens_the_xlsx_attachment_with_pandas_in_the_sandbox(bench, tmp_path) -> None:
    replay = tmp_path / "transcript.jsonl"
    turns = ["Reading the workbook.\n```python\n" + XLSX_TURN + "```", "The artifact is written."]
    replay.write_text(
        "".join(
            json.dumps({"case": f"tbmath/shop-demand/agent/s0/turn{n}", "response": text}) + "\n"
            for n, text in enumerate(turns)
        )
    )
    run = bench("--suite=tbmath", f"--dataset=tbmath:{RELEASE}", f"--model=replay:{replay}",
                "-k", "shop-demand", "--scoring=official")  # fmt: skip
    (record,) = run.records
    agent = record["extra"]["agent"]
    output = agent["turns"][0]["actions"][0]["result"]["output"]
    assert "rows 7 mean 13.0 peak 6 cwd True" in output, output
    assert "sandbox_note" not in agent
    assert record["extra"]["agent_limits"]["wall_s"] == 900.0  # task.toml's [agent].timeout_sec
    assert record["passed"] and record["scores"]["official_reward"] == 1.0


OWN_XLSX_TURN = """
import sys
import pandas as pd
sheet = pd.read_excel("data/attachments/admissions.xlsx", sheet_name="Admissions", header=None)
env = sys.prefix.rsplit("/", 1)[-1]
print("rows", len(sheet), "cols", sheet.shape[1], "pandas", pd.__version__, "env", env)
"""


def test_a_replayed_agent_opens_an_own_tasks_xlsx_attachment_with_pandas(bench, tmp_path) -> None:
    """Our own contest-sized tasks ship an environment/Dockerfile, so their agent gets the agent
    stack (pandas, openpyxl) like a release task; without openpyxl (the solver stack) pandas
    cannot read a workbook."""
    replay = tmp_path / "transcript.jsonl"
    turns = ["Reading the workbook.\n```python\n" + OWN_XLSX_TURN + "```", "Done."]
    replay.write_text(
        "".join(
            json.dumps({"case": f"tbmath/ward_capacity/agent/s0/turn{n}", "response": text}) + "\n"
            for n, text in enumerate(turns)
        )
    )
    run = bench("--suite=tbmath", f"--model=replay:{replay}", "-k", "ward_capacity")
    (record,) = run.records
    agent = record["extra"]["agent"]
    output = agent["turns"][0]["actions"][0]["result"]["output"]
    assert "rows 740 cols 4 pandas 2.2.2 env .venv-agent" in output, output
    assert "sandbox_note" not in agent
