"""The TB-MathModel suite: an agent works in a sandboxed terminal, one JSON artifact is scored.

Per case: the agent loop (``agent.py``) → the artifact at the task's required path → parsed JSON
→ the feasibility gate (``feasibility.py``) and its certificates (``certificates.py``) → the
metric panel (``scoring.py``): O-Eval against the primary anchor, multi-reference O-Eval over the
task's reference panel and, with ``--baseline RUN_DIR``, Robust BO-Eval and Multi-BO against that
run. A failed gate sets O-Eval 0 and BO-Eval −1; a missing artifact scores 0 / −1. With
``--artifacts DIR`` no model is called: ``DIR/<task id>.json`` (or ``DIR/<task id>/<artifact
path>``) is scored, whichever agent produced it; without ``--model`` the run's model is then
``artifacts:DIR``.

The oracle answers with the primary reference: one ``python`` turn that runs its script on the
attachments inside the sandbox (or writes ``tests/expected_result.json`` for a task in the public
release that ships one), then a reply without tool calls.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest

from adapters.artifacts import PREFIX as ARTIFACTS_PREFIX
from adapters.base import CompletionRequest, OracleUnavailable
from benchmark.attempt import Attempt
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory
from benchmark.records import RESULTS_FILE, latest_by_case, read_records
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.base import CaseContext, Grouping, RecordDetail, Suite, SuiteDefaults
from benchmark.suites.tbmath import generation, pass_rule, reporting, tasks
from benchmark.suites.tbmath.agent import AgentLimits, first_messages, run_episode, turn_request
from benchmark.suites.tbmath.certificates import certify, lean_source
from benchmark.suites.tbmath.detail import DETAIL, TbmathAttemptData, TbmathExtra, TbmathScores
from benchmark.suites.tbmath.feasibility import CheckError, run_gate
from benchmark.suites.tbmath.official_verifier import run_official
from benchmark.suites.tbmath.sandboxes import agent_sandbox, environment_differences
from benchmark.suites.tbmath.scoring import (
    multi_bo,
    multi_reference_o_eval,
    o_eval,
    panel_raw,
    robust_bo_eval,
)
from benchmark.verdict import DatasetError, Verdict

SUITE_NAME = "tbmath"
DEFAULT_WALL_S = 3600.0  # an episode's wall time when neither --agent-wall-s nor task.toml gives one
MAX_ARTIFACT_DEPTH = 64  # far beyond any schema; deeper artifacts are hostile, not answers
_FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tbmath"


def oracle_program(task: tasks.Task) -> str:
    """The Python the oracle runs in the sandbox to produce the reference artifact."""
    header = f"ARTIFACT = {task.artifact_path!r}\n"
    if task.primary_reference is not None:
        script = {s.reference_id: s.script for s in task.reference_scripts}.get(task.primary_reference)
        if script is None:
            raise DatasetError(task.root / tasks.PANEL_FILE, "the primary reference has no script")
        return header + script.read_text(encoding="utf-8")
    if task.expected_result is not None:
        text = task.expected_result.read_text(encoding="utf-8")
        return (
            header + "import os\nos.makedirs(os.path.dirname(ARTIFACT) or '.', exist_ok=True)\n"
            f"open(ARTIFACT, 'w', encoding='utf-8').write({text!r})\n"
        )
    raise OracleUnavailable(
        f"{task.root}: the task has neither a reference script nor tests/expected_result.json"
    )


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed artifact, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _marker(text: str) -> str:
    return re.sub(r"\W", "_", text).strip("_").lower() or "unlabelled"


class TbmathCategory(StrEnum):
    """TBMath's own scoring categories, after the execution ones: the artifact breaks a constraint
    the gate checks, or its O-Eval (or the official reward, or a pass rule) falls short."""

    INFEASIBLE_SOLUTION = "infeasible_solution"
    WRONG_OBJECTIVE = "wrong_objective"


class TbMathSuite(SuiteDefaults):
    name = SUITE_NAME
    settings: tuple[str, ...] = ("agent",)
    default_setting = "agent"
    official_settings: tuple[str, ...] = ("agent",)
    labels: tuple[str, ...] = ("family", "subcategory", "difficulty", "instance_id", "literature_split")
    groupings: tuple[Grouping, ...] = (
        Grouping("family", compare=True),
        Grouping("subcategory", markers=False),
        Grouping("literature_split", order=("no", "yes"), markers=False),
    )
    #: Only what scoring the artifact can give: a tool run that fails (a syntax error, a missing
    #: package, an exception, a timeout) is a tool result the agent reads, never the case's verdict.
    failure_categories: tuple[str, ...] = (
        ExecutionCategory.RESPONSE_CONTRACT,
        ExecutionCategory.OUTPUT_FORMAT,
        *TbmathCategory,
    )
    detail: RecordDetail = DETAIL
    #: What the record's returned/expected "objective" is here: the O-Eval score (JUnit, reports).
    objective_label = "O-Eval"

    def __init__(self) -> None:
        self.limits = AgentLimits()
        self.artifacts_dir: Path | None = None
        self.baseline: dict[str, dict[str, Any]] | None = None
        self.baseline_dir: Path | None = None
        self.pass_at = 1.0
        self.wall_from_task = True
        self.scoring = "strict"
        self.missing: dict[str, tuple[str, ...]] = {}  # task id → attachments its copy lacks

    def add_options(self, group: pytest.OptionGroup) -> None:
        group.addoption(
            "--baseline", default=None, help="tbmath: run folder whose scores are the BO-Eval baseline"
        )
        group.addoption(
            "--agent-max-turns", type=int, default=40, help="tbmath: turns per episode (default 40)"
        )
        group.addoption(
            "--agent-wall-s",
            type=float,
            default=None,
            help="tbmath: episode wall time (default: the task's [agent].timeout_sec, else 1 h; paper: 4 h)",
        )
        group.addoption("--agent-max-tokens", type=int, default=2_000_000, help="tbmath: tokens per episode")
        group.addoption("--agent-max-cost", type=float, default=None, help="tbmath: USD per episode")
        group.addoption(
            "--agent-tool-timeout", type=float, default=600.0, help="tbmath: seconds per tool call"
        )
        group.addoption(
            "--pass-o-eval",
            type=float,
            default=1.0,
            help="tbmath: O-Eval at which a case passes when its task has no pass rule (default 1.0)",
        )

    def configure(self, config: pytest.Config) -> None:
        turns, wall = config.getoption("agent_max_turns"), config.getoption("agent_wall_s")
        if turns < 1 or (wall is not None and not wall > 0):
            raise pytest.UsageError("--agent-max-turns must be ≥ 1 and --agent-wall-s > 0")
        self.wall_from_task = wall is None
        # mmopt registers --scoring (strict|official); here "official" runs each task's own verifier
        self.scoring = str(config.getoption("--scoring", default="strict") or "strict")
        self.limits = AgentLimits(
            max_turns=turns,
            wall_s=DEFAULT_WALL_S if wall is None else wall,
            max_total_tokens=config.getoption("agent_max_tokens"),
            max_cost_usd=config.getoption("agent_max_cost"),
            tool_timeout_s=config.getoption("agent_tool_timeout"),
        )
        self.pass_at = float(config.getoption("pass_o_eval"))
        artifacts = config.getoption("artifacts")
        self.artifacts_dir = Path(artifacts) if artifacts else None
        if self.artifacts_dir is not None and not self.artifacts_dir.is_dir():
            raise pytest.UsageError(f"--artifacts {artifacts}: not a directory")
        baseline = config.getoption("baseline")
        self.baseline, self.baseline_dir = None, None
        if baseline:
            self.baseline_dir = Path(baseline)
            self.baseline = load_baseline(self.baseline_dir)

    def model_source(self, config: pytest.Config) -> str | None:
        """``--artifacts DIR`` is the run's model source when no ``--model`` is given."""
        artifacts = config.getoption("artifacts")
        return f"{ARTIFACTS_PREFIX}{artifacts}" if artifacts else None

    def case_steps(self, record: CaseRecord) -> list[dict[str, Any]]:
        """The episode's tool runs for the report's timeline, from the record's agent turns."""
        steps: list[dict[str, Any]] = []
        if not record.extra:  # an error record: no episode was scored
            return steps
        agent = TbmathExtra.read(record.extra).agent
        for number, turn in enumerate(agent.turns if agent else []):
            for action in turn.get("actions", []):
                result = action.get("result")
                if isinstance(result, dict):
                    status = "timed out" if result.get("timed_out") else f"exit {result.get('exit_code')}"
                    said = result.get("error") or result.get("output")
                    result = f"{status}: {said}" if said else status
                steps.append(
                    {
                        "call": number + 1,
                        "tool": action.get("tool"),
                        "input": action.get("input"),
                        "result": result,
                    }
                )
        return steps

    def report_tables(self, records: Sequence[CaseRecord]) -> list[Table]:
        return reporting.report_tables(records)

    def run_info(self) -> dict[str, str]:
        """What the run manifest and summary record: the scoring, and (a warning) every task
        whose copy lacks attachments its files name."""
        missing = "; ".join(f"{task}: {', '.join(files)}" for task, files in sorted(self.missing.items()))
        return {"scoring": self.scoring, "missing_attachments": missing or "none"}

    def default_dataset(self) -> Path:
        return _FIXTURES

    def discover(self, dataset: Path) -> Sequence[InstanceRef]:
        """Every task folder becomes one instance. A task that does not load is still listed
        (labelled ``unloadable``): its case re-reads it and ends as a ``dataset_error`` naming the
        file and field, so one damaged task never costs the others."""
        refs = []
        for root in tasks.discover(dataset):
            try:
                task = tasks.load_task(root)
            except DatasetError:
                family, split = "unloadable", "no"
            else:
                family = str(task.metadata.get("domain") or task.metadata.get("family") or "open_modeling")
                split = "yes" if task.literature_split else "no"
                if task.missing_attachments:
                    self.missing[root.name] = task.missing_attachments
            refs.append(
                InstanceRef(
                    suite=SUITE_NAME,
                    path=(root.name,),
                    labels={
                        "family": _marker(family),
                        "subcategory": root.name,
                        "difficulty": "open",
                        "instance_id": root.name,
                        "literature_split": split,
                    },
                    location=root,
                )
            )
        return refs

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        command = add_command(
            "tbmath-generate", help="rebuild the TB-MathModel tasks' data and panels (or --check)"
        )
        command.add_argument("--check", action="store_true", help="rebuild in a scratch copy and compare")
        command.add_argument("root", nargs="?", default=str(_FIXTURES), help="tasks folder (default: ours)")
        command.set_defaults(
            handler=lambda args: generation.main([*(["--check"] if args.check else []), args.root])
        )
        certify_command = add_command(
            "tbmath-certify", help="gate and certify one artifact: z3 verdict per obligation, Lean 4 source"
        )
        certify_command.add_argument(
            "task", help="the task folder (public layout with tests/feasibility.json)"
        )
        certify_command.add_argument("artifact", help="the JSON artifact to check")
        certify_command.add_argument("--lean", help="write the obligations as a Lean 4 file here")
        certify_command.set_defaults(handler=certify_artifact)

    def hidden_paths(self, dataset: Path) -> tuple[Path, ...]:
        return (dataset,)

    def dataset_fingerprint(self, dataset: Path) -> dict[str, str]:
        digest = hashlib.sha256()
        for path in sorted(p for p in dataset.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(dataset).as_posix().encode())
            digest.update(path.read_bytes())
        manifest = dataset / "manifest.json"
        info = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
        return {
            "name": str(info.get("dataset", dataset.name)),
            "version": str(info.get("version", "unversioned")),
            "sha256": digest.hexdigest(),
        }

    # ------------------------------------------------------------------ evaluation

    def _external_artifact(self, task: tasks.Task) -> bytes | None:
        assert self.artifacts_dir is not None
        for candidate in (
            self.artifacts_dir / f"{task.task_id}.json",
            self.artifacts_dir / task.task_id / task.artifact_path,
        ):
            if candidate.is_file():
                return candidate.read_bytes()
        return None

    def solve(self, case: Case, context: CaseContext) -> Attempt:
        """The agent's episode (or the answer file), the artifact it left at the task's path and,
        under ``--scoring=official``, the task's verifier's run on it: the attempt's ``data`` holds
        the episode's transcript (``agent``), the artifact's bytes (``artifact_base64``) and the
        run's choices that scoring reads (scoring mode, pass mark, this task's baseline scores)."""
        if case.setting not in self.settings:
            raise ValueError(
                f"tbmath has no setting {case.setting!r}; choose from {', '.join(self.settings)}"
            )
        task = tasks.load_task(case.instance.location)
        limits = self.limits
        if self.wall_from_task and task.timeouts.agent_s is not None:
            limits = dataclasses.replace(limits, wall_s=task.timeouts.agent_s)
        data: dict[str, Any] = {
            "agent_limits": limits.as_dict(),
            "scoring": self.scoring,
            "pass_at": self.pass_at,
            "baseline_given": self.baseline is not None,
            "baseline": None if self.baseline is None else self.baseline.get(task.task_id),
        }
        if self.artifacts_dir is not None:
            raw = self._external_artifact(task)
            data["source"] = f"--artifacts {self.artifacts_dir}"
        else:

            def oracle_turn(number: int) -> str:
                if number == 0:
                    return f"```python\n{oracle_program(task)}\n```"
                return "The artifact is written."

            episode = run_episode(task, context, limits, oracle_turn=oracle_turn)
            data["agent"] = episode.as_record()
            assert episode.workspace is not None
            raw = episode.workspace.read(task.artifact_path)
            data["source"] = "agent"
        data["artifact_base64"] = None if raw is None else base64.b64encode(raw).decode("ascii")
        if self.scoring == "official":
            sandbox, _note = agent_sandbox(context.sandbox)
            data["official"] = run_official(task, raw, sandbox).as_record()
        return Attempt(data=data)

    def score(self, case: Case, attempt: Attempt) -> Verdict:
        """The metric panel, gate and certificate (or the official verifier's reward) of the
        attempt's artifact."""
        task = tasks.load_task(case.instance.location)
        data = TbmathAttemptData.read(attempt.data)
        extra: dict[str, Any] = {
            "artifact_path": task.artifact_path,
            "literature_split": task.literature_split,
            "agent_limits": data.agent_limits,
            "scoring": data.scoring,
            "task_flags": task_flags(task),
        }
        if task.config_format != "oriented":
            # a release config: each metric as declared, with where its orientation came from
            extra["declared_metrics"] = [m.as_record() for m in task.declared_metrics]
        if data.agent is not None:
            extra["agent"] = data.agent
        extra["source"] = data.source
        encoded = data.artifact_base64
        raw = None if encoded is None else base64.b64decode(encoded)
        if data.scoring == "official":
            assert data.official is not None, "solving under official scoring runs the verifier"
            return official_verdict(task, raw, data.official, extra, data.pass_at)
        baseline = None
        if data.baseline_given:
            baseline = {} if data.baseline is None else {task.task_id: data.baseline}
        return score_artifact(task, raw, extra, baseline, data.pass_at)

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        """The agent's first turn as :meth:`solve` sends it; none when answers are read from files."""
        if self.artifacts_dir is not None or case.setting not in self.settings:
            return None
        return turn_request(case, first_messages(tasks.load_task(case.instance.location)), 0, max_tokens)


