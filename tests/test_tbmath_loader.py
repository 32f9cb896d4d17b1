"""Reading task folders: the configuration-only exclusions of §3.1 (non-comparable units,
surplus list items, weight 0), artifact paths of the public layout, and damaged files named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.suites.tbmath import tasks
from benchmark.suites.tbmath.scoring import panel_raw
from benchmark.verdict import DatasetError
from tests.conftest import REPO

PUBLIC = REPO / "tests" / "data" / "tbmath_public" / "mini-mean-estimate"
BAD_DIRECTION = json.dumps({"metrics": [{"path": "a", "oracle_value": 1, "direction": "up"}]})


def _task(tmp_path: Path, config: dict) -> tasks.Task:
    root = tmp_path / "task"
    shutil.copytree(PUBLIC, root)
    (root / "tests" / "score_config.json").write_text(json.dumps(config))
    tasks.load_task.cache_clear()
    return tasks.load_task(root)


def test_configuration_only_exclusions_apply_to_every_submission(tmp_path: Path) -> None:
    config = {
        "cardinality": {"recommendations": 3},
        "metrics": [
            {"path": "recommendations[0].medals", "oracle_value": 10, "direction": "target_value"},
            {"path": "recommendations[3].medals", "oracle_value": 4, "direction": "target_value"},
            {
                "path": "lamprey_index",
                "oracle_value": 1080,
                "direction": "target_value",
                "unit_pinned": False,
            },
            {"path": "share_index", "oracle_value": 0.8, "direction": "target_value", "unit_pinned": False},
            {"path": "recorded_only", "oracle_value": 1, "direction": "target_value", "weight": 0},
        ],
    }
    task = _task(tmp_path, config)
    excluded = {m.path: (m.excluded or "").split(":")[0] for m in task.metrics if m.excluded}
    assert excluded == {
        "recommendations[3].medals": "surplus_item",
        "lamprey_index": "non_comparable_unit",
        "recorded_only": "weight_zero",
    }
    # a submission with five recommendations and a normalised index is judged on the rest only
    artifact = {"recommendations": [{"medals": 10}] * 5, "lamprey_index": 0.9, "share_index": 0.8}
    assert panel_raw(artifact, task.metrics).raw == 1.0


def test_absolute_artifact_paths_of_the_release_become_relative() -> None:
    assert tasks.artifact_relative("/root/results/x_result.json", "x") == "results/x_result.json"
    assert tasks.artifact_relative("out/y.json", "y") == "out/y.json"
    with pytest.raises(ValueError):
        tasks.artifact_relative("/root/../etc/passwd", "z")


@pytest.mark.parametrize(
    ("relative", "text", "message"),
    [
        ("tests/score_config.json", "{broken", "not valid JSON"),
        ("tests/score_config.json", json.dumps({"metrics": []}), "non-empty list"),
        ("tests/score_config.json", BAD_DIRECTION,
         "unknown direction"),
        ("task.toml", "artifacts = []", "exactly one artifact"),
        ("tests/feasibility.json", json.dumps({"rules": []}), "'checks' must be a list"),
    ],
)  # fmt: skip
def test_a_damaged_file_is_named_with_its_problem(
    tmp_path: Path, relative: str, text: str, message: str
) -> None:
    root = tmp_path / "task"
    shutil.copytree(PUBLIC, root)
    (root / relative).write_text(text)
    tasks.load_task.cache_clear()
    with pytest.raises(DatasetError, match=message) as caught:
        tasks.load_task(root)
    assert relative.split("/")[-1] in str(caught.value)


def test_schema_violations_name_the_field() -> None:
    schema = {"a": "number", "b": [{"c": "integer"}], "$units": {"a": "MW"}}
    assert tasks.schema_violations(schema, {"a": 1.5, "b": [{"c": 2}]}) == []
    assert tasks.schema_violations(schema, {"a": "x", "b": [{"c": 2.5}, {}]}) == [
        "a: expected number, got str",
        "b[0].c: expected integer, got float",
        "b[1].c: missing",
    ]
