"""Loading instance packages: the shipped layout, an official-style root without a manifest, and
damaged packages that must be reported with their path, never silently used or dropped."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from benchmark.suites.mmopt.package import SETTING_FILES, dataset_files, discover, fingerprint, load_package
from benchmark.verdict import DatasetError
from tests.conftest import FIXTURES

EASY_MF = Path("network_optimization/maximum_flow/easy")


def _copy_packages(tmp_path: Path, count: int = 3) -> Path:
    """A dataset root in the official layout (no manifest) holding a few shipped packages."""
    root = tmp_path / "dataset"
    for source in sorted((FIXTURES / EASY_MF).iterdir())[:count]:
        shutil.copytree(source, root / EASY_MF / source.name)
    return root


def test_shipped_manifest_lists_every_package() -> None:
    refs = discover(FIXTURES)
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    listed = [entry["path"] for entry in manifest["packages"]]
    assert [r.location.relative_to(FIXTURES).as_posix() for r in refs] == listed
    assert refs == sorted(refs, key=lambda r: r.path)
    assert {"maximum_flow", "minimum_cost_flow"} <= {r.labels["subcategory"] for r in refs}
    package = load_package(refs[0])
    assert package.visuals[0].name == "visual_0.png" and package.expected_objective is not None


def test_root_without_manifest_is_walked(tmp_path: Path) -> None:
    root = _copy_packages(tmp_path)
    refs = discover(root)
    assert [r.path[-1] for r in refs] == ["mf_e_001", "mf_e_002", "mf_e_003"]
    assert refs[0].labels == {
        "family": "network_optimization",
        "subcategory": "maximum_flow",
        "difficulty": "easy",
        "instance_id": "mf_e_001",
    }


def _damage_missing_file(directory: Path) -> str:
    (directory / "ground_truth/math_model.md").unlink()
    return "ground_truth/math_model.md: file is missing"


def _damage_bad_json(directory: Path) -> str:
    (directory / "ground_truth/instance_data.json").write_text("{not json")
    return "instance_data.json: not valid JSON"


def _damage_checksum(directory: Path) -> str:
    path = directory / "task_input.txt"
    path.write_text(path.read_text() + "\nAn extra sentence.\n")
    return "task_input.txt: checksum mismatch"


def _damage_missing_visual(directory: Path) -> str:
    meta = json.loads((directory / "meta.json").read_text())
    meta["checksums"] = {k: v for k, v in meta["checksums"].items() if not k.startswith("visuals/")}
    (directory / "meta.json").write_text(json.dumps(meta))
    shutil.rmtree(directory / "visuals")
    return "visuals/visual_0.png: file is missing"


def _damage_no_objective(directory: Path) -> str:
    path = directory / "ground_truth/solution_ref.json"
    solution = json.loads(path.read_text())
    for key in ("objective_value", "objective_exact", "objective"):  # every key an optimum is read from
        solution.pop(key, None)
    path.write_text(json.dumps(solution))
    meta = json.loads((directory / "meta.json").read_text())
    meta["checksums"]["ground_truth/solution_ref.json"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (directory / "meta.json").write_text(json.dumps(meta))
    return "solution_ref.json: no numeric 'objective_value'"


@pytest.mark.parametrize(
    "damage",
    [_damage_missing_file, _damage_bad_json, _damage_checksum, _damage_missing_visual, _damage_no_objective],
)
def test_damage_is_reported_with_the_file(tmp_path: Path, damage) -> None:
    root = _copy_packages(tmp_path, 1)
    ref = discover(root)[0]
    message = damage(ref.location)
    with pytest.raises(DatasetError) as caught:
        load_package(ref)
    text = str(caught.value)
    assert str(ref.location) in text
    file_part, problem = message.split(": ", 1)
    assert file_part in text and problem in text


def test_every_missing_needed_file_is_listed_at_once(tmp_path: Path) -> None:
    root = _copy_packages(tmp_path, 1)
    ref = discover(root)[0]
    for rel in ("task_input.txt", "ground_truth/solution_ref.json", "ground_truth/solver_ref.py"):
        (ref.location / rel).unlink()
    shutil.rmtree(ref.location / "visuals")
    with pytest.raises(DatasetError) as caught:
        load_package(ref, SETTING_FILES["stage1"])
    problem = caught.value.problem
    assert problem.startswith("3 needed files are missing: ")
    listed = problem.split(": ", 1)[1].split(", ")
    # solver_ref.py is not needed to show or score a Stage-1 case, so it is not listed
    assert listed == ["task_input.txt", "visuals/visual_0.png", "ground_truth/solution_ref.json"]


def test_a_case_loads_only_what_its_setting_uses(tmp_path: Path) -> None:
    root = _copy_packages(tmp_path, 1)
    ref = discover(root)[0]
    for rel in ("canonical_specification.txt", "ground_truth/math_model.md", "ground_truth/solver_ref.py"):
        (ref.location / rel).unlink()
    (ref.location / "meta.json").unlink()
    package = load_package(ref, SETTING_FILES["stage1"])
    assert package.solver_ref == "" and package.meta == {} and package.task_text
    shutil.rmtree(ref.location / "visuals")
    assert load_package(ref, SETTING_FILES["oracle_reading"]).visuals == ()
    with pytest.raises(DatasetError, match=r"visuals/visual_0\.png"):
        load_package(ref, SETTING_FILES["stage1"])


def test_missing_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        discover(tmp_path / "nowhere")


@pytest.mark.slow
def test_damaged_packages_are_errors_and_the_rest_still_run(bench, tmp_path: Path) -> None:
    root = _copy_packages(tmp_path, 3)
    refs = discover(root)
    _damage_checksum(refs[1].location)
    solver = (
        refs[2].location / "ground_truth/solver_ref.py"
    )  # an official-style reference reading its package
    solver.write_text("import json\n\ndef solve():\n    return json.load(open('instance_data.json'))\n")
    meta_path = refs[2].location / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["checksums"]["ground_truth/solver_ref.py"] = hashlib.sha256(solver.read_bytes()).hexdigest()
    meta_path.write_text(json.dumps(meta))

    run = bench("--model=oracle", f"--dataset={root}")
    outcomes = {r["case"].split("/")[4]: (r["outcome"], r["category"]) for r in run.records}
    assert outcomes == {
        "mf_e_001": ("passed", None),
        "mf_e_002": ("error", "dataset_error"),
        "mf_e_003": ("passed", None),  # answered with its solution_ref.json, and said so
    }
    assert "2 passed" in run.output and "1 error" in run.output
    assert "task_input.txt: checksum mismatch" in run.output
    noted = next(r for r in run.records if "mf_e_003" in r["case"])["extra"]["oracle_answer"]
    assert noted.startswith("solution_ref.json replayed, no solver tested (the reference solver reads files")
    assert run.summary["counts"]["infrastructure_errors"] == 1 and run.summary["metrics"]["pass@1"] == 1.0


def _official_copy(tmp_path: Path, name: str = "release") -> Path:
    """A copy of the shipped official sample: packages with no checksums, some with no meta.json."""
    root = tmp_path / name / "dataset"
    shutil.copytree(Path(__file__).parent / "data" / "official_mmopt", root)
    return root


def test_the_dataset_hash_covers_every_file_of_every_package(tmp_path: Path) -> None:
    root = _official_copy(tmp_path)
    before = fingerprint(root)
    assert fingerprint(_official_copy(tmp_path, "elsewhere")) == before  # same files, same identity
    # a release package without meta.json: its data files are hashed all the same
    package = next(ref.location for ref in discover(root) if not (ref.location / "meta.json").exists())
    files = {path.relative_to(root).as_posix() for path in dataset_files(root)}
    assert f"{package.relative_to(root).as_posix()}/ground_truth/instance_data.json" in files
    packages = len(discover(root))
    assert before["hashed"].startswith(f"{len(files)} files: every file of the {packages} packages")
    (package / ".DS_Store").write_bytes(b"finder state")  # hidden: not part of the data
    assert fingerprint(root)["sha256"] == before["sha256"]
    seen = {before["sha256"]}
    for rel in ("ground_truth/instance_data.json", "ground_truth/solution_ref.json", "task_input.txt"):
        path = package / rel
        path.write_bytes(path.read_bytes() + b" ")
        digest = fingerprint(root)["sha256"]
        assert digest not in seen, rel
        seen.add(digest)


def test_a_release_clone_is_versioned_by_its_git_commit(tmp_path: Path) -> None:
    root = _official_copy(tmp_path)
    assert fingerprint(root)["version"] == "unversioned"
    git = root.parent / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").write_text("# pack-refs with: peeled\n" + "ab" * 20 + " refs/heads/main\n")
    assert fingerprint(root)["version"] == "git-" + "ab" * 20
    (git / "refs" / "heads" / "main").write_text("cd" * 20 + "\n")  # a loose ref wins over packed
    assert fingerprint(root)["version"] == "git-" + "cd" * 20


def test_the_oracle_on_a_release_says_it_replays_and_can_answer_with_our_models(
    bench, tmp_path: Path
) -> None:
    sample = Path(__file__).parent / "data" / "official_mmopt"
    root = tmp_path / "release"
    for rel in (
        "combinatorial_logical/multi_dim_knapsack/easy/mdkp_e_001",
        "multi_period_system_planning/inventory_routing_problem/medium/irp_m_008",
    ):
        shutil.copytree(sample / rel, root / rel)
    replayed = bench("--model=oracle", f"--dataset={root}")
    assert {r["outcome"] for r in replayed.records} == {"passed"}
    assert all(
        r["extra"]["oracle_answer"].startswith("solution_ref.json replayed, no solver tested")
        for r in replayed.records
    )
    assert "no solver" in json.dumps(replayed.summary)
    summary_md = (replayed.run_dir / "summary.md").read_text()
    assert "Oracle answers without a runnable solver_ref.py" in summary_md
    assert "| solution_ref.json replayed (no solver tested) | 2 |" in summary_md
    solved = bench("--model=oracle", "--oracle-solve", f"--dataset={root}")
    by_case = {r["case"].split("/")[4]: r for r in solved.records}
    assert by_case["mdkp_e_001"]["outcome"] == "passed"
    assert by_case["mdkp_e_001"]["extra"]["oracle_answer"].startswith("our exact model: ortools.sat CP-SAT")
    assert by_case["irp_m_008"]["outcome"] != "passed"  # our IRP models plan one vehicle
    assert "our IRP models plan one vehicle" in json.dumps(by_case["irp_m_008"])
    assert "--oracle-solve" in json.dumps(solved.summary)
