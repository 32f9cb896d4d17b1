"""The shipped TB-MathModel tasks as data: coverage, reproducibility, and the scoring and gate
contracts of the paper (§3.1 oracle self-consistency and one-sidedness, §3.3 the gate's three
contracts, App. H.4 the one-leaf mutation suite), checked on every reference's real artifact."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import create_sandbox
from benchmark.suites.tbmath import generation, paths, tasks
from benchmark.suites.tbmath.certificates import certify
from benchmark.suites.tbmath.feasibility import FORMS, run_gate
from benchmark.suites.tbmath.scoring import metric_reward, panel_raw, reference_fields
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "tbmath"
TASK_ROOTS = tasks.discover(FIXTURES)


@pytest.fixture(scope="module")
def artifacts() -> dict[str, dict[str, dict[str, Any]]]:
    """Every reference script of every task, run once in the sandbox as the oracle runs it."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    with create_sandbox([FIXTURES]) as sandbox:
        for root in TASK_ROOTS:
            task = tasks.load_task(root)
            out[task.task_id] = {
                s.reference_id: generation.run_reference(task, s.script, sandbox)
                for s in task.reference_scripts
            }
    return out


def test_at_least_twelve_tasks_each_with_data_schema_gate_and_a_panel_of_different_models() -> None:
    assert len(TASK_ROOTS) >= 12
    forms: set[str] = set()
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        assert list((task.data_dir / "attachments").glob("*.csv")), task.task_id
        assert isinstance(task.schema, dict) and task.schema, task.task_id
        assert 2 <= len(task.reference_scripts) <= 4, task.task_id
        assert len({s.model for s in task.reference_scripts}) == len(task.reference_scripts), task.task_id
        assert task.primary_reference in {s.reference_id for s in task.reference_scripts}
        # coverage: no task ships ungated
        assert task.feasibility, f"{task.task_id} has no feasibility checks"
        forms |= {check["form"] for check in task.feasibility}
        assert task.artifact_path == f"results/{task.task_id}_result.json"
    assert forms == set(FORMS), "every decidable form is exercised by some shipped task"
    assert any(tasks.load_task(r).literature_split for r in TASK_ROOTS)
    assert any(tasks.load_task(r).figures() for r in TASK_ROOTS)


