"""Writing one instance package in the release layout (App. D.1), with checksums and meta.

The package is first assembled in memory as ``relative path → bytes`` so that the writer and the
regeneration check share one code path: a package on disk is "reproducible" exactly when
:func:`package_files` returns the same bytes again.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmark.files import write_atomically
from benchmark.suites.mmopt.generation.jsonio import dumps_canonical
from benchmark.suites.mmopt.generation.pipeline import BuiltInstance

META = "meta.json"


def package_relpath(family: str, subcategory: str, difficulty: str, instance_id: str) -> Path:
    return Path(family, subcategory, difficulty, instance_id)


def package_files(
    built: BuiltInstance, dataset_version: str, split: Mapping[str, Any] | None = None
) -> dict[str, bytes]:
    """Every file of the package keyed by posix relative path, ``meta.json`` last (it checksums the
    rest); ``split`` (a held-out split's name and seed base, :mod:`.split`) is recorded in the meta."""
    record, artifacts = built.record, built.artifacts
    files: dict[str, bytes] = {
        "task_input.txt": artifacts.task_input.encode("utf-8"),
        "canonical_specification.txt": artifacts.canonical_specification.encode("utf-8"),
        "ground_truth/instance_data.json": dumps_canonical(record.instance).encode("utf-8"),
        "ground_truth/math_model.md": artifacts.math_model.encode("utf-8"),
        "ground_truth/solver_ref.py": artifacts.solver_ref.encode("utf-8"),
        "ground_truth/solution_ref.json": dumps_canonical(record.reference.solution).encode("utf-8"),
    }
    for index, visual in enumerate(built.visuals):
        files[f"visuals/visual_{index}.png"] = visual.png
    meta: dict[str, Any] = {
        "instance_id": record.instance_id,
        "family": record.family,
        "subcategory": record.subcategory,
        "difficulty": record.difficulty,
        "seed": record.seed,
        "attempt": record.attempt,
        "generator_version": record.generator_version,
        "dataset_version": dataset_version,
        "regime_tags": list(artifacts.regime_tags),
        "formulation_size": dict(artifacts.formulation_size),
        "verification": {
            "status": record.reference.solution["status"],
            "objective_value": record.reference.solution.get("objective_value"),
            "reference_solver": record.reference.method,
            "cross_check": record.cross_check_method,
            "cross_check_objective": record.cross_check_objective,
        },
        "visuals": [
            {"file": f"visuals/visual_{i}.png", "width_px": v.width_px, "height_px": v.height_px}
            for i, v in enumerate(built.visuals)
        ],
        "checksums": {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())},
    }
    if split is not None:
        meta["split"] = dict(split)
    overlap = set(artifacts.meta_extra) & set(meta)
    if overlap:
        raise ValueError(f"meta_extra may not override {sorted(overlap)}")
    meta.update(artifacts.meta_extra)
    files[META] = dumps_canonical(meta).encode("utf-8")
    return files


def write_package(
    root: Path, built: BuiltInstance, dataset_version: str, split: Mapping[str, Any] | None = None
) -> Path:
    """Write the package under ``root`` (replacing any previous copy) and return its directory."""
    record = built.record
    directory = root / package_relpath(
        record.family, record.subcategory, record.difficulty, record.instance_id
    )
    if directory.exists():
        shutil.rmtree(directory)
    for rel, data in package_files(built, dataset_version, split).items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel == META:
            write_atomically(path, data)  # written last: a meta.json on disk means a complete package
        else:
            path.write_bytes(data)
    return directory
