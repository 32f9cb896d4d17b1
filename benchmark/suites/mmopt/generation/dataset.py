"""Generating a dataset root (packages + manifest) and checking that it regenerates exactly."""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.files import locked, write_atomically
from benchmark.suites.mmopt.generation.jsonio import dumps_canonical
from benchmark.suites.mmopt.generation.package import META, package_files, write_package
from benchmark.suites.mmopt.generation.pipeline import BuiltInstance, GenerationError, build_instance
from benchmark.suites.mmopt.generation.protocol import InstanceGenerator
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.split import Split
from benchmark.suites.mmopt.subcategories import all_subcategories, get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES, DIFFICULTY_LETTER

DATASET_NAME = "optbench-mmopt"
DATASET_VERSION = "0.4.0"
MANIFEST = "manifest.json"
GENERATION_REPORT = "generation_report.json"
_PNG_PREFIX = "png: "


@dataclass
class DifficultyTally:
    """Accepted packages and rejected candidates of one subcategory at one difficulty."""

    accepted: int = 0
    rejections: Counter[str] = field(default_factory=Counter)

    @property
    def candidates(self) -> int:
        return self.accepted + sum(self.rejections.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "candidates": self.candidates,
            "rejections": dict(sorted(self.rejections.items())),
        }


@dataclass
class SubcategoryReport:
    """What generating one subcategory took: accepted packages and every rejection by reason, per
    difficulty (the dataset report's rejection table reads these from ``generation_report.json``)."""

    family: str = ""
    generator_version: str = ""
    by_difficulty: dict[str, DifficultyTally] = field(default_factory=dict)

    @property
    def accepted(self) -> int:
        return sum(tally.accepted for tally in self.by_difficulty.values())

    @property
    def rejections(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for tally in self.by_difficulty.values():
            total.update(tally.rejections)
        return total

    @property
    def attempts(self) -> int:
        return self.accepted + sum(self.rejections.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "generator_version": self.generator_version,
            "difficulties": {
                d: self.by_difficulty[d].to_json() for d in DIFFICULTIES if d in self.by_difficulty
            },
        }


@dataclass
class GenerationReport:
    """Outcome of :func:`generate_dataset`; ``seconds`` is wall time (never written to the dataset)."""

    root: Path
    subcategories: dict[str, SubcategoryReport]
    packages: int
    seconds: float

    def summary(self) -> str:
        lines = [f"{self.packages} packages written to {self.root} in {self.seconds:.1f} s"]
        for name, report in sorted(self.subcategories.items()):
            lines.append(f"  {name}: {report.accepted} accepted, {report.attempts} candidates")
            for reason, count in report.rejections.most_common():
                lines.append(f"    rejected ×{count}: {reason}")
        return "\n".join(lines)


def _generators(names: Sequence[str] | None) -> list[InstanceGenerator]:
    registry = all_subcategories()
    chosen = sorted(registry) if names is None else list(names)
    generators = []
    for name in chosen:
        subcategory = registry.get(name)
        if subcategory is None:
            raise ValueError(f"unknown subcategory {name!r}; known: {', '.join(sorted(registry))}")
        if not isinstance(subcategory, InstanceGenerator):
            if names is None:
                continue  # a scoring-only subcategory (e.g. one read from the official release)
            raise ValueError(f"subcategory {name!r} has no instance generator")
        generators.append(subcategory)
    return generators


def instance_id(generator: InstanceGenerator, difficulty: str, index: int) -> str:
    """``<prefix>_<d>_<NNN>``, or the official release's spelling for that difficulty where it
    differs (a subcategory's ``official_id_separators``: facility location's hard ids are
    ``fl_h__001``)."""
    separator = getattr(generator, "official_id_separators", {}).get(difficulty, "_")
    return f"{generator.id_prefix}_{DIFFICULTY_LETTER[difficulty]}{separator}{index:03d}"


def generate_dataset(
    root: Path,
    subcategories: Sequence[str] | None = None,
    per_difficulty: int = 10,
    split: Split | None = None,
) -> GenerationReport:
    """Generate ``per_difficulty`` packages per difficulty for each subcategory (all generators when
    ``subcategories`` is None) under ``root``, then rebuild the manifest and merge this run's
    rejection counts into ``generation_report.json``. With ``split``, the seeds, the dataset
    version and the ``split`` field of every meta.json and of the manifest are the split's
    (:mod:`.split`); a root holds one split or the shipped set, never both.

    Each subcategory's folder is replaced as a whole, so no stale package survives; packages of other
    subcategories already under ``root`` are kept and stay in the manifest and the report. Several
    calls for different subcategories may run at once on one root: the dataset-level files are
    rebuilt under a lock and replaced atomically.
    """
    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    _refuse_mixing(root, split)
    version = DATASET_VERSION if split is None else split.version(DATASET_VERSION)
    recorded = None if split is None else split.to_json()
    reports: dict[str, SubcategoryReport] = {}
    written = 0
    for generator in _generators(subcategories):
        report = reports.setdefault(
            generator.name, SubcategoryReport(family=generator.family, generator_version=generator.version)
        )
        folder = root / generator.family / generator.name
        if folder.exists():
            shutil.rmtree(folder)
        for difficulty in DIFFICULTIES:
            tally = report.by_difficulty.setdefault(difficulty, DifficultyTally())
            for index in range(1, per_difficulty + 1):
                name = instance_id(generator, difficulty, index)
                seed = (split.seed if split else instance_seed)(generator.name, difficulty, index)
                built = build_instance(generator, difficulty, name, seed)
                write_package(root, built, version, recorded)
                tally.accepted += 1
                tally.rejections.update(built.rejections)
                written += 1
    with _root_lock(root):
        write_manifest(root, version, recorded)
        _merge_generation_report(root, reports, version)
    return GenerationReport(
        root=root, subcategories=reports, packages=written, seconds=time.perf_counter() - started
    )


def _root_lock(root: Path) -> contextlib.AbstractContextManager[bool]:
    """Serialize rebuilding the dataset-level files between concurrent generators on one root.

    The lock is an ``flock`` on the root directory itself, so no lock file appears in the dataset.
    """
    return locked(root)


def _read_meta(meta_path: Path) -> dict[str, Any] | None:
    """A package's meta.json, or None when the package vanished meanwhile (another generator
    replacing its subcategory folder; that generator rebuilds the manifest when it is done)."""
    try:
        meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return meta


def _describe(split: Mapping[str, Any] | None) -> str:
    return "the shipped set" if split is None else f"split {split['name']!r} (seed base {split['seed_base']})"


def _refuse_mixing(root: Path, split: Split | None) -> None:
    """A root holds the shipped set or one split: generating into a root whose manifest lists
    packages of another would mix seeds and versions, so it is an error naming both."""
    path = root / MANIFEST
    if not path.is_file():
        return
    manifest = json.loads(path.read_text(encoding="utf-8"))
    present, wanted = manifest.get("split"), None if split is None else split.to_json()
    if manifest.get("packages") and present != wanted:
        raise ValueError(f"{path} describes {_describe(present)}; refusing to add {_describe(wanted)} to it")


def write_manifest(
    root: Path, version: str = DATASET_VERSION, split: Mapping[str, Any] | None = None
) -> Path:
    """``manifest.json`` listing every package under ``root`` (found by its ``meta.json``), sorted;
    replaced atomically so a concurrent reader never sees half a manifest. A held-out split's
    manifest carries the split's version and its ``split`` record."""
    packages = []
    for meta_path in sorted(root.glob(f"*/*/*/*/{META}")):
        meta = _read_meta(meta_path)
        if meta is None:
            continue
        rel = meta_path.parent.relative_to(root)
        packages.append(
            {
                "family": meta["family"],
                "subcategory": meta["subcategory"],
                "difficulty": meta["difficulty"],
                "instance_id": meta["instance_id"],
                "path": rel.as_posix(),
            }
        )
    packages.sort(key=lambda entry: entry["path"])
    manifest: dict[str, Any] = {"dataset": DATASET_NAME, "version": version}
    if split is not None:
        manifest["split"] = dict(split)
    manifest["packages"] = packages
    path = root / MANIFEST
    write_atomically(path, dumps_canonical(manifest).encode("utf-8"))
    return path


def _merge_generation_report(
    root: Path, reports: Mapping[str, SubcategoryReport], version: str = DATASET_VERSION
) -> Path:
    """Write ``generation_report.json``: this run's subcategories replace their previous entries,
    other subcategories' entries are kept while the root still holds packages of theirs.

    Only counts, no timings: the file is a deterministic function of the seeds and generators, like
    the packages it describes.
    """
    path = root / GENERATION_REPORT
    previous: dict[str, Any] = {}
    if path.is_file():
        previous = json.loads(path.read_text(encoding="utf-8")).get("subcategories", {})
    present = {meta_path.parts[-4] for meta_path in root.glob(f"*/*/*/*/{META}")}
    entries = {name: entry for name, entry in previous.items() if name in present}
    entries.update({name: report.to_json() for name, report in reports.items()})
    document = {
        "dataset": DATASET_NAME,
        "version": version,
        "subcategories": dict(sorted(entries.items())),
    }
    write_atomically(path, dumps_canonical(document).encode("utf-8"))
    return path


@dataclass
class RegenerationDiff:
    """Differences between a root and its regeneration: text/JSON files, and PNGs (which may
    legitimately differ under another matplotlib version) kept apart."""

    text: list[str] = field(default_factory=list)
    png: list[str] = field(default_factory=list)


def _first_difference(old: str, new: str) -> str:
    old_lines, new_lines = old.splitlines(), new.splitlines()
    for number, (a, b) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if a != b:
            return f"line {number}: {a.strip()[:60]!r} vs regenerated {b.strip()[:60]!r}"
    return f"length {len(old_lines)} lines vs regenerated {len(new_lines)}"


def _without_visual_checksums(meta_text: str) -> tuple[Any, dict[str, str]]:
    meta = json.loads(meta_text)
    checksums = meta.get("checksums", {})
    visuals = {k: v for k, v in checksums.items() if k.startswith("visuals/")}
    meta["checksums"] = {k: v for k, v in checksums.items() if not k.startswith("visuals/")}
    return meta, visuals


def compare_package_files(label: str, stored: Path, regenerated: Mapping[str, bytes]) -> RegenerationDiff:
    """Compare a package directory with the files its regeneration produced (``relative path →
    bytes``, as :func:`~.package.package_files` returns them); differences are prefixed ``label``."""
    diff = RegenerationDiff()
    stored_files = {p.relative_to(stored).as_posix() for p in stored.rglob("*") if p.is_file()}
    new_files = set(regenerated)
    for rel in sorted(stored_files - new_files):
        (diff.png if rel.endswith(".png") else diff.text).append(f"{label}: {rel} is not regenerated")
    for rel in sorted(new_files - stored_files):
        (diff.png if rel.endswith(".png") else diff.text).append(
            f"{label}: {rel} is missing from the dataset"
        )
    for rel in sorted(stored_files & new_files):
        old, new = (stored / rel).read_bytes(), regenerated[rel]
        if old == new:
            continue
        if rel.endswith(".png"):
            diff.png.append(f"{label}: {rel} differs ({len(old)} vs regenerated {len(new)} bytes)")
        elif rel == META:
            old_meta, _ = _without_visual_checksums(old.decode("utf-8"))
            new_meta, _ = _without_visual_checksums(new.decode("utf-8"))
            if old_meta != new_meta:
                diff.text.append(f"{label}: {rel} differs, {_first_difference(old.decode(), new.decode())}")
            # otherwise only the PNG checksums differ, which the PNG comparison reports
        else:
            diff.text.append(f"{label}: {rel} differs, {_first_difference(old.decode(), new.decode())}")
    return diff


def generator_for(meta: Mapping[str, Any]) -> InstanceGenerator | None:
    """The generator plug-in of a package's subcategory, or None (unknown or scoring-only)."""
    subcategory = get_subcategory(str(meta.get("subcategory")))
    return subcategory if isinstance(subcategory, InstanceGenerator) else None


def regenerate_package(generator: InstanceGenerator, meta: Mapping[str, Any]) -> BuiltInstance:
    """Rebuild one package from the seed its ``meta.json`` records, running the whole construction
    protocol again (so attempts rejected then must be rejected again); raises
    :class:`~.pipeline.GenerationError` when no candidate is accepted."""
    return build_instance(generator, str(meta["difficulty"]), str(meta["instance_id"]), int(meta["seed"]))


def compare_regeneration(root: Path) -> RegenerationDiff:
    """Regenerate every package listed in ``root``'s manifest from its recorded seed and compare it
    file by file with the stored copy."""
    diff = RegenerationDiff()
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        diff.text.append(f"{MANIFEST} is missing")
        return diff
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for entry in manifest.get("packages", []):
        label = str(entry.get("path"))
        stored = root / label
        try:
            meta = json.loads((stored / META).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            diff.text.append(f"{label}: cannot read {META} ({exc})")
            continue
        generator = generator_for(meta)
        if generator is None:
            diff.text.append(f"{label}: no generator for subcategory {meta.get('subcategory')!r}")
            continue
        try:
            built = regenerate_package(generator, meta)
        except GenerationError as exc:
            diff.text.append(f"{label}: regeneration failed ({exc})")
            continue
        split = meta.get("split")
        files = package_files(
            built,
            str(meta.get("dataset_version", DATASET_VERSION)),
            split if isinstance(split, dict) else None,
        )
        found = compare_package_files(label, stored, files)
        diff.text += found.text
        diff.png += found.png
    return diff


def check_regeneration(root: Path) -> list[str]:
    """Differences between ``root`` and its regeneration; empty means an exact reproduction.

    Text and JSON differences come first; PNG differences follow, each prefixed ``"png: "``, since
    rendered bytes may change with the matplotlib version while the data does not. Callers that
    tolerate such drift drop those entries (or use :func:`compare_regeneration`).
    """
    diff = compare_regeneration(root)
    return diff.text + [_PNG_PREFIX + item for item in diff.png]