def test_attachments_regenerate_byte_for_byte_from_their_seeds(tmp_path: Path) -> None:
    for root in TASK_ROOTS:
        copy = tmp_path / root.name
        shutil.copytree(root, copy)
        shutil.rmtree(copy / "environment" / "data" / "attachments")
        (copy / "environment" / "data" / "attachments").mkdir()
        done = subprocess.run(
            [sys.executable, "solution/make_data.py"], cwd=copy, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                assert (copy / path.relative_to(root)).read_bytes() == path.read_bytes(), path


def test_every_reference_reproduces_its_recorded_panel_values(artifacts: dict) -> None:
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        for reference in task.references:
            if reference.reference_id not in artifacts[task.task_id]:  # a report without a script
                assert not reference.values and reference.exclusion_reason
                continue
            artifact = artifacts[task.task_id][reference.reference_id]
            for path, value in reference.values.items():
                assert paths.lookup(artifact, path) == (True, value), (
                    task.task_id,
                    reference.reference_id,
                    path,
                )
        primary = artifacts[task.task_id][task.primary_reference]
        for metric in task.metrics:
            assert paths.lookup(primary, metric.path) == (True, metric.anchor), (task.task_id, metric.path)


def test_every_reference_scores_exactly_one_against_itself(artifacts: dict) -> None:
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        for reference in task.references:
            fields = reference_fields(reference, task.metrics)
            if not fields:  # never silently dropped: it says why it is outside the panel
                assert reference.exclusion_reason, f"{task.task_id}/{reference.reference_id}"
                continue
            artifact = artifacts[task.task_id][reference.reference_id]
            score = panel_raw(artifact, task.metrics, anchors=dict(reference.values), subset=fields)
            assert score.raw == 1.0, (task.task_id, reference.reference_id, score)


def test_beating_a_directional_anchor_never_scores_below_one() -> None:
    for root in TASK_ROOTS:
        for metric in tasks.load_task(root).metrics:
            if metric.direction not in ("higher_is_better", "lower_is_better"):
                continue
            step = max(abs(metric.anchor) * 0.1, 1.0)
            better = metric.anchor + step if metric.direction == "higher_is_better" else metric.anchor - step
            if metric.domain is not None and not metric.domain.contains(better):
                continue
            assert metric_reward(metric, True, better).reward == 1.0, (root.name, metric.path)


def test_every_reference_passes_the_gate_and_its_certificate(artifacts: dict) -> None:
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        assert task.feasibility is not None
        for reference_id, artifact in artifacts[task.task_id].items():
            gate = run_gate(task.feasibility, artifact, root)
            assert gate.passed, (task.task_id, reference_id, gate.violations[:3])
            assert gate.obligations
            if reference_id == task.primary_reference:
                assert not gate.gaps, (task.task_id, gate.gaps)
                assert certify(gate.obligations, gate.gaps).status == "certified", task.task_id


def test_an_empty_artifact_fails_where_decisions_are_required_and_only_warns_elsewhere() -> None:
    """Evidence, not claims: a task whose gate recomputes from decisions fails an artifact without
    them, naming each absent decision; a task that requires none only warns (its claims are gaps)."""
    requiring = 0
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        assert task.feasibility is not None
        required = [p for c in task.feasibility if c["form"] == "recompute" for p in c.get("required", [])]
        gate = run_gate(task.feasibility, {}, root)
        if required:
            requiring += 1
            assert not gate.passed, task.task_id
            assert {v.path for v in gate.violations} == set(required), (task.task_id, gate.violations)
        else:
            assert gate.passed and gate.gaps, task.task_id
    assert requiring >= 11


def _numeric_leaves(node: Any, prefix: str = "") -> list[tuple[str, float]]:
    if isinstance(node, dict):
        return [
            leaf
            for key, value in node.items()
            for leaf in _numeric_leaves(value, f"{prefix}.{key}" if prefix else key)
        ]
    if isinstance(node, list):
        return [
            leaf for index, value in enumerate(node) for leaf in _numeric_leaves(value, f"{prefix}[{index}]")
        ]
    if isinstance(node, int | float) and not isinstance(node, bool):
        return [(prefix, float(node))]
    return []


def _set(artifact: Any, path: str, value: float) -> Any:
    copy = json.loads(json.dumps(artifact))
    *head, last = paths.parse(path)
    node = copy
    for token in head:
        node = node[token]
    node[last] = value
    return copy


def test_mutating_one_checked_numeric_leaf_is_rejected_citing_that_field(artifacts: dict) -> None:
    """App. H.4: each leaf an obligation reads is pushed far up and far down; at least one push must
    be rejected by the gate and refuted by z3, and the rejection must cite the mutated path."""
    mutated = 0
    for root in TASK_ROOTS:
        task = tasks.load_task(root)
        assert task.feasibility is not None
        oracle = artifacts[task.task_id][task.primary_reference]
        baseline = run_gate(task.feasibility, oracle, root)
        cited = {path for obligation in baseline.obligations for path in obligation.paths}
        for path, value in _numeric_leaves(oracle):
            if path not in cited:
                continue
            rejected = False
            for candidate in (value + 1000 * max(1.0, abs(value)), -1000 * (abs(value) + 1)):
                gate = run_gate(task.feasibility, _set(oracle, path, candidate), root)
                citing = [v for v in gate.violations if path in v.path.split(", ")]
                involved = [o for o in gate.obligations if path in o.paths]
                refuted = [d for d in certify(involved, []).rejected if d.refuted]
                if citing and refuted:
                    rejected = True
                    break
            assert rejected, f"{task.task_id}: mutating {path} was not rejected"
            mutated += 1
    assert mutated >= 100
