"""Evidence, not claims, on our own TB-MathModel tasks (issue 23): per task, the primary reference
passes; a weaker but valid solution scores below it; a made-up artifact that claims the optimum
without the decisions that give it fails the gate. The generating truth passes every estimation
task; a panel member that answers another question is refused by ``tbmath-generate``."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import create_sandbox
from benchmark.suites.tbmath import generation, paths, tasks
from benchmark.suites.tbmath.feasibility import run_gate
from benchmark.suites.tbmath.suite import score_artifact
from benchmark.verdict import Verdict
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "tbmath"
Artifacts = dict[str, dict[str, dict[str, Any]]]


@pytest.fixture(scope="module")
def refs() -> Artifacts:
    """Every reference script of every task, run once in the sandbox as the oracle runs it."""
    out: Artifacts = {}
    with create_sandbox([FIXTURES]) as sandbox:
        for root in tasks.discover(FIXTURES):
            task = tasks.load_task(root)
            out[task.task_id] = {
                s.reference_id: generation.run_reference(task, s.script, sandbox)
                for s in task.reference_scripts
            }
    return out


def _task(task_id: str) -> tasks.Task:
    return tasks.load_task(FIXTURES / task_id)


def score(task_id: str, artifact: Any) -> Verdict:
    return score_artifact(_task(task_id), json.dumps(artifact).encode(), {}, None, 1.0)


def _set(artifact: dict[str, Any], path: str, value: Any) -> None:
    *head, last = paths.parse(path)
    node: Any = artifact
    for token in head:
        node = node[token]
    node[last] = value


def honest(task_id: str, artifact: dict[str, Any]) -> dict[str, Any]:
    """The artifact with every claim replaced by what its decisions really give (a valid answer)."""
    task = _task(task_id)
    assert task.feasibility is not None
    out = json.loads(json.dumps(artifact))
    for path, value in run_gate(task.feasibility, out, task.root).recomputed.items():
        found, old = paths.lookup(out, path)
        _set(out, path, int(value) if found and isinstance(old, int) and value.is_integer() else value)
    return out


def _primary(refs: Artifacts, task_id: str) -> dict[str, Any]:
    task = _task(task_id)
    assert task.primary_reference is not None
    return json.loads(json.dumps(refs[task_id][task.primary_reference]))


def _without(artifact: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in artifact.items() if k not in keys}


# A weaker but valid answer per task: another panel member, or the reference with a worse decision
# and its claims recomputed honestly.
WEAK: dict[str, Callable[[Artifacts], dict[str, Any]]] = {
    "delivery_route": lambda r: r["delivery_route"]["nearest_neighbour_2opt"],
    "facility_siting": lambda r: honest(
        "facility_siting", {**_primary(r, "facility_siting"), "open_sites": [1, 2, 3]}
    ),
    "shift_staffing": lambda r: r["shift_staffing"]["greedy_cover"],
    "crop_mix": lambda r: r["crop_mix"]["rotation_capped_lp"],
    "power_dispatch": lambda r: r["power_dispatch"]["lp_with_reserve"],
    "call_center_staffing": lambda r: honest(
        "call_center_staffing", {**_primary(r, "call_center_staffing"), "agents": 23}
    ),
    "inventory_policy": lambda r: r["inventory_policy"]["empirical_quantile"],
    "portfolio_allocation": lambda r: r["portfolio_allocation"]["min_variance"],
    "price_setting": lambda r: r["price_setting"]["linear_demand"],
    "demand_forecast": lambda r: r["demand_forecast"]["holt_winters"],
    "epidemic_fit": lambda r: honest(
        "epidemic_fit", {**_primary(r, "epidemic_fit"), "beta": 0.3, "gamma": 0.1}
    ),
    "tennis_momentum": lambda r: r["tennis_momentum"]["runs_test_bonferroni"],
    "regional_depots": lambda r: r["regional_depots"]["greedy_drop"],
    "ward_capacity": lambda r: r["ward_capacity"]["recent_weekday_means"],
    "production_plan": lambda r: r["production_plan"]["lot_for_lot"],
    "spare_parts": lambda r: r["spare_parts"]["analytic_policy"],
    "battery_arbitrage": lambda r: r["battery_arbitrage"]["daily_rule"],
    "water_network": lambda r: r["water_network"]["greedy_paths"],
}
# The empirical-quantile policy costs 0.36% more than the EOQ/normal optimum: inside the stated 0.5%.
WEAK_STILL_PASSES = {"inventory_policy"}

# Made up: the optimum's numbers claimed, the decisions absent or not the ones that give them.
MADE_UP: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {
    "delivery_route": lambda p: [
        {"method": "made up", "tour": [0] + [6] * 11 + [0], "tour_length_km": 1.0},
        {"tour_length_km": 0.0},
    ],
    "facility_siting": lambda p: [{**p, "open_sites": [2, 6, 8], "total_weighted_distance": 1000.0}],
    "shift_staffing": lambda p: [
        {**p, "shift_starts": [10] + [0] * 23, "total_staff": 10, "overstaffing_total": 0},
        _without(p, "shift_starts"),
    ],
    "crop_mix": lambda p: [{**p, "plan": [{**item, "acres": 0} for item in p["plan"]]}],
    "power_dispatch": lambda p: [{**p, "total_cost_usd": 1000.0}, _without(p, "dispatch")],
    "call_center_staffing": lambda p: [{**p, "agents": 1}, _without(p, "agents")],
    "inventory_policy": lambda p: [
        {**p, "reorder_point": 60.0, "safety_stock": 60.0 - p["lead_time_demand"], "annual_cost_usd": 100.0}
    ],
    "portfolio_allocation": lambda p: [
        {**p, "weights": {"A": 1.0, "B": 0.0, "C": 0.0, "D": 0.0, "E": 0.0}, "sharpe_ratio": 3.0}
    ],
    "price_setting": lambda p: [_without(p, "demand_model")],
    "demand_forecast": lambda p: [
        _without(p, "seasonal_period_months"),
        {**p, "forecast": list(reversed(p["forecast"]))},
    ],
    "epidemic_fit": lambda p: [{**p, "beta": 0.5}],
    "tennis_momentum": lambda p: [{**p, "p_win_after_win": 0.9}],
    "regional_depots": lambda p: [
        {**p, "base": {**p["base"], "total_cost_usd": 100000.0}},
        {**p, "fuel_shock": _without(p["fuel_shock"], "assignment")},
        {**p, "service_limit": p["base"], "service_premium_usd": 0.0},  # breaks the 190 km promise
        {**p, "data": {**p["data"], "active_stores": 150}},  # closed stores counted
    ],
    "ward_capacity": lambda p: [
        {**p, "beds": 150},
        _without(p, "los_model"),
        {**p, "admissions_model": {**p["admissions_model"], "trend_per_year": 0.3}},
        {**p, "data": {**p["data"], "valid_days": 728}},  # outage days counted
    ],
    "production_plan": lambda p: [
        {**p, "base": {**p["base"], "total_cost_usd": 1000.0}},
        {**p, "maintenance": _without(p["maintenance"], "production")},
        {**p, "base": {**p["base"], "production": {k: [0.0] * 10 for k in p["base"]["production"]}}},  # short
        {**p, "maintenance": p["base"]},  # the base plan needs more hours than the shutdown leaves
    ],
    "spare_parts": lambda p: [
        {**p, "total_cost_usd": 1000.0},
        _without(p, "policy"),
        {**p, "policy": {k: {**v, "s": 0, "S": 1} for k, v in p["policy"].items()}},  # fill far below 95%
        {**p, "policy": {k: {**v, "S": 150} for k, v in p["policy"].items()}},  # over the 11,000 USD budget
    ],
    "battery_arbitrage": lambda p: [
        {**p, "base": {**p["base"], "profit_eur": 1e6}},
        {**p, "base": _without(p["base"], "charge_mw")},
        {**p, "base": {**p["base"], "discharge_mw": [5.0] * 744}},  # sells energy it never stored
        {**p, "cycle_limit": p["base"]},  # 1,048 MWh discharged against a cap of 620
    ],
    "water_network": lambda p: [
        {**p, "base": {**p["base"], "total_cost_usd": 1000.0}},
        {**p, "outage": _without(p["outage"], "flows")},
        {**p, "base": {**p["base"], "flows": {}}},  # no water reaches any town
        {**p, "outage": p["base"]},  # W1 treats 16,764 m3 a day against its 10,000 during the outage
        {**p, "design": {**p["design"], "built": []}},  # flows in a main it did not build
        {**p, "data": {**p["data"], "pipes_in_service": 70}},  # out-of-service pipes counted
    ],
}
CONTEST = [
    "battery_arbitrage",
    "production_plan",
    "regional_depots",
    "spare_parts",
    "ward_capacity",
    "water_network",
]

TASK_IDS = sorted(WEAK)


def test_every_own_task_has_its_battery() -> None:
    assert sorted(r.name for r in tasks.discover(FIXTURES) if (r / tasks.PANEL_FILE).is_file()) == TASK_IDS
    assert sorted(MADE_UP) == TASK_IDS


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reference_passes_weak_scores_below_made_up_fails(refs: Artifacts, task_id: str) -> None:
    primary = _primary(refs, task_id)
    reference = score(task_id, primary)
    assert reference.passed, reference.detail
    assert reference.scores["o_eval"] == 1.0

    weak = score(task_id, WEAK[task_id](refs))
    assert weak.extra["gate"]["passed"], weak.extra["gate"]["violations"]  # valid, just worse
    assert weak.scores["o_eval"] < 1.0 and weak.scores["multi_o_eval"] < reference.scores["multi_o_eval"]
    assert weak.passed == (task_id in WEAK_STILL_PASSES), weak.detail

    for made_up in MADE_UP[task_id](primary):
        verdict = score(task_id, made_up)
        assert not verdict.passed and verdict.category == "infeasible_solution", (task_id, made_up)
        assert verdict.scores["o_eval"] == 0.0 and verdict.scores["multi_o_eval"] == 0.0


@pytest.mark.parametrize("task_id", CONTEST)
def test_contest_sized_tasks_are_built_like_a_contest_problem(task_id: str) -> None:
    """Issue 23 item 5: several sub-questions in ≥ 3,000 characters, ≥ 100 KB of attachments with
    an .xlsx, ≥ 15 scored metrics, a recomputing gate and a panel of ≥ 2 references."""
    task = _task(task_id)
    questions = re.findall(r"^\d+\. \*\*", task.instruction, re.MULTILINE)  # "1. **Data.** …"
    assert len(task.instruction) >= 3000 and len(questions) >= 3
    attachments = [p for p in (task.data_dir / "attachments").iterdir() if p.is_file()]
    assert sum(p.stat().st_size for p in attachments) >= 100_000
    assert any(p.suffix == ".xlsx" for p in attachments)
    assert sum(m.included for m in task.metrics) >= 15
    assert task.feasibility is not None and any(c["form"] == "recompute" for c in task.feasibility)
    assert len(task.reference_scripts) >= 2 and task.metadata.get("size") == "contest"


def test_the_claims_the_issue_found_passing_now_fail() -> None:
    """Sites [2, 6, 8] claimed at 1000 (really 32,609), the tour of one repeated stop, a length alone."""
    site_claim = {"open_sites": [2, 6, 8], "total_weighted_distance": 1000.0, "total_demand": 908.0}
    verdict = score("facility_siting", site_claim)
    assert verdict.category == "infeasible_solution"
    assert verdict.extra["gate"]["recomputed"]["total_weighted_distance"] == pytest.approx(32609, abs=1)
    tour = score("delivery_route", {"tour": [0, *[6] * 11, 0], "tour_length_km": 1.0})
    assert "exactly once" in tour.detail
    assert "required decision" in score("delivery_route", {"tour_length_km": 0.0}).detail


def _truth(task_id: str, refs: Artifacts) -> dict[str, Any]:
    primary = _primary(refs, task_id)
    if task_id == "demand_forecast":
        units = [323.5, 335.650635, 342.0]  # 200 + 3m + 25 sin(2πm/12) at m = 37, 38, 39
        forecast = [{"month": 37 + k, "units": u} for k, u in enumerate(units)]
        return {**primary, "forecast": forecast, "forecast_total": sum(units)}
    if task_id == "epidemic_fit":
        return honest(task_id, {**primary, "beta": 0.32, "gamma": 0.1})
    if task_id == "price_setting":
        model = {"form": "constant_elasticity", "scale": 5000.0, "elasticity": -2.1}
        return honest(task_id, {**primary, "demand_model": model})
    if task_id == "ward_capacity":  # the generator: log-rate log 30 + 0.08 t + weekday, lognormal(1.2, 0.6)
        days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        weekday = dict(zip(days, [0.18, 0.10, 0.05, 0.0, 0.02, -0.2, -0.25], strict=True))
        model = {
            "intercept": math.log(30) + 0.18,
            "trend_per_year": 0.08,
            "weekday_effects": {day: effect - 0.18 for day, effect in weekday.items()},
        }
        los = {"family": "lognormal", "params": {"mu": 1.2, "sigma": 0.6}}
        return honest(task_id, {**primary, "admissions_model": model, "los_model": los})
    assert task_id == "tennis_momentum"
    return {**primary, "momentum_supported": 1}


ESTIMATION = ["demand_forecast", "epidemic_fit", "price_setting", "tennis_momentum", "ward_capacity"]


@pytest.mark.parametrize("task_id", ESTIMATION)
def test_the_generating_truth_passes_every_estimation_task(refs: Artifacts, task_id: str) -> None:
    rule = json.loads((FIXTURES / task_id / "tests" / "score_config.json").read_text())["pass_rule"]
    assert rule["kind"] == "estimation"
    verdict = score(task_id, _truth(task_id, refs))
    assert verdict.passed, verdict.detail


def test_an_unverified_claim_past_the_anchor_earns_no_extra_credit(refs: Artifacts) -> None:
    """A tour shorter than the optimum cannot be recomputed (there is none), so its claim alone fails;
    where a claim is verified, meeting the anchor is full credit."""
    primary = _primary(refs, "delivery_route")
    verified = score("delivery_route", primary)
    assert verified.extra["gate"]["verified"] == ["tour_length_km"]
    assert verified.scores["o_eval"] == 1.0
    shorter = score("delivery_route", {**primary, "tour_length_km": primary["tour_length_km"] - 20})
    assert shorter.category == "infeasible_solution"


def test_a_hostile_deeply_nested_artifact_is_an_output_format_failure() -> None:
    task = _task("delivery_route")
    for depth in (200_000, 500):
        raw = ('{"tour": ' + "[" * depth + "]" * depth + "}").encode()
        verdict = score_artifact(task, raw, {}, None, 1.0)
        assert not verdict.passed and verdict.category == "output_format", (depth, verdict.category)


def _p_center(refs: Artifacts) -> dict[str, Any]:
    """The p-center answer (sites 4, 5, 9: smallest largest distance), honest about its numbers."""
    return honest("facility_siting", {**_primary(refs, "facility_siting"), "open_sites": [4, 5, 9]})


def test_a_panel_member_that_answers_another_question_is_refused(refs: Artifacts) -> None:
    facility = _task("facility_siting")
    members = {**refs["facility_siting"], "minimax_center": _p_center(refs)}
    problems = generation.panel_problems(facility, members)
    assert len(problems) == 1 and "minimax_center: beats" in problems[0] and "max_distance_km" in problems[0]
    assert generation.panel_problems(facility, refs["facility_siting"]) == []

    forecast = _task("demand_forecast")
    holt = {**refs["demand_forecast"]["holt_winters"], "seasonal_period_months": 0}
    problems = generation.panel_problems(forecast, {**refs["demand_forecast"], "holt_linear": holt})
    assert any(p.startswith("holt_linear: does not solve the task as stated") for p in problems)


def test_tbmath_generate_check_refuses_such_a_member(tmp_path: Path) -> None:
    copy = tmp_path / "facility_siting"
    shutil.copytree(FIXTURES / "facility_siting", copy, ignore=shutil.ignore_patterns("__pycache__"))
    script = copy / "solution" / "references" / "minimax_center.py"
    greedy = (copy / "solution" / "references" / "greedy_add.py").read_text()
    script.write_text(
        greedy.replace(
            "chosen = []\nfor _ in range(3):\n"
            "    chosen.append(min((s for s in sites if s not in chosen), key=lambda s: cost(chosen + [s])))",
            "import itertools\nchosen = list(min(itertools.combinations(sites, 3), key=lambda c: max(\n"
            "    min(math.hypot(x - sx, y - sy) for _, sx, sy in c) for x, y, _ in cust)))",
        )
    )
    assert "itertools" in script.read_text()
    panel_path = copy / tasks.PANEL_FILE
    panel = json.loads(panel_path.read_text())
    panel["references"].append(
        {"id": "minimax_center", "model": "p-center", "script": "solution/references/minimax_center.py"}
    )
    panel_path.write_text(json.dumps(panel, indent=2) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "benchmark", "tbmath-generate", "--check", str(copy)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "minimax_center: beats the primary reference exact_enumeration on max_distance_km" in done.stderr


def test_the_docs_table_lists_every_task_with_its_kind_metrics_and_panel() -> None:
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in (REPO / "docs" / "tbmath-tasks.md").read_text().splitlines()
        if line.startswith("| `")
    }
    assert sorted(rows) == TASK_IDS
    for task_id, row in rows.items():
        task = _task(task_id)
        config = json.loads((task.root / "tests" / "score_config.json").read_text())
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        assert cells[2] == config["pass_rule"]["kind"], task_id
        assert cells[3].startswith(f"{sum(m.included for m in task.metrics)}: "), task_id
        panel = [c.strip("` ") for c in cells[6].split(",")]
        assert panel[0] == task.primary_reference, task_id
        assert set(panel) == {r.reference_id for r in task.references}, task_id


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_hostile_decisions_are_scored_failures_never_harness_errors(refs: Artifacts, task_id: str) -> None:
    """Every required decision replaced by junk of another shape: the case still ends in a verdict."""
    task = _task(task_id)
    assert task.feasibility is not None
    required = [p for c in task.feasibility if c["form"] == "recompute" for p in c.get("required", [])]
    for junk in ("all of them", [[[[]]]], {"__class__": None}, 1e308, -1, True, None, [float("nan")]):
        for path in required:
            artifact = _primary(refs, task_id)
            _set(artifact, path, junk)
            verdict = score(task_id, artifact)
            assert not verdict.passed and verdict.category == "infeasible_solution", (task_id, path, junk)
    nan = score_artifact(task, b'{"tour": NaN, "beta": Infinity}', {}, None, 1.0)
    assert not nan.passed
