"""The documented engines run the harness's commands: the GitHub Actions example
(docs/ci/benchmark-shards.yml: a shard matrix, artifacts, a merge job with the gate), the Kubernetes
Indexed Job and the Slurm array of docs/scale.md (``--shard auto``), and every command line of
docs/scale.md and docs/contamination.md."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmark.cli import build_parser
from tests.conftest import REPO

WORKFLOW = REPO / "docs" / "ci" / "benchmark-shards.yml"


def _commands() -> list[tuple[str, list[str]]]:
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    found = []
    for name, job in jobs.items():
        for step in job["steps"]:
            if "run" in step:
                text = re.sub(r"\$\{\{\s*[\w.]+\s*\}\}", "X", step["run"])  # expressions → a value
                found.append((name, shlex.split(text)))
    return found


def test_the_workflow_shards_uploads_merges_and_gates() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    matrix = shard["strategy"]["matrix"]["shard"]
    assert matrix == list(range(1, len(matrix) + 1))
    assert merge["needs"] == "shard"
    uses = [step.get("uses", "") for job in (shard, merge) for step in job["steps"]]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert any(u.startswith("actions/download-artifact") for u in uses)
    merge_line = next(cmd for job, cmd in _commands() if job == "merge" and "merge" in cmd)
    shards = [arg for arg in merge_line if arg.startswith("runs/shard-")]
    assert len(shards) == len(matrix), "the merge job must name every shard of the matrix"
    assert "--gate" in merge_line and "--gate-baseline" in merge_line


def test_every_benchmark_command_of_the_workflow_parses() -> None:
    commands = [cmd for _, cmd in _commands() if cmd[0] == ".venv/bin/python"]
    assert commands
    pytest_help = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    for command in commands:
        if command[1:3] == ["-m", "benchmark"]:
            build_parser().parse_args(command[3:])  # exits (SystemExit) on an unknown option
        elif command[1:3] == ["-m", "pytest"]:
            for arg in command[3:]:
                if arg.startswith("--"):
                    assert re.search(rf"^\s+{re.escape(arg.split('=', 1)[0])}\b", pytest_help, re.M), arg
        else:
            pytest.fail(f"unexpected command {command}")
    for _, command in _commands():
        if command[0] == "sudo":
            assert (REPO / command[2]).exists()


# ---------------------------------------------------------------------------------------------------
# Kubernetes and Slurm (docs/scale.md): the manifests agree with themselves, and every shard command
# line, run with the engine's variables set, selects its share of the cases

CI = REPO / "docs" / "ci"
K8S_SHARDS, K8S_MERGE = CI / "kubernetes-shards.yaml", CI / "kubernetes-merge.yaml"
SLURM_ARRAY, SLURM_MERGE = CI / "slurm-array.sh", CI / "slurm-merge.sh"
#: Listing instead of running: the documented command lines are run as written, plus these.
LISTING = f"-p no:cacheprovider --collect-only -q --models-file={REPO / 'models.example.toml'}"


def _container(path: Path) -> dict[str, Any]:
    (container,) = yaml.safe_load(path.read_text())["spec"]["template"]["spec"]["containers"]
    return container


def _listed(done: subprocess.CompletedProcess[str]) -> set[str]:
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::test_case[" in line}


def _all_cases() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *shlex.split(LISTING), "--model=claude"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return _listed(done)


def _clean_env(**extra: str) -> dict[str, str]:
    engine = ("JOB_COMPLETION_INDEX", "JOB_COMPLETIONS", "PYTEST_XDIST_WORKER")
    env = {k: v for k, v in os.environ.items() if k not in engine and not k.startswith("SLURM_")}
    return {**env, "PYTEST_ADDOPTS": LISTING, **extra}


def test_the_kubernetes_jobs_agree_on_the_shards_and_the_volume() -> None:
    job = yaml.safe_load(K8S_SHARDS.read_text())
    spec = job["spec"]
    assert (job["kind"], spec["completionMode"]) == ("Job", "Indexed")
    assert spec["parallelism"] == spec["completions"]
    env = {e["name"]: e.get("value") for e in _container(K8S_SHARDS)["env"]}
    assert env["JOB_COMPLETIONS"] == str(spec["completions"]), "JOB_COMPLETIONS must equal spec.completions"
    script = _container(K8S_SHARDS)["command"][-1]
    assert (
        "--shard auto" in script
        and "--report-dir=/results/runs/shard-$((JOB_COMPLETION_INDEX + 1))" in script
    )
    merge = _container(K8S_MERGE)["command"]
    assert merge[:4] == [".venv/bin/python", "-m", "benchmark", "merge"]
    build_parser().parse_args(merge[3:])
    shards = [arg for arg in merge if "/shard-" in arg]
    assert shards == [f"/results/runs/shard-{i}" for i in range(1, spec["completions"] + 1)]
    claims = {
        yaml.safe_load(path.read_text())["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"][
            "claimName"
        ]
        for path in (K8S_SHARDS, K8S_MERGE)
    }
    assert claims == {"optbench-results"}


def test_the_slurm_scripts_agree_on_the_shards() -> None:
    array = re.search(r"^#SBATCH --array=(\d+)-(\d+)$", SLURM_ARRAY.read_text(), re.M)
    assert array is not None
    count = int(array.group(2)) - int(array.group(1)) + 1
    merge_line = next(line for line in SLURM_MERGE.read_text().splitlines() if "benchmark merge" in line)
    words = shlex.split(merge_line)
    build_parser().parse_args(words[3:])
    assert [w for w in words if w.startswith("runs/shard-")] == [
        f"runs/shard-{i}" for i in range(1, count + 1)
    ]


@pytest.mark.slow
def test_every_kubernetes_pod_and_slurm_task_selects_its_share_once() -> None:
    everything = _all_cases()
    assert len(everything) == 780
    spec = yaml.safe_load(K8S_SHARDS.read_text())["spec"]
    script = _container(K8S_SHARDS)["command"][-1]
    engines: dict[str, list[dict[str, str]]] = {
        "kubernetes": [
            {"JOB_COMPLETION_INDEX": str(i), "JOB_COMPLETIONS": str(spec["completions"])}
            for i in range(spec["completions"])
        ],
        "slurm": [
            {"SLURM_ARRAY_TASK_ID": str(i), "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
             "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_SUBMIT_DIR": str(REPO)}
            for i in range(4)
        ],
    }  # fmt: skip
    for engine, tasks in engines.items():
        shares = []
        for task in tasks:
            command = ["sh", "-c", script] if engine == "kubernetes" else ["bash", str(SLURM_ARRAY)]
            done = subprocess.run(
                command, cwd=REPO, capture_output=True, text=True, timeout=300, env=_clean_env(**task)
            )
            shares.append(_listed(done))
        assert [len(s) for s in shares] == [195] * 4, engine
        assert set().union(*shares) == everything and sum(map(len, shares)) == len(everything), engine


def _doc_commands(path: Path) -> list[str]:
    text = path.read_text()
    return [
        line for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines() if line
    ]


DOC_LINES = [
    *(line for doc in ("scale.md", "contamination.md") for line in _doc_commands(REPO / "docs" / doc)),
    *(line for line in _doc_commands(REPO / "README.md") if line.startswith("python -m benchmark")),
]


@pytest.fixture(scope="module")
def heldout_split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small split in place of the recipe's ``splits/heldout`` (one subcategory, one per difficulty)."""
    from benchmark.suites.mmopt.generation import generate_dataset
    from benchmark.suites.mmopt.generation.split import Split

    root = tmp_path_factory.mktemp("splits") / "heldout"
    generate_dataset(root, ("bipartite_assignment",), per_difficulty=1, split=Split("heldout", 1))
    return root