def official_verdict(
    task: tasks.Task, raw: bytes | None, result: Mapping[str, Any], extra: dict[str, Any], pass_at: float
) -> Verdict:
    """The case's verdict under ``--scoring=official`` from the verifier's result (its
    ``OfficialResult.as_record``): the reward is the score; a failed structural check is an
    output-format failure, a reward below ``pass_at`` a wrong one."""
    extra["official"] = dict(result)
    reward, checks_passed = float(result["reward"]), bool(result["checks_passed"])
    common: dict[str, Any] = {
        "artifact": {} if raw is None else {task.artifact_path: raw.decode("utf-8", "replace")},
        "valid_code": raw is not None and checks_passed,
        "expected_objective": 1.0,
        "returned_objective": reward,
        "scores": {"official_reward": reward},
        "extra": extra,
    }
    if raw is None:
        return Verdict.fail(
            ExecutionCategory.RESPONSE_CONTRACT, f"no artifact at {task.artifact_path}", **common
        )
    if not checks_passed:
        failed = [c["name"] for c in result["checks"] if c["status"] != "passed"]
        detail = f"{tasks.OFFICIAL_CHECKS} failed: {', '.join(failed) or 'see the verifier output'}"
        return Verdict.fail(ExecutionCategory.OUTPUT_FORMAT, detail, **common)
    if reward >= pass_at:
        return Verdict(passed=True, **common)
    return Verdict.fail(
        TbmathCategory.WRONG_OBJECTIVE, f"official reward {reward:.6g} < {pass_at:g}", **common
    )


