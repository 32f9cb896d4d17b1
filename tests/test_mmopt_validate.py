"""The validation stack (``python -m benchmark validate``) on shipped packages and damaged copies.

Every damaged copy is made the way a careless edit or a stale file would make it, with the checksums
in ``meta.json`` updated wherever the damage is meant to get past the artifact check, so that only
the semantic check under test can catch it. Real solvers and the real renderer throughout.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmark.cli import main
from benchmark.suites.mmopt.generation.dataset import GENERATION_REPORT, write_manifest
from benchmark.suites.mmopt.generation.jsonio import dumps_canonical
from benchmark.suites.mmopt.generation.validate import (
    DATASET_LEVEL,
    NO_PLUGIN_NOTE,
    ValidationReport,
    validate,
)
from benchmark.suites.mmopt.subcategories import get_subcategory

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
MF = "network_optimization/maximum_flow"
MCF = "network_optimization/minimum_cost_flow"
INTACT = (f"{MF}/easy/mf_e_001", f"{MCF}/hard/mcf_h_002")
LABEL_CHANGED = f"{MF}/easy/mf_e_002"
FILE_MISSING = f"{MF}/medium/mf_m_001"
OBJECTIVE_ALTERED = f"{MCF}/easy/mcf_e_001"
VISUAL_EXTRA = f"{MF}/easy/mf_e_003"
VISUAL_MISSING = f"{MF}/easy/mf_e_004"
NOT_IN_MANIFEST = f"{MF}/hard/mf_h_001"


def _copy(root: Path, packages: tuple[str, ...]) -> None:
    for rel in packages:
        source = FIXTURES / rel
        if not source.is_dir():
            pytest.skip(f"fixtures/mmopt lacks {rel}")
        shutil.copytree(source, root / rel)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _rewrite(package: Path, rel: str, data: bytes) -> None:
    """Replace one file and update its checksum in meta.json, as a careful forger would."""
    (package / rel).write_bytes(data)
    meta = _read_json(package / "meta.json")
    meta["checksums"][rel] = hashlib.sha256(data).hexdigest()
    (package / "meta.json").write_text(dumps_canonical(meta), encoding="utf-8")


def _render_visual_from(package: Path, instance: dict[str, Any]) -> None:
    generator = get_subcategory("maximum_flow")
    visual = generator.render(instance)[0]  # type: ignore[union-attr]
    _rewrite(package, "visuals/visual_0.png", visual.png)
    meta = _read_json(package / "meta.json")
    meta["visuals"][0].update(width_px=visual.width_px, height_px=visual.height_px)
    (package / "meta.json").write_text(dumps_canonical(meta), encoding="utf-8")


def _damage(root: Path) -> None:
    # a changed label value: one capacity in the record, which the shipped picture does not show
    package = root / LABEL_CHANGED
    instance = _read_json(package / "ground_truth/instance_data.json")
    instance["arcs"][0]["capacity"] += 1
    _rewrite(package, "ground_truth/instance_data.json", dumps_canonical(instance).encode())

    (root / FILE_MISSING / "ground_truth/math_model.md").unlink()

    package = root / OBJECTIVE_ALTERED
    solution = _read_json(package / "ground_truth/solution_ref.json")
    solution["objective_value"] += 1
    _rewrite(package, "ground_truth/solution_ref.json", dumps_canonical(solution).encode())

    # visuals drawn from altered data: one arc more (an extra value), one arc fewer (a missing value)
    package = root / VISUAL_EXTRA
    instance = _read_json(package / "ground_truth/instance_data.json")
    assert not any(arc["id"] == "1_4" for arc in instance["arcs"])
    instance["arcs"].append({"capacity": 7, "from": 1, "id": "1_4", "to": 4})
    _render_visual_from(package, instance)

    package = root / VISUAL_MISSING
    instance = _read_json(package / "ground_truth/instance_data.json")
    instance["arcs"].pop()
    _render_visual_from(package, instance)


@pytest.fixture(scope="module")
def damaged_report(tmp_path_factory: pytest.TempPathFactory) -> ValidationReport:
    root = tmp_path_factory.mktemp("damaged")
    _copy(root, (*INTACT, LABEL_CHANGED, FILE_MISSING, OBJECTIVE_ALTERED, VISUAL_EXTRA, VISUAL_MISSING))
    write_manifest(root)
    _damage(root)
    _copy(root, (NOT_IN_MANIFEST,))
    return validate(root, processes=2)


def _checks(report: ValidationReport, package: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for failure in report.failures:
        if failure.package == package:
            found.setdefault(failure.check, []).append(failure.message)
    return found


def test_intact_packages_pass_every_check(damaged_report):
    for package in INTACT:
        assert _checks(damaged_report, package) == {}
    results = {p.package: p for p in damaged_report.packages}
    for package in INTACT:
        assert results[package].skipped == ()
        assert results[package].reference_seconds is not None and results[package].reference_seconds < 60


def test_changed_label_value_is_caught_by_the_visual_and_regeneration(damaged_report):
    checks = _checks(damaged_report, LABEL_CHANGED)
    assert "artifacts" not in checks and "schema" not in checks
    assert any("visuals/visual_0.png differs from the rendering" in m for m in checks["visual_png"])
    assert any("ground_truth/instance_data.json differs" in m for m in checks["regeneration"])


def test_missing_file_is_named(damaged_report):
    checks = _checks(damaged_report, FILE_MISSING)
    assert checks == {"artifacts": ["ground_truth/math_model.md: file is missing"]}


def test_altered_objective_disagrees_with_the_solvers_and_the_validator(damaged_report):
    checks = _checks(damaged_report, OBJECTIVE_ALTERED)
    assert "artifacts" not in checks
    assert "re-solve gives" in checks["reference_solve"][0]
    assert "solution_ref.json says" in checks["cross_check"][0]
    shipped = _read_json(FIXTURES / OBJECTIVE_ALTERED / "ground_truth/solution_ref.json")["objective_value"]
    assert str(shipped + 1) in checks["validator"][0] and str(shipped) in checks["validator"][0]
    assert any("verification.objective_value differs" in m for m in checks["schema"])


@pytest.mark.parametrize("package", [VISUAL_EXTRA, VISUAL_MISSING])
def test_visual_with_an_extra_or_missing_value_is_caught(damaged_report, package):
    checks = _checks(damaged_report, package)
    assert "visual_png" in checks and not {"artifacts", "schema", "visual_labels"} & set(checks), checks
    assert "visuals/visual_0.png differs from the rendering of instance_data.json" in checks["visual_png"][0]


def test_dataset_level_manifest_check(damaged_report):
    manifest_failures = [f for f in damaged_report.failures if f.check == "manifest"]
    assert [(f.package, f.message) for f in manifest_failures] == [
        (DATASET_LEVEL, f"{NOT_IN_MANIFEST} is on disk but not in manifest.json")
    ]
    assert NOT_IN_MANIFEST not in {p.package for p in damaged_report.packages}


def test_package_without_plugin_is_reported_not_passed(tmp_path):
    _copy(tmp_path, (INTACT[0],))
    unknown = tmp_path / "network_optimization/no_such_subcategory/easy/x_e_001"
    shutil.copytree(tmp_path / INTACT[0], unknown)
    report = validate(tmp_path, processes=1)
    assert report.ok
    assert report.skipped == [("network_optimization/no_such_subcategory/easy/x_e_001", NO_PLUGIN_NOTE)]
    assert "1 only partly checked" in report.summary()


def test_cli_exits_nonzero_with_one_line_per_failure(tmp_path, capsys):
    _copy(tmp_path, (INTACT[0], FILE_MISSING))
    write_manifest(tmp_path)
    (tmp_path / FILE_MISSING / "task_input.txt").unlink()
    assert main(["validate", str(tmp_path), "--processes", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert f"{FILE_MISSING}: artifacts: task_input.txt: file is missing" in lines
    assert lines[-1].startswith("2 packages validated") and "1 pass, 1 fail" in lines[-1]

    shutil.rmtree(tmp_path / FILE_MISSING)
    write_manifest(tmp_path)
    assert main(["validate", str(tmp_path), "--processes", "1"]) == 0


def test_generation_report_counts_must_match_the_packages(tmp_path):
    _copy(tmp_path, (INTACT[0],))
    write_manifest(tmp_path)
    tally = {"accepted": 1, "candidates": 1, "rejections": {}}
    entry = {"family": "network_optimization", "generator_version": "v", "difficulties": {"easy": tally}}
    document = {"subcategories": {"maximum_flow": entry}}
    (tmp_path / GENERATION_REPORT).write_text(json.dumps(document))
    nothing = validate(tmp_path, processes=1, select=lambda ref: False)  # dataset-level checks only
    assert nothing.packages == [] and nothing.ok

    tally["accepted"] = 10
    (tmp_path / GENERATION_REPORT).write_text(json.dumps(document))
    stale = validate(tmp_path, processes=1, select=lambda ref: False)
    assert [(f.package, f.check) for f in stale.failures] == [(DATASET_LEVEL, "generation_report")]
    assert "says 10 accepted for maximum_flow/easy, the dataset holds 1" in stale.failures[0].message
