"""The TB-MathModel suite as a user runs it: real pytest sessions over the shipped tasks and a task
in the public release's layout, a replayed tool-using transcript, external artifacts
(``--artifacts``), a baseline run (``--baseline``) and native tool calls through the OpenAI
adapter against a loopback server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.tbmath import tasks
from tests.chat_server import ChatServer, Reply
from tests.conftest import REPO

pytestmark = pytest.mark.slow

FIXTURES = REPO / "fixtures" / "tbmath"
PUBLIC = REPO / "tests" / "data" / "tbmath_public"


def _key(task_id: str, turn: int | None = None) -> str:
    base = f"tbmath/{task_id}/agent/s0"
    return base if turn is None else f"{base}/turn{turn}"


def _reward(anchor: float, value: float, direction: str, rel: float, absolute: float) -> float:
    """The paper's per-metric reward, restated here: one-sided for directional metrics."""
    if (direction == "higher_is_better" and value >= anchor) or (
        direction == "lower_is_better" and value <= anchor
    ):
        return 1.0
    band = max(absolute, rel * abs(anchor))
    if abs(anchor) > 0 and band < 0.02 * abs(anchor):
        band = 0.05 * abs(anchor)
    return 1.0 / (1.0 + abs(value - anchor) / band)


def _expected_raw(task_id: str, artifact: dict[str, Any], root: Path = FIXTURES) -> float:
    config = json.loads((root / task_id / "tests" / "score_config.json").read_text())
    total = weight_sum = 0.0
    for metric in config["metrics"]:
        node: Any = artifact
        for part in metric["path"].replace("]", "").replace("[", ".").split("."):
            node = node[int(part)] if part.isdigit() else node[part]
        weight = metric["weight"]
        total += weight * _reward(
            metric["oracle_value"], node, metric["direction"], metric["rel_scale"], metric["abs_scale"]
        )
        weight_sum += weight
    return total / weight_sum


def test_a_task_in_the_public_layout_loads_and_scores_through_the_same_path(bench) -> None:
    task = tasks.load_task(PUBLIC / "mini-mean-estimate")
    assert task.artifact_path == "results/mini-mean-estimate_result.json"
    assert task.primary_reference is None and task.expected_result is not None
    run = bench(f"--dataset=tbmath:{PUBLIC}", "--model=oracle")
    assert run.returncode == 0, run.output[-3000:]
    (record,) = run.records
    assert record["passed"] and record["scores"]["o_eval"] == 1.0
    assert record["scores"]["multi_o_eval"] == 1.0 and record["extra"]["references"]["fallback_to_anchor"]
    assert record["extra"]["gate"]["passed"] and record["extra"]["certificate"]["status"] == "certified"


TRANSCRIPT_FIT = """
import csv, json, os
import numpy as np
rows = list(csv.DictReader(open("data/attachments/sales.csv")))
y = [float(r["units"]) for r in rows]
# seasonal naive: the same months last year, a defensible model that ignores the growth
pred = y[24:27]
os.makedirs("results", exist_ok=True)
forecast = [{"month": 37 + k, "units": p} for k, p in enumerate(pred)]
artifact = {"model": "seasonal naive", "forecast": forecast, "forecast_total": sum(pred),
            "seasonal_period_months": 12}
json.dump(artifact, open("results/demand_forecast_result.json", "w"))
print(json.dumps(artifact))
"""


