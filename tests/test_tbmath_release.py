"""Tasks in the public TB-MathModel release's formats (small tasks of our own under
tests/data/tbmath_release): both score-config formats read completely, every task loads or becomes
one dataset error naming the file and field, damaged and hostile folders are refused per task, and
missing attachments are reported."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmark.suites.tbmath import tasks
from benchmark.suites.tbmath.suite import SUITE
from benchmark.verdict import DatasetError
from tests.conftest import REPO

RELEASE = REPO / "tests" / "data" / "tbmath_release"


def _copy(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "release"
    for name in names:
        shutil.copytree(RELEASE / name, root / name)
    tasks.load_task.cache_clear()
    return root


def _edit_config(task_root: Path, edit) -> None:
    path = task_root / "tests" / "score_config.json"
    config = json.loads(path.read_text())
    edit(config)
    path.write_text(json.dumps(config))
    tasks.load_task.cache_clear()


def test_the_endpoint_format_is_read_completely_with_orientation_from_the_config() -> None:
    task = tasks.load_task(RELEASE / "route-budget")
    assert task.config_format == "endpoint"
    by_path = {m.path: m for m in task.declared_metrics}
    served, length = by_path["model.stops_served"], by_path["model.round_km"]
    assert (served.direction, served.baseline_value, served.outstanding_value) == ("higher_is_better", 12, 18)
    assert (length.direction, length.baseline_value) == ("lower_is_better", 60)
    assert served.normalization_mode == "baseline_to_outstanding_target_minmax"
    assert all(m.direction_source.startswith("config") for m in (served, length))
    # weight-0 and unscored metrics are kept, each with the release's reason, and not scored
    assert by_path["model.depot"].unscored == "constant_endpoint"
    assert by_path["model.hours"].unscored == "missing_baseline"
    excluded = {m.path: m.excluded for m in task.metrics if m.excluded}
    assert set(excluded) == {"model.depot", "model.hours"}
    assert all(reason.startswith("unscored") for reason in excluded.values())
    assert task.inferred_orientation == ()
    assert (task.timeouts.agent_s, task.timeouts.verifier_s) == (1200.0, 20.0)
    assert (task.endpoints.baseline, task.endpoints.outstanding) == (0.0, 1.0)
    shop = tasks.load_task(RELEASE / "shop-demand")
    assert shop.resources == tasks.Resources(cpus=1.0, memory_mb=2048.0, allow_internet=False)


def test_a_legacy_config_says_its_orientation_is_inferred_and_keeps_its_endpoints() -> None:
    task = tasks.load_task(RELEASE / "shop-demand")
    assert task.config_format == "legacy"
    assert task.inferred_orientation == ("model.mean_daily_units", "model.peak_day", "plan.weekly_order")
    assert {m.direction for m in task.metrics} == {"target_value"}
    assert task.endpoints.baseline == 0.5
    assert task.missing_attachments == ()


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda c: c["metrics"][1].update(weight=float("inf")), "metrics[1].weight"),
        (lambda c: c["metrics"][0].update(abs_scale=float("nan")), "metrics[0].abs_scale"),
        (lambda c: c["metrics"][2].update(oracle_value=float("-inf")), "metrics[2].oracle_value"),
        (lambda c: c["baseline_endpoint"].update(panel_score=float("nan")), "baseline_endpoint.panel_score"),
    ],
)
def test_non_finite_numbers_in_a_config_are_refused_naming_file_and_field(tmp_path, edit, field) -> None:
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    _edit_config(root, edit)
    assert (
        "Infinity" in (root / "tests/score_config.json").read_text()
        or "NaN" in (root / "tests/score_config.json").read_text()
    )
    with pytest.raises(DatasetError) as caught:
        tasks.load_task(root)
    assert "score_config.json" in str(caught.value) and field in str(caught.value)
    assert "finite" in str(caught.value)


def test_a_non_finite_timeout_in_task_toml_is_refused(tmp_path) -> None:
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace("timeout_sec = 30.0", "timeout_sec = nan"))
    with pytest.raises(DatasetError, match=r"task.toml: verifier.timeout_sec: must be a finite number"):
        tasks.load_task(root)


def test_the_checks_files_are_read_and_a_non_finite_tolerance_is_refused(tmp_path) -> None:
    task = tasks.load_task(RELEASE / "shop-demand")
    assert [(c.path, c.expected) for c in task.string_checks] == [("problem_id", "SHOP-1")]
    assert [(c.path, c.expected, c.rel_tol) for c in task.numeric_checks] == [
        ("model.mean_daily_units", 13.0, 0.12),
        ("plan.weekly_order", 91.0, 0.12),
    ]
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    checks = root / "tests" / "numeric_checks.json"
    checks.write_text(checks.read_text().replace('"abs_tol": 1e-06}\n]', '"abs_tol": NaN}\n]'))
    with pytest.raises(DatasetError, match=r"numeric_checks.json: \[1\].abs_tol: must be a finite number"):
        tasks.load_task(root)


def test_a_manifest_entry_missing_from_the_copy_is_reported() -> None:
    task = tasks.load_task(RELEASE / "route-budget")
    assert task.missing_attachments == (
        "environment/data/repo/travel_times.csv (listed in source_manifest.json)",
    )


def test_a_gap_in_a_numbered_attachment_series_is_reported(tmp_path) -> None:
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    data = root / "environment" / "data" / "attachments"
    for number in (1, 3):
        (data / f"sheet{number}.csv").write_text("a\n1\n")
    assert tasks.load_task(root).missing_attachments == (
        "environment/data/attachments/sheet2.csv (probably missing: the numbered series has a gap)",
    )


def test_a_dockerfile_asking_for_other_packages_says_so(tmp_path) -> None:
    from benchmark.suites.tbmath.sandboxes import environment_differences

    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    dockerfile = root / "environment" / "Dockerfile"
    dockerfile.write_text("FROM python:3.12-slim\nRUN pip install numpy==2.0.2 pandas==2.1.0 torch==2.3.0\n")
    assert environment_differences(root) == (
        "pandas==2.1.0 (the agent stack has 2.2.2)",
        "torch==2.3.0 (not in the agent stack)",
    )
    assert environment_differences(RELEASE / "shop-demand") == ()  # pins exactly the agent stack


def test_a_task_with_a_dockerfile_gets_the_agent_stack_and_one_without_keeps_the_solver_stack(
    tmp_path, agent_box
) -> None:
    from benchmark.sandbox import create_sandbox
    from benchmark.suites.tbmath.sandboxes import AGENT_VENV_DIR, advertised_packages, episode_sandbox

    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    with create_sandbox([RELEASE]) as base:
        with_image, _ = episode_sandbox(base, root)
        assert with_image.environment.prefix.name == AGENT_VENV_DIR
        assert "openpyxl (pandas reads .xlsx with it)" in advertised_packages(root)
        (root / "environment" / "Dockerfile").unlink()
        without, note = episode_sandbox(base, root)
        assert without is base and note is None
        assert "openpyxl (pandas reads .xlsx with it)" not in advertised_packages(root)


def _hostile(root: Path, kind: str) -> str:
    """Damage one task folder; returns what the dataset error must name."""
    if kind == "escaping attachment link":
        os.symlink("/etc/hostname", root / "environment" / "data" / "attachments" / "host.txt")
        return "host.txt"
    if kind == "artifact path with ..":
        toml = root / "task.toml"
        toml.write_text(toml.read_text().replace("/root/results/", "/root/../etc/"))
        return "task.toml"
    panel = {"references": [{"id": "r", "values": {}, "script": "../../outside.py"}]}
    (root / "tests" / "reference_panel.json").write_text(json.dumps(panel))
    return "reference_panel.json: references[0].script"


@pytest.mark.parametrize(
    "kind", ["escaping attachment link", "artifact path with ..", "reference script outside the task"]
)
def test_a_hostile_task_is_one_dataset_error_and_the_others_still_load(tmp_path, kind) -> None:
    root = _copy(tmp_path, "shop-demand", "route-budget")
    named = _hostile(root / "shop-demand", kind)
    refs = SUITE.discover(root)  # never raises for one bad task
    assert [r.labels["instance_id"] for r in refs] == ["route-budget", "shop-demand"]
    assert refs[1].labels["family"] == "unloadable"
    with pytest.raises(DatasetError) as caught:
        tasks.load_task(root / "shop-demand")
    assert named in str(caught.value)
    assert tasks.load_task(root / "route-budget").task_id == "route-budget"


def test_a_task_that_does_not_load_does_not_stop_discovery(tmp_path) -> None:
    root = _copy(tmp_path, "shop-demand", "route-budget")
    (root / "route-budget" / "tests" / "score_config.json").write_text("{broken")
    refs = SUITE.discover(root)
    assert [r.labels["family"] for r in refs] == ["unloadable", "inventory"]


# ---------------------------------------------------------------- the task's own verifier


@pytest.fixture(scope="module")
def agent_box():
    """The agent stack's sandbox (what ``--scoring=official`` and the agent's tools run in)."""
    from benchmark.sandbox import create_sandbox
    from benchmark.suites.tbmath.sandboxes import agent_sandbox

    with create_sandbox([RELEASE]) as base:
        sandbox, note = agent_sandbox(base)
        assert note is None, note
        if base.kind.value == "subprocess":
            pytest.fail("the official verifier needs bubblewrap (scripts/setup.sh installs it as root)")
        yield sandbox


def _official(task_root: Path, artifact: object, sandbox) -> object:
    from benchmark.suites.tbmath.official_verifier import run_official

    tasks.load_task.cache_clear()
    raw = None if artifact is None else json.dumps(artifact).encode()
    return run_official(tasks.load_task(task_root), raw, sandbox)


def _expected(name: str) -> dict:
    return json.loads((RELEASE / name / "tests" / "expected_result.json").read_text())


def test_the_oracle_artifact_earns_the_full_official_reward(agent_box) -> None:
    for name in ("shop-demand", "route-budget"):
        result = _official(RELEASE / name, _expected(name), agent_box)
        assert result.reward == 1.0 and result.checks_passed, result.output
        assert [c["status"] for c in result.checks] == ["passed"] * 3
        assert result.details is not None and result.details["reward"] == 1.0


def test_numeric_strings_count_as_numbers_as_the_official_float_does(agent_box) -> None:
    artifact = _expected("shop-demand")
    artifact["model"] = {"mean_daily_units": "13.0", "peak_day": "6"}
    assert _official(RELEASE / "shop-demand", artifact, agent_box).reward == 1.0


def test_a_non_finite_value_scores_that_metric_zero(agent_box) -> None:
    artifact = _expected("shop-demand")
    artifact["model"]["mean_daily_units"] = float("nan")
    # by hand: rewards 0, 1 and 1 (weight 2) → raw 3/4; endpoints 0.5..1 → (0.75 - 0.5) / 0.5
    assert _official(RELEASE / "shop-demand", artifact, agent_box).reward == pytest.approx(0.5, abs=1e-12)


def test_overshooting_the_outstanding_endpoint_loses_credit_officially(agent_box) -> None:
    artifact = _expected("route-budget")
    artifact["model"]["stops_served"] = 24  # 6 past the outstanding 18, the baseline is 12
    # by hand: 1 - |24 - 18| / (18 - 12) = 0, round_km exact = 1; weights 1 and 1 → 0.5
    assert _official(RELEASE / "route-budget", artifact, agent_box).reward == pytest.approx(0.5, abs=1e-12)


def test_a_failed_structural_check_is_reward_zero_with_the_check_named(agent_box) -> None:
    artifact = _expected("shop-demand")
    del artifact["plan"]
    result = _official(RELEASE / "shop-demand", artifact, agent_box)
    assert result.reward == 0.0 and not result.checks_passed
    failed = [c["name"] for c in result.checks if c["status"] == "failed"]
    assert failed == ["test_outputs.py::test_sections_present"]
    missing = _official(RELEASE / "shop-demand", None, agent_box)
    assert missing.reward == 0.0 and not missing.checks_passed


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("import time\ntime.sleep(30)\n", "ran past its 3 s timeout"),
        ("raise RuntimeError('scorer bug')\n", "crashed with exit status 1"),
        ("open('/logs/verifier/reward.txt', 'w').write('1.5')\n", r"outside \[0, 1\]"),
    ],
)
def test_a_verifier_that_hangs_or_crashes_is_a_dataset_error(tmp_path, agent_box, script, message) -> None:
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    (root / "tests" / "score_result.py").write_text(script)
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace("timeout_sec = 30.0", "timeout_sec = 3.0"))
    with pytest.raises(DatasetError, match=message) as caught:
        _official(root, _expected("shop-demand"), agent_box)
    assert "score_result.py" in str(caught.value)


def test_a_verifier_that_cannot_be_collected_is_a_dataset_error(tmp_path, agent_box) -> None:
    root = _copy(tmp_path, "shop-demand") / "shop-demand"
    (root / "tests" / "test_outputs.py").write_text("def broken(:\n")
    with pytest.raises(DatasetError, match="pytest exited with status 2") as caught:
        _official(root, _expected("shop-demand"), agent_box)
    assert "test_outputs.py" in str(caught.value)
