"""Does ``--scoring=official`` reproduce the TB-MathModel release's own verdicts?

For every task of a copy of the public release (``TASKS``, its ``tasks/`` folder) this writes
artifacts that exercise the verifier: the task's ``tests/expected_result.json`` (the oracle) and six
mutants of it (a scored field removed, every number as a string, the first five scored values past
the outstanding endpoint, a NaN, a boolean, the first top-level section dropped). Each artifact is
scored twice:

* directly: the task's ``tests/test.sh`` itself, unmodified, in a bubblewrap container of this
  script's own (``/tests``, ``/root/results`` and ``/logs`` bound to a scratch folder, the agent
  stack's ``.venv-agent`` first on ``PATH``), reading ``/logs/verifier/reward.txt``;
* through the harness: ``pytest --dataset tbmath:TASKS --artifacts DIR --scoring=official``, and
  for comparison the default (paper) scoring, reading ``results.jsonl``.

It prints the largest difference between the direct and the harness reward (the claim is 0 to
1e-9) and how often the default scoring agrees with the official one. Needs bwrap and
``scripts/setup.sh``'s ``.venv-agent``. Usage::

    .venv/bin/python scripts/tbmath_release_parity.py TASKS [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
AGENT_VENV = REPO / ".venv-agent"
sys.path.insert(0, str(REPO))

from benchmark.records import read_records  # noqa: E402
from benchmark.suites.tbmath.detail import TbmathScores  # noqa: E402


def _tokens(path: str) -> list[str]:
    return path.replace("]", "").replace("[", ".").split(".")


def _replace(data: Any, path: str, change: Callable[[Any], Any] | None) -> bool:
    """Set (or with None, delete) the leaf at ``path``; False when the artifact has no such leaf."""
    node = data
    tokens = _tokens(path)
    try:
        for token in tokens[:-1]:
            node = node[int(token)] if isinstance(node, list) else node[token]
        key: Any = int(tokens[-1]) if isinstance(node, list) else tokens[-1]
        if change is None:
            del node[key]
        else:
            node[key] = change(node[key])
    except (KeyError, IndexError, TypeError, ValueError):
        return False
    return True


def _numbers_as_strings(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _numbers_as_strings(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_numbers_as_strings(value) for value in node]
    if isinstance(node, int | float) and not isinstance(node, bool):
        return str(node)
    return node


def artifacts(task: Path) -> dict[str, Any]:
    """The oracle artifact and its mutants, by name (a mutant whose path is absent is left out)."""
    expected = json.loads((task / "tests" / "expected_result.json").read_text(encoding="utf-8"))
    config = json.loads((task / "tests" / "score_config.json").read_text(encoding="utf-8"))
    scored = [m for m in config["metrics"] if float(m.get("score_weight", m.get("weight", 1.0))) > 0]
    out: dict[str, Any] = {"oracle": expected, "numeric_strings": _numbers_as_strings(expected)}
    for name, path, change in (
        ("missing_key", scored[0]["path"], None),
        ("nonfinite", scored[0]["path"], lambda _v: float("nan")),
        ("boolean", scored[-1]["path"], lambda _v: True),
    ):
        mutant = copy.deepcopy(expected)
        if _replace(mutant, path, change):
            out[name] = mutant
    overshoot = copy.deepcopy(expected)
    for metric in scored[:5]:
        anchor = float(metric["oracle_value"])
        baseline = metric.get("baseline_value")
        step = 1.5 * (anchor - float(baseline)) if baseline not in (None, anchor) else 0.5 * abs(anchor) + 1
        _replace(overshoot, metric["path"], lambda _v, target=anchor + step: target)
    out["overshoot"] = overshoot
    dropped = copy.deepcopy(expected)
    dropped.pop(next(iter(dropped)))
    out["dropped_section"] = dropped
    return out


def _python_home() -> Path:
    for line in (AGENT_VENV / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home":
            return Path(value.strip()).resolve().parent
    raise SystemExit(f"{AGENT_VENV}/pyvenv.cfg names no home: run scripts/setup.sh")


def direct_reward(task: Path, artifact_text: str) -> float:
    """The reward the task's own test.sh writes for this artifact, in a container of our own."""
    toml = (task / "task.toml").read_text(encoding="utf-8")
    artifact_path = next(line for line in toml.splitlines() if line.startswith("artifacts")).split('"')[1]
    with tempfile.TemporaryDirectory(prefix="tbmath-direct-") as scratch:
        work = Path(scratch)
        shutil.copytree(task / "tests", work / "tests")
        (work / "results").mkdir()
        (work / "logs" / "verifier").mkdir(parents=True)
        (work / "results" / Path(artifact_path).name).write_text(artifact_text, encoding="utf-8")
        argv = ["bwrap", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        for name in ("/bin", "/lib", "/lib64", "/sbin"):
            link = Path(name)
            if link.is_symlink():
                argv += ["--symlink", str(link.readlink()), name]
            elif link.is_dir():
                argv += ["--ro-bind", name, name]
        home = str(_python_home())
        argv += [
            "--ro-bind", home, home, "--ro-bind", str(AGENT_VENV), str(AGENT_VENV),
            "--bind", str(work / "tests"), "/tests", "--bind", str(work / "results"), "/root/results",
            "--bind", str(work / "logs"), "/logs", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--chdir", "/", "--unshare-all", "--die-with-parent", "--clearenv",
            "--setenv", "PATH", f"{AGENT_VENV}/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
            "bash", "/tests/test.sh",
        ]  # fmt: skip
        subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        return float((work / "logs" / "verifier" / "reward.txt").read_text(encoding="utf-8").strip())


def harness_scores(tasks_dir: Path, folder: Path, scoring: str, run_dir: Path) -> dict[str, Any]:
    """Per task id, the harness's score of ``folder/<task>.json`` under ``scoring``."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2",
               f"--dataset=tbmath:{tasks_dir}", f"--artifacts={folder}", f"--scoring={scoring}",
               f"--report-dir={run_dir}", f"--cache-dir={run_dir.parent / 'cache'}"]  # fmt: skip
    subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    out: dict[str, Any] = {}
    for record in read_records(run_dir / "results.jsonl"):
        scores = TbmathScores.read(record.scores)
        score = scores.official_reward if scoring == "official" else scores.o_eval
        out[str(record.label("instance_id"))] = record.category if score is None else score
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", type=Path, help="the release's tasks/ folder")
    parser.add_argument("--out", type=Path, default=None, help="keep artifacts and runs here")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="tbmath-parity-"))
    tasks = sorted(p.parent for p in args.tasks.resolve().rglob("task.toml"))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for task in tasks:
        for kind, artifact in artifacts(task).items():
            text = json.dumps(artifact)
            (out / kind).mkdir(parents=True, exist_ok=True)
            (out / kind / f"{task.name}.json").write_text(text, encoding="utf-8")
            rows[(task.name, kind)] = {"direct": direct_reward(task, text)}
    for kind in sorted({kind for _, kind in rows}):
        for scoring in ("official", "strict"):
            scores = harness_scores(args.tasks.resolve(), out / kind, scoring, out / f"run-{kind}-{scoring}")
            for task_id, value in scores.items():
                if (task_id, kind) in rows:
                    rows[(task_id, kind)][scoring] = value
    numeric = [r for r in rows.values() if isinstance(r.get("official"), float)]
    worst = max((abs(r["official"] - r["direct"]) for r in numeric), default=float("nan"))
    same_score = sum(1 for r in rows.values() if abs(float(r.get("strict") or 0.0) - r["direct"]) <= 1e-9)
    same_pass = sum(
        1 for r in rows.values() if (float(r.get("strict") or 0.0) >= 1.0) == (r["direct"] >= 1.0)
    )
    print(f"{len(tasks)} tasks, {len(rows)} artifacts; official scored {len(numeric)}")
    print(f"max |harness official - direct test.sh| = {worst:.3g}")
    print(
        f"default scoring equal to the official reward: {same_score}/{len(rows)}; same pass/fail: {same_pass}"
    )
    for kind in sorted({kind for _, kind in rows}):
        group = [r for (_, k), r in rows.items() if k == kind]
        official = sum(r["direct"] for r in group) / len(group)
        mean = sum(float(r.get("strict") or 0.0) for r in group) / len(group)
        print(f"  {kind:16s} {len(group):2d} tasks  mean official {official:.4f}  mean default {mean:.4f}")
    (out / "parity.json").write_text(
        json.dumps({f"{t}/{k}": r for (t, k), r in sorted(rows.items())}, indent=1), encoding="utf-8"
    )
    print(f"details: {out / 'parity.json'}")
    return 0 if numeric and worst <= 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