def task_flags(task: tasks.Task) -> dict[str, Any]:
    """What a reader of the record and the summary must know about the task itself: whether a
    feasibility gate and a reference panel exist, the config's format, metrics the release leaves
    unscored, orientations the default scoring had to infer, attachments the copy lacks."""
    return {
        "gate": "gated" if task.feasibility is not None else "ungated",
        "references": (f"panel of {len(task.references)}" if len(task.references) > 1 else "single anchor"),
        "config_format": task.config_format,
        "unscored_metrics": {m.path: m.unscored for m in task.declared_metrics if m.unscored},
        "inferred_orientation": len(task.inferred_orientation),
        "missing_attachments": list(task.missing_attachments),
        "environment_differences": list(environment_differences(task.root)),
        "resources": task.resources.as_record(),
        "network": "none, though task.toml allows internet" if task.resources.allow_internet else "none",
    }


def certify_artifact(args: argparse.Namespace) -> int:
    """``python -m benchmark tbmath-certify TASK ARTIFACT [--lean FILE]``: 0 when certified."""
    task = tasks.load_task(Path(args.task).resolve())
    if task.feasibility is None:
        print(f"{task.root}: the task declares no feasibility checks")
        return 2
    artifact = json.loads(Path(args.artifact).read_text(encoding="utf-8"))
    gate = run_gate(task.feasibility, artifact, task.root)
    certificate = certify(gate.obligations, gate.gaps)
    for discharge in certificate.discharges:
        status = "proved" if discharge.proved else "REFUTED"
        print(f"{status:8s} {discharge.obligation.obligation_id}: {discharge.obligation.statement}")
    for gap in certificate.gaps:
        print(f"GAP      {gap.check_id} at {gap.path}: {gap.reason}")
    if args.lean:
        Path(args.lean).write_text(lean_source(task.task_id, gate.obligations, gate.gaps), encoding="utf-8")
    print(
        f"{certificate.status}: {certificate.proved}/{len(certificate.discharges)} proved, "
        f"{len(gate.gaps)} gap(s)"
    )
    return 0 if certificate.status == "certified" else 1