def test_a_replayed_tool_using_transcript_produces_the_artifact_in_the_sandbox_and_is_scored(
    bench, tmp_path
) -> None:
    replay = tmp_path / "transcript.jsonl"
    turns = [
        "Let me look.\n```bash\nls data data/attachments && head -4 data/attachments/sales.csv\n```",
        f"Fit and write.\n```python\n{TRANSCRIPT_FIT}```",
        "The artifact is written.",
    ]
    replay.write_text(
        "".join(
            json.dumps({"case": _key("demand_forecast", n), "response": r}) + "\n"
            for n, r in enumerate(turns)
        )
    )
    run = bench("--suite=tbmath", f"--model=replay:{replay}", "-k", "demand_forecast")
    (record,) = run.records
    assert record["outcome"] in ("passed", "failed") and record["model_calls"] == 3
    agent = record["extra"]["agent"]
    assert agent["end_reason"] == "done" and len(agent["turns"]) == 3
    assert "sales.csv" in agent["turns"][0]["actions"][0]["result"]["output"]
    artifact = record["extra"]["artifact"]
    assert artifact["model"] == "seasonal naive" and len(artifact["forecast"]) == 3
    assert record["extra"]["gate"]["passed"]
    assert record["scores"]["raw"] == pytest.approx(_expected_raw("demand_forecast", artifact))
    assert 0 < record["scores"]["o_eval"] < 1 and record["category"] == "wrong_objective"
    assert json.loads(record["artifact"]["results/demand_forecast_result.json"]) == artifact
    # the log alone reproduces the verdict: the stored attempt (transcript and artifact) scored again
    done = subprocess.run(
        [sys.executable, "-m", "benchmark", "rescore", str(run.run_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "from their stored attempts: 1 identical, 0 differ" in done.stdout


def test_external_artifacts_are_scored_missing_ones_score_zero_and_infeasible_ones_are_gated(
    bench, tmp_path
) -> None:
    external = tmp_path / "artifacts"
    (external / "crop_mix" / "results").mkdir(parents=True)
    forecast = {
        "model": "mine",
        "forecast": [{"month": 37 + k, "units": u} for k, u in enumerate([330.0, 330.0, 330.0])],
        "forecast_total": 990.0,
        "seasonal_period_months": 12,
    }
    (external / "demand_forecast.json").write_text(json.dumps(forecast))
    plan = {
        "plan": [
            {"crop": c, "acres": 100.0} for c in ("wheat", "maize", "soy", "alfalfa", "tomato", "cotton")
        ],
        "total_profit_usd": 1e9,
        "crops_planted": 6,
    }  # 600 acres on 500: gated
    (external / "crop_mix" / "results" / "crop_mix_result.json").write_text(json.dumps(plan))
    run = bench(
        "--suite=tbmath",
        "--model=oracle",
        f"--artifacts={external}",
        "-k",
        "demand_forecast or crop_mix or delivery_route",
    )
    records = run.by_case()
    forecast_record = records[_key("demand_forecast")]
    assert forecast_record["extra"]["source"].startswith("--artifacts")
    assert forecast_record["model_calls"] == 0
    assert forecast_record["scores"]["o_eval"] == pytest.approx(_expected_raw("demand_forecast", forecast))
    crop = records[_key("crop_mix")]
    assert crop["category"] == "infeasible_solution" and crop["scores"]["o_eval"] == 0.0
    assert any(v["check"] == "land" for v in crop["extra"]["gate"]["violations"])
    assert crop["extra"]["certificate"]["status"] == "rejected"
    route = records[_key("delivery_route")]
    assert route["category"] == "response_contract" and route["scores"]["o_eval"] == 0.0


def test_bo_scores_against_a_baseline_run_follow_appendix_g(bench, tmp_path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()

    def forecast(units: float) -> dict[str, Any]:
        return {
            "forecast": [{"month": 37 + k, "units": units} for k in range(3)],
            "forecast_total": 3 * units,
            "seasonal_period_months": 12,
        }

    (first / "demand_forecast.json").write_text(json.dumps(forecast(250.0)))
    (second / "demand_forecast.json").write_text(json.dumps(forecast(320.0)))
    (second / "shift_staffing.json").write_text("{not json")
    selection = ["-k", "demand_forecast or shift_staffing or delivery_route"]
    baseline = bench("--suite=tbmath", "--model=oracle", f"--artifacts={first}", *selection)
    assert len(baseline.records) == 3
    run = bench(
        "--suite=tbmath",
        "--model=oracle",
        f"--artifacts={second}",
        f"--baseline={baseline.run_dir}",
        *selection,
    )
    base, now = baseline.by_case(), run.by_case()
    f = base[_key("demand_forecast")]["scores"]
    r = now[_key("demand_forecast")]["scores"]
    gap = 1.0 - f["raw"]
    expected_bo = (
        max(-1.0, min(1.0, (r["raw"] - f["raw"]) / gap))
        if gap >= 0.1
        else max(-0.1, min(0.1, r["raw"] - f["raw"]))
    )
    assert r["robust_bo_eval"] == pytest.approx(expected_bo)
    headroom = 1.0 - f["multi_o_eval"]
    assert r["multi_bo"] == pytest.approx(
        1 + max(-1.0, min(1.0, (r["multi_o_eval"] - f["multi_o_eval"]) / headroom))
    )
    # an unreadable artifact: Robust BO-Eval and Multi-BO are −1 whatever the baseline did
    assert now[_key("shift_staffing")]["scores"]["robust_bo_eval"] == -1.0
    assert now[_key("shift_staffing")]["scores"]["multi_bo"] == -1.0
    assert now[_key("shift_staffing")]["category"] == "output_format"
    assert "TB-MathModel per-task panel" in (run.run_dir / "summary.md").read_text()


def test_native_tool_calls_through_the_openai_adapter_drive_the_agent(bench, tmp_path) -> None:
    script = (FIXTURES / "delivery_route" / "solution" / "references" / "held_karp.py").read_text()
    code = "ARTIFACT = 'results/delivery_route_result.json'\n" + script

    def respond(body: dict[str, Any], _seen: int) -> Reply:
        if not any(m.get("role") == "tool" for m in body["messages"]):
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "python", "arguments": json.dumps({"code": code})},
            }
            return Reply(text="", finish_reason="tool_calls", tool_calls=(call,))
        return Reply(text="Done: the tour is written.")

    server = ChatServer(respond)
    models = tmp_path / "models.toml"
    with server.running():
        models.write_text(
            f'[models.loop]\nbase_url = "{server.base_url}"\nmodel = "loopback-model"\n'
            "max_retries = 0\nrequest_timeout_s = 30\n"
        )
        run = bench("--suite=tbmath", "--model=loop", f"--models-file={models}", "-k", "delivery_route")
    (record,) = run.records
    assert record["passed"], record.get("detail")
    assert record["extra"]["agent"]["turns"][0]["native_tool_calls"]
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["bash", "python", "view_image"]
    follow_up = server.requests[1]["messages"]
    assert follow_up[-2]["tool_calls"][0]["id"] == "call_1" and follow_up[-1]["tool_call_id"] == "call_1"
