"""Building our TB-MathModel tasks: attachments from seeds, references run, panels recorded.

``python -m benchmark.suites.tbmath.generation`` does, for every task under ``fixtures/tbmath``
that has a ``tests/reference_panel.json``:

1. runs ``solution/make_data.py`` (fixed seed) in the task folder: it writes the attachments and,
   for tasks whose gate is generated from the data, ``tests/feasibility.json``;
2. runs every reference script in the harness sandbox, exactly as the oracle does (the script sees
   only ``data/``), and reads its artifact;
3. refuses a panel whose members do not answer the task (:func:`panel_problems`): every member
   must pass the task's gate, recomputation included; none may beat the primary reference (the
   certified optimum) on a directional metric; the primary must meet the task's pass rule;
4. records each reference's values for the scored fields in ``tests/reference_panel.json`` and the
   primary reference's values as the anchors (``oracle_value``) in ``tests/score_config.json``.

``--check`` does all of this in a scratch copy and fails, naming the file, if anything differs from
what is committed: same seed, same attachments and the same panel, byte for byte.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmark.sandbox import Sandbox, create_sandbox
from benchmark.suites.tbmath import pass_rule, paths, tasks
from benchmark.suites.tbmath.feasibility import run_gate
from benchmark.suites.tbmath.scoring import as_number
from benchmark.suites.tbmath.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tbmath"
REFERENCE_TIMEOUT_S = 300.0


class GenerationError(RuntimeError):
    pass


def run_reference(task: tasks.Task, script: Path, sandbox: Sandbox) -> dict[str, Any]:
    """The artifact one reference script writes when run on the task's data in the sandbox."""
    workspace = Workspace(task.workspace_files())
    code = f"ARTIFACT = {task.artifact_path!r}\n" + script.read_text(encoding="utf-8")
    result = workspace.run(sandbox, "python", code, REFERENCE_TIMEOUT_S, 20_000)
    raw = workspace.read(task.artifact_path)
    if result.exit_code != 0 or raw is None:
        raise GenerationError(
            f"{script}: the reference failed ({result.error or result.exit_code}):\n{result.output}"
        )
    artifact = json.loads(raw)
    if not isinstance(artifact, dict):
        raise GenerationError(f"{script}: the artifact is not a JSON object")
    return artifact


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def panel_problems(task: tasks.Task, artifacts: dict[str, dict[str, Any]]) -> list[str]:
    """Why this panel does not answer the task as stated (empty when it does).

    A member that fails the gate solves another problem or breaks a stated constraint (a forecast
    without the stated season, a staffing level above the waiting target); a member that beats the
    certified optimum on a directional metric optimises something else (a p-center solution in a
    p-median task), and would cap what the exact answer can score against the panel."""
    problems: list[str] = []
    verified: dict[str, set[str]] = {}
    for reference_id, artifact in artifacts.items():
        if task.feasibility is None:
            continue
        gate = run_gate(task.feasibility, artifact, task.root)
        verified[reference_id] = gate.verified
        problems += [
            f"{reference_id}: does not solve the task as stated: {v.check_id} ({v.path}): {v.message}"
            for v in gate.violations[:3]
        ]
    primary_id = task.primary_reference
    primary = artifacts.get(primary_id or "")
    if primary is None:
        return problems
    for reference_id, artifact in artifacts.items():
        for metric in task.metrics:
            if reference_id == primary_id or metric.direction not in ("higher_is_better", "lower_is_better"):
                continue
            mine, best = paths.lookup(artifact, metric.path)[1], paths.lookup(primary, metric.path)[1]
            if as_number(mine) is None or as_number(best) is None:
                continue
            beats = mine < best if metric.direction == "lower_is_better" else mine > best
            if beats:
                problems.append(
                    f"{reference_id}: beats the primary reference {primary_id} on {metric.path} "
                    f"({mine} vs {best}, {metric.direction}): it optimises another objective"
                )
    # the primary's fresh values are the anchors this build will record (the certified optima)
    anchored = []
    for metric in task.metrics:
        fresh = as_number(paths.lookup(primary, metric.path)[1])
        anchored.append(metric if fresh is None else replace(metric, anchor=fresh))
    rule = pass_rule.load(task.root, anchored)
    if rule is not None:
        problems += [
            f"{primary_id}: the primary reference fails the task's pass rule: {reason}"
            for reason in rule.failures(primary, verified.get(primary_id or "", set()))
        ]
    return problems


def build_task(root: Path, sandbox: Sandbox) -> dict[str, dict[str, Any]]:
    """Regenerate one task folder in place; returns each reference's artifact."""
    make_data = root / "solution" / "make_data.py"
    if make_data.is_file():
        (root / tasks.DATA_DIR / "attachments").mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [sys.executable, str(make_data)], cwd=root, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise GenerationError(f"{make_data} failed:\n{proc.stderr[-3000:]}")
    tasks.load_task.cache_clear()
    task = tasks.load_task(root)
    artifacts = {s.reference_id: run_reference(task, s.script, sandbox) for s in task.reference_scripts}
    problems = panel_problems(task, artifacts)
    if problems:
        raise GenerationError(
            f"{root}: the reference panel does not answer the task:\n  " + "\n  ".join(problems)
        )
    panel_path = root / tasks.PANEL_FILE
    panel = json.loads(panel_path.read_text(encoding="utf-8"))
    for item in panel["references"]:
        artifact = artifacts.get(item["id"], {})
        values: dict[str, float] = {}
        for metric in task.metrics:
            found, value = paths.lookup(artifact, metric.path)
            if found and as_number(value) is not None:
                values[metric.path] = value
        item["values"] = values
    _write_json(panel_path, panel)
    config_path = root / tasks.SCORE_CONFIG
    config = json.loads(config_path.read_text(encoding="utf-8"))
    primary = artifacts[panel["primary"]]
    for metric in config["metrics"]:
        found, value = paths.lookup(primary, metric["path"])
        if not found or as_number(value) is None:
            raise GenerationError(f"{root}: the primary reference reports no number at {metric['path']}")
        metric["oracle_value"] = value
    _write_json(config_path, config)
    tasks.load_task.cache_clear()
    return artifacts


def _differences(left: Path, right: Path) -> list[str]:
    out: list[str] = []
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])

    def walk(node: filecmp.dircmp[str], prefix: str) -> None:
        out.extend(f"{prefix}{name}: only in one copy" for name in node.left_only + node.right_only)
        for name in node.common_files:
            if not filecmp.cmp(Path(node.left) / name, Path(node.right) / name, shallow=False):
                out.append(f"{prefix}{name}: differs")
        for name, sub in node.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(comparison, "")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate in a scratch copy and compare")
    parser.add_argument("root", nargs="?", default=str(FIXTURES))
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    sandbox = create_sandbox([root])
    problems: list[str] = []
    for task_root in tasks.discover(root):
        if not (task_root / tasks.PANEL_FILE).is_file():
            continue
        try:
            if args.check:
                with tempfile.TemporaryDirectory() as scratch:
                    copy = Path(scratch) / task_root.name
                    shutil.copytree(task_root, copy, ignore=shutil.ignore_patterns("__pycache__"))
                    build_task(copy, sandbox)
                    problems += [f"{task_root}/{d}" for d in _differences(task_root, copy)]
            else:
                build_task(task_root, sandbox)
                print(f"built {task_root.name}")
        except GenerationError as exc:
            problems.append(str(exc))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