def load_baseline(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Per task id, the baseline's panel raw and multi-reference score (first sample that has them)."""
    path = run_dir / RESULTS_FILE
    if not path.is_file():
        raise pytest.UsageError(f"--baseline {run_dir}: no {RESULTS_FILE} in that folder")
    out: dict[str, dict[str, Any]] = {}
    for record in sorted(latest_by_case(read_records(path)).values(), key=lambda r: r.sample):
        if record.suite != SUITE_NAME:
            continue
        scores = TbmathScores.read(record.scores)
        if scores.multi_o_eval is None:
            continue
        out.setdefault(str(record.label("instance_id")), {"raw": scores.gated_raw, **record.scores})
    if not out:
        raise pytest.UsageError(f"--baseline {run_dir}: no scored tbmath record in {RESULTS_FILE}")
    return out


def score_artifact(
    task: tasks.Task,
    raw: bytes | None,
    extra: dict[str, Any],
    baseline: Mapping[str, Mapping[str, Any]] | None,
    pass_at: float,
) -> Verdict:
    """Score one artifact (bytes as found at the required path, or None when absent)."""
    oracle_raw = 1.0
    scores: dict[str, float] = {"o_eval": 0.0, "multi_o_eval": 0.0}
    artifact: Any = None
    category: str | None = None
    detail = ""
    if raw is None:
        category, detail = ExecutionCategory.RESPONSE_CONTRACT, f"no artifact at {task.artifact_path}"
    else:
        try:
            artifact = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            category, detail = (
                ExecutionCategory.OUTPUT_FORMAT,
                f"{task.artifact_path} is not valid JSON ({exc})",
            )
        except RecursionError:
            artifact = None
            category, detail = (
                ExecutionCategory.OUTPUT_FORMAT,
                f"{task.artifact_path} is nested too deeply to read",
            )
        else:
            if not isinstance(artifact, dict):
                category, detail = (
                    ExecutionCategory.OUTPUT_FORMAT,
                    f"{task.artifact_path} must hold a JSON object",
                )
            elif nesting_depth(artifact) > MAX_ARTIFACT_DEPTH:
                category = ExecutionCategory.OUTPUT_FORMAT
                detail = f"{task.artifact_path} is nested more than {MAX_ARTIFACT_DEPTH} levels deep"
                artifact = None
    extra["artifact"] = artifact
    gated = False
    verified: set[str] | None = None
    rule = pass_rule.load(task.root, task.metrics)
    if category is None:
        if task.schema is not None:
            extra["schema_violations"] = tasks.schema_violations(task.schema, artifact)[:50]
        if task.feasibility is None:
            extra["gate"] = {"passed": None, "note": "this task declares no feasibility checks (ungated)"}
        else:
            try:
                gate = run_gate(task.feasibility, artifact, task.root)
            except CheckError as exc:
                raise DatasetError(task.root / tasks.FEASIBILITY_FILE, str(exc)) from None
            extra["gate"] = gate.as_record()
            if any(check.get("form") == "recompute" for check in task.feasibility):
                verified = gate.verified
            extra["certificate"] = certify(gate.obligations, gate.gaps).as_record()
            if not gate.passed:
                gated = True
                category = TbmathCategory.INFEASIBLE_SOLUTION
                detail = "feasibility gate: " + "; ".join(
                    f"{v.check_id} ({v.path}): {v.message}" for v in gate.violations[:5]
                )
        panel = panel_raw(artifact, task.metrics, verified=verified)
        extra["panel"] = panel.as_record()
        extra["excluded_metrics"] = {m.path: m.excluded for m in task.metrics if m.excluded}
        references = multi_reference_o_eval(
            artifact, task.metrics, task.references, oracle_raw, verified=verified
        )
        extra["references"] = references.as_record()
        if not gated and panel.raw is not None:
            scores["raw"] = panel.raw
            scores["o_eval"] = o_eval(panel.raw, oracle_raw)
            scores["multi_o_eval"] = references.score
    scores["gated_raw"] = scores.get("raw", 0.0)
    artifact_ok = (
        category not in (ExecutionCategory.RESPONSE_CONTRACT, ExecutionCategory.OUTPUT_FORMAT) and not gated
    )
    if baseline is not None:
        base = baseline.get(task.task_id)
        if base is None:
            extra["baseline_note"] = "the baseline run has no scored record of this task"
        else:
            raw_score = scores.get("raw") if artifact_ok else None
            scores["robust_bo_eval"] = robust_bo_eval(
                raw_score, float(base.get("gated_raw") or 0.0), oracle_raw
            )
            multi = scores["multi_o_eval"] if artifact_ok else None
            scores["multi_bo"] = multi_bo(multi, float(base.get("multi_o_eval") or 0.0))
    tool_outputs = [
        str(action["result"].get("output", ""))
        if isinstance(action.get("result"), dict)
        else str(action["result"])
        for turn in (extra.get("agent") or {}).get("turns", [])
        for action in turn["actions"]
    ]
    common: dict[str, Any] = {
        "artifact": {} if raw is None else {task.artifact_path: raw.decode("utf-8", "replace")},
        "output": {"stdout": "\n".join(tool_outputs)} if tool_outputs else {},
        "valid_code": artifact_ok,
        "expected_objective": 1.0,
        "returned_objective": scores["o_eval"],
        "scores": scores,
        "extra": extra,
    }
    if category is not None:
        return Verdict.fail(category, detail, **common)
    if rule is not None:
        extra["pass_rule"] = rule.as_record()
        failures = rule.failures(artifact, verified or set())
        extra["pass_rule"]["failures"] = failures
        if not failures:
            return Verdict(passed=True, **common)
        kind = TbmathCategory.WRONG_OBJECTIVE
        return Verdict.fail(kind, f"pass rule ({rule.kind}): " + "; ".join(failures[:5]), **common)
    if scores["o_eval"] >= pass_at:
        return Verdict(passed=True, **common)
    worst = sorted(extra["panel"]["metrics"], key=lambda m: m["reward"])[:3]
    detail = f"O-Eval {scores['o_eval']:.4f} < {pass_at:g}; lowest rewards: " + ", ".join(
        f"{m['path']}={m['reward']:.3f}" + (f" ({m['reason']})" if m["reason"] else "") for m in worst
    )
    return Verdict.fail(TbmathCategory.WRONG_OBJECTIVE, detail, **common)


#: Annotated with the protocol, so the type checker proves that the suite provides every hook.
SUITE: Suite = TbMathSuite()
