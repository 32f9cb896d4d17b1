"""Helpers the per-subcategory MM-OptBench tests share: reading shipped packages, damaging copies
the way a careful forger would, scoring a returned answer without a sandbox run, and running the
planted-cause mix through the benchmark as a user runs it."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmark.cases import InstanceRef
from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.generation import InstanceGenerator
from benchmark.suites.mmopt.generation.dataset import write_manifest
from benchmark.suites.mmopt.generation.jsonio import dumps_canonical
from benchmark.suites.mmopt.generation.validate import ValidationReport
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.planting import plant, write_plan
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories import get_subcategory
from tests.conftest import FIXTURES, fail_missing_fixture, run_bench


def generator_of(name: str) -> InstanceGenerator:
    """The registered generator of subcategory ``name`` (a failure, not a skip, when it has none)."""
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def read_json(package: Path, rel: str) -> Any:
    return json.loads((package / rel).read_text(encoding="utf-8"))


def instance_and_reference(package: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A package's ``instance_data.json`` and ``solution_ref.json``."""
    instance = read_json(package, "ground_truth/instance_data.json")
    return instance, read_json(package, "ground_truth/solution_ref.json")


def shipped_package(family: str, name: str, prefix: str, difficulty: str, index: int = 1) -> Path:
    """The shipped package ``<prefix>_<d>_<index>`` (``fhfss_m_002``); a missing one fails the test."""
    package = FIXTURES / family / name / difficulty / f"{prefix}_{difficulty[0]}_{index:03d}"
    if not package.is_dir():
        fail_missing_fixture(package)
    return package


def rewrite_checksummed(package: Path, rel: str, data: bytes) -> None:
    """Replace one file and update its checksum in meta.json, so the damage gets past the
    checksum check and reaches the semantic checks."""
    (package / rel).write_bytes(data)
    meta = read_json(package, "meta.json")
    meta["checksums"][rel] = hashlib.sha256(data).hexdigest()
    (package / "meta.json").write_text(dumps_canonical(meta), encoding="utf-8")


def rewrite_json(package: Path, rel: str, document: Any) -> None:
    """:func:`rewrite_checksummed` with a JSON document, written canonically."""
    rewrite_checksummed(package, rel, dumps_canonical(document).encode())


def misreport_objective(package: Path) -> None:
    """Raise the reference's objective by one: the re-solve, cross-check and validator must object."""
    solution = read_json(package, "ground_truth/solution_ref.json")
    solution["objective_value"] += 1
    rewrite_json(package, "ground_truth/solution_ref.json", solution)


def drop_last_visual(package: Path) -> None:
    """Delete the package's last figure and its meta.json entries (a panel gone missing)."""
    meta = read_json(package, "meta.json")
    last = len(meta["visuals"]) - 1
    (package / f"visuals/visual_{last}.png").unlink()
    meta["visuals"] = meta["visuals"][:last]
    meta["checksums"].pop(f"visuals/visual_{last}.png")
    (package / "meta.json").write_text(dumps_canonical(meta), encoding="utf-8")


def copy_shipped(root: Path, rels: Iterable[str]) -> None:
    """Copy the shipped packages ``rels`` (paths under the fixtures) to ``root``, with a manifest."""
    for rel in rels:
        if not (FIXTURES / rel).is_dir():
            fail_missing_fixture(FIXTURES / rel)
        shutil.copytree(FIXTURES / rel, root / rel)
    write_manifest(root)


def failures_by_check(report: ValidationReport, package: str) -> dict[str, list[str]]:
    """The validation failures of one package (its path under the root), grouped by check."""
    found: dict[str, list[str]] = {}
    for failure in report.failures:
        if failure.package == package:
            found.setdefault(failure.check, []).append(failure.message)
    return found


def score_answer(
    subcategory: str,
    instance: dict[str, Any],
    solution_ref: dict[str, Any],
    answer: Any,
    *,
    objective_only: bool = False,
    **options: Any,
) -> Any:
    """The scorer's verdict on ``answer`` as if generated code had returned it (no sandbox run)."""
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    return score_execution(
        ran,
        subcategory=subcategory,
        instance=instance,
        solution_ref=solution_ref,
        objective_only=objective_only,
        **options,
    )


def assert_planted_causes_recovered(
    run_dir: Path, mix: Sequence[tuple[str, str]], belongs: Callable[[InstanceRef], bool]
) -> None:
    """Plant each ``(instance id, cause)`` of ``mix`` in the shipped package of that id among those
    ``belongs`` selects, run the two-stage benchmark on them with the planted adapter, and check
    that every case lands in the category and stage-2 status its planting expects."""
    refs = {ref.path[-1]: ref for ref in discover(FIXTURES) if belongs(ref)}
    missing = sorted({instance for instance, _ in mix} - refs.keys())
    if missing:
        fail_missing_fixture(f"the planted-mix packages {missing}")
    plan = {refs[i].key: plant(load_package(refs[i]), cause) for i, cause in mix}
    plan_path = write_plan(run_dir / "plan.json", plan)
    selection = " or ".join(i for i, _ in mix)
    run = run_bench(
        run_dir / "run", f"--model=planted:{plan_path}", "--setting=two_stage", "-k", selection, "-n", "2"
    )
    records = {r["case"].rsplit("/", 2)[0]: r for r in run.records}
    assert set(records) == set(plan), run.output[-3000:]
    for key, entry in plan.items():
        record = records[key]
        assert record["category"] == entry["expected"]["stage1_category"], (key, record["detail"])
        assert record["extra"]["stage2"]["status"] == entry["expected"]["stage2"], key