@pytest.mark.parametrize("line", DOC_LINES)
def test_each_command_line_of_the_scale_and_contamination_docs_runs_as_written(
    line: str, request: pytest.FixtureRequest
) -> None:
    """docs/scale.md's and docs/contamination.md's lines, and the README's ``python -m benchmark``
    lines (its pytest lines are run by tests/test_pytest_behaviour.py)."""
    words = shlex.split(line, comments=True)
    env = {}
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if words[:2] == ["kubectl", "wait"]:
        assert "job/optbench-shards" in words  # the Job of docs/ci/kubernetes-shards.yaml
    elif words[0].startswith("jobid=$(") or words[0] in ("docker", "kubectl", "sbatch"):
        files = [
            w.split("=")[-1].rstrip(")") for w in words if re.search(r"\.(ya?ml|sh|toml)\)?$|Dockerfile", w)
        ]
        assert files, line
        for name in files:
            assert (REPO / name).exists(), f"{line}: {name} is not in the repository"
    elif words[:3] == ["python", "-m", "benchmark"]:
        build_parser().parse_args(words[3:])  # exits (SystemExit) on an unknown option
    elif words[0] == ".venv/bin/pytest":
        if "--dataset=splits/heldout" in words:
            split = request.getfixturevalue("heldout_split")
            words = [f"--dataset={split}" if w == "--dataset=splits/heldout" else w for w in words]
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *words[1:]],
            cwd=REPO, capture_output=True, text=True, timeout=300, env=_clean_env(**env),
        )  # fmt: skip
        assert _listed(done), done.stdout[-2000:]
    else:
        pytest.fail(f"unexpected command line {line!r}")
