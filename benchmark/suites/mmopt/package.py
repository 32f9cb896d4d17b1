"""Reading MM-OptBench instance packages (paper App. D.1; the official release's layout).

``<root>/<family>/<subcategory>/<difficulty>/<instance_id>/`` with ``task_input.txt``,
``canonical_specification.txt``, ``visuals/visual_*.png``, ``meta.json`` and
``ground_truth/{instance_data.json, math_model.md, solver_ref.py, solution_ref.json}``.

Listing a root is cheap: it reads ``manifest.json`` when there is one (our fixtures) and otherwise
walks four directory levels (a copy of the official release). Loading a package is where damage
is found: missing files (all of them, listed at once), unreadable JSON or a checksum that does not
match raise :class:`DatasetError` naming the files, and the harness reports that case as an error.

A case loads only what its setting uses (:data:`SETTING_FILES`): the model-facing task text and
visuals, and the instance data and reference solution that scoring reads — the official scorer
needs nothing else, and copies of the official release do not always carry every file. The
validation stack of our own fixtures still asks for every file (:data:`REQUIRED_FILES`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.cases import InstanceRef
from benchmark.verdict import DatasetError

SUITE_NAME = "mmopt"
MANIFEST = "manifest.json"
REQUIRED_FILES: tuple[str, ...] = (
    "task_input.txt",
    "canonical_specification.txt",
    "meta.json",
    "ground_truth/instance_data.json",
    "ground_truth/math_model.md",
    "ground_truth/solver_ref.py",
    "ground_truth/solution_ref.json",
)
VISUALS = "visuals/"  # stands for visuals/visual_0.png … in a list of needed files
#: What scoring reads in every setting (the official scorer reads these two files and nothing else).
SCORING_FILES: tuple[str, ...] = ("ground_truth/instance_data.json", "ground_truth/solution_ref.json")
#: What each mmopt setting reads: the model-facing files it shows plus the scoring files.
SETTING_FILES: dict[str, tuple[str, ...]] = {
    "stage1": ("task_input.txt", VISUALS, *SCORING_FILES),
    "two_stage": ("task_input.txt", VISUALS, *SCORING_FILES),
    "verified_extraction": ("task_input.txt", VISUALS, *SCORING_FILES),
    "oracle_reading": ("task_input.txt", *SCORING_FILES),
}
REFERENCE_OBJECTIVE_KEYS: tuple[str, ...] = ("objective_value", "objective_exact", "objective")
_VISUAL_NAME = re.compile(r"^visual_(\d+)\.png$")


@dataclass(frozen=True)
class Package:
    """One loaded, checked instance package."""

    directory: Path
    family: str
    subcategory: str
    difficulty: str
    instance_id: str
    task_text: str
    visuals: tuple[Path, ...]
    instance_data: dict[str, Any]
    solution_ref: dict[str, Any]
    meta: dict[str, Any]  # {} when the package has no meta.json and the setting does not need one
    math_model: str  # "" when absent and not needed
    solver_ref: str  # "" when absent and not needed

    @property
    def expected_objective(self) -> float | None:
        return reference_value(self.solution_ref)


def _instance_ref(root: Path, rel: Sequence[str]) -> InstanceRef:
    family, subcategory, difficulty, instance_id = rel
    return InstanceRef(
        suite=SUITE_NAME,
        path=(family, subcategory, difficulty, instance_id),
        labels={
            "family": family,
            "subcategory": subcategory,
            "difficulty": difficulty,
            "instance_id": instance_id,
        },
        location=root.joinpath(*rel),
    )


def discover(root: Path) -> list[InstanceRef]:
    """The instances under ``root``, sorted by path, from the manifest or a directory walk."""
    if not root.is_dir():
        raise DatasetError(root, "dataset root does not exist or is not a directory")
    manifest_path = root / MANIFEST
    if manifest_path.exists():
        manifest = _read_json(manifest_path)
        try:
            rels = [tuple(Path(entry["path"]).parts) for entry in manifest["packages"]]
        except (KeyError, TypeError) as exc:
            raise DatasetError(manifest_path, f"manifest lacks packages[].path ({exc})") from None
        for rel in rels:
            if len(rel) != 4:
                raise DatasetError(manifest_path, f"package path {'/'.join(rel)!r} is not family/sub/diff/id")
    else:
        rels = [
            tuple(p.relative_to(root).parts)
            for p in root.glob("*/*/*/*")
            if p.is_dir() and not any(part.startswith(".") for part in p.relative_to(root).parts)
        ]
    return [_instance_ref(root, rel) for rel in sorted(set(rels))]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(path, "file is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(path, f"not valid JSON ({exc})") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(path, "file is missing") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(path, f"not UTF-8 text ({exc})") from None


def _visuals(directory: Path) -> tuple[Path, ...]:
    visual_dir = directory / "visuals"
    found = [] if not visual_dir.is_dir() else [p for p in visual_dir.iterdir() if _VISUAL_NAME.match(p.name)]
    if not found:
        return ()
    ordered = sorted(found, key=lambda p: int(_VISUAL_NAME.match(p.name).group(1)))  # type: ignore[union-attr]
    indices = [int(_VISUAL_NAME.match(p.name).group(1)) for p in ordered]  # type: ignore[union-attr]
    if indices != list(range(len(indices))):
        missing = sorted(set(range(max(indices) + 1)) - set(indices))
        raise DatasetError(visual_dir / f"visual_{missing[0]}.png", "visual is missing from the sequence")
    return tuple(ordered)


def _verify_checksums(directory: Path, meta: dict[str, Any]) -> None:
    checksums = meta.get("checksums")
    if checksums is None:
        return  # the official release records checksums only "when available"
    if not isinstance(checksums, dict):
        raise DatasetError(directory / "meta.json", "checksums is not an object")
    for rel, expected in sorted(checksums.items()):
        path = directory / rel
        if not path.is_file():
            raise DatasetError(path, "file listed in meta.json checksums is missing")
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != expected:
            raise DatasetError(
                path, f"checksum mismatch (meta.json says {expected[:12]}…, file is {actual[:12]}…)"
            )


def _missing(directory: Path, needs: Sequence[str]) -> list[str]:
    """Every needed file that is absent, in the order given (``visuals/`` means at least one visual)."""
    missing: list[str] = []
    for rel in needs:
        if rel == VISUALS:
            if not _visuals(directory):
                missing.append("visuals/visual_0.png")
        elif not (directory / rel).is_file():
            missing.append(rel)
    return missing


def _optional_text(path: Path) -> str:
    return _read_text(path) if path.is_file() else ""


#: What a reference solver that reads the package's own files contains (the official release's do).
_FILE_READS = ("instance_data.json", "solution_ref.json", "open(", "Path(", "json.load(")


def reference_value(solution_ref: dict[str, Any]) -> float | None:
    """The verified optimum in ``solution_ref.json``: ``objective_value``, or where the release
    writes only the official aliases (its scheduling and planning packages) ``objective_exact`` or
    ``objective``."""
    for key in REFERENCE_OBJECTIVE_KEYS:
        value = solution_ref.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def reference_solver_problem(package: Package) -> str | None:
    """Why the package's reference solver cannot answer inside the sandbox, or None if it can."""
    if not package.solver_ref.strip():
        return "the package has no ground_truth/solver_ref.py"
    try:
        tree = ast.parse(package.solver_ref)
    except SyntaxError as exc:
        return f"the reference solver does not parse ({exc.msg}, line {exc.lineno})"
    solve = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"), None)
    if solve is None or len(solve.args.args) > len(solve.args.defaults):
        return "the reference solver has no top-level no-argument solve()"
    reads = [token for token in _FILE_READS if token in package.solver_ref]
    if reads:
        return f"the reference solver reads files from the package ({', '.join(reads)})"
    return None


def load_package(ref: InstanceRef, needs: Sequence[str] = (*REQUIRED_FILES, VISUALS)) -> Package:
    """Read and check one package; ``needs`` names the files the caller uses (default: all).

    Every missing needed file is listed in one :class:`DatasetError`; other damage raises naming
    the file. Files that are present but not needed are still read (and checksummed)."""
    directory = ref.location
    if not directory.is_dir():
        raise DatasetError(directory, "package directory is missing")
    needs = tuple(dict.fromkeys((*needs, *SCORING_FILES)))
    missing = _missing(directory, needs)
    if missing:
        if len(missing) == 1:
            raise DatasetError(directory / missing[0], "file is missing")
        raise DatasetError(directory, f"{len(missing)} needed files are missing: {', '.join(missing)}")
    meta = _read_json(directory / "meta.json") if (directory / "meta.json").is_file() else {}
    instance_data = _read_json(directory / "ground_truth/instance_data.json")
    solution_ref = _read_json(directory / "ground_truth/solution_ref.json")
    for path, value in (
        (directory / "meta.json", meta),
        (directory / "ground_truth/instance_data.json", instance_data),
        (directory / "ground_truth/solution_ref.json", solution_ref),
    ):
        if not isinstance(value, dict):
            raise DatasetError(path, "top-level JSON value is not an object")
    if "status" not in solution_ref:
        raise DatasetError(directory / "ground_truth/solution_ref.json", "no 'status' field")
    if reference_value(solution_ref) is None and str(solution_ref["status"]).lower() not in (
        "infeasible",
        "feasible",
    ):
        raise DatasetError(directory / "ground_truth/solution_ref.json", "no numeric 'objective_value'")
    _verify_checksums(directory, meta)
    family, subcategory, difficulty, instance_id = ref.path
    return Package(
        directory=directory,
        family=family,
        subcategory=subcategory,
        difficulty=difficulty,
        instance_id=instance_id,
        task_text=_optional_text(directory / "task_input.txt"),
        visuals=_visuals(directory),
        instance_data=instance_data,
        solution_ref=solution_ref,
        meta=meta,
        math_model=_optional_text(directory / "ground_truth/math_model.md"),
        solver_ref=_optional_text(directory / "ground_truth/solver_ref.py"),
    )


def dataset_files(root: Path) -> list[Path]:
    """Every file the dataset identity covers, sorted by posix relative path: the root manifest
    and every file of every package (task text, visuals, instance, solution, meta, …).

    Hidden files (``.DS_Store`` in the official release) and hidden folders are left out: they
    differ between copies of the same data."""
    files = [root / MANIFEST] if (root / MANIFEST).is_file() else []
    for ref in discover(root):
        for path in ref.location.rglob("*"):
            rel = path.relative_to(ref.location)
            if path.is_file() and not any(part.startswith(".") for part in rel.parts):
                files.append(path)
    return sorted(set(files), key=lambda path: path.relative_to(root).as_posix())


def _git_commit(root: Path) -> str | None:
    """The commit checked out where ``root`` is a git clone of a release (its ``.git`` in the
    root or in the folder above, as the official repository keeps its data in ``dataset/``)."""
    for folder in (root, root.parent):
        git = folder / ".git"
        head = git / "HEAD"
        if not head.is_file():
            continue
        text = head.read_text(encoding="utf-8").strip()
        if not text.startswith("ref: "):
            return text or None
        ref = text.removeprefix("ref: ")
        loose = git / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
        packed = git / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                if line.endswith(" " + ref):
                    return line.split(" ", 1)[0]
        return None
    return None


def fingerprint(root: Path) -> dict[str, str]:
    """Name, version and a content hash of a dataset root, for the run manifest.

    The hash covers every file :func:`dataset_files` lists (relative path, size and bytes of
    each, in path order), so editing any instance, solution, text or visual changes it, and the
    same files give the same hash on any machine. The version is the manifest's, else the commit
    of a git clone of the release, else ``unversioned``."""
    digest = hashlib.sha256()
    files = dataset_files(root)
    for path in files:
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    name, version = root.name, "unversioned"
    manifest_path = root / MANIFEST
    if manifest_path.is_file():
        manifest = _read_json(manifest_path)
        if isinstance(manifest, dict):
            name, version = str(manifest.get("dataset", name)), str(manifest.get("version", version))
    if version == "unversioned":
        commit = _git_commit(root)
        if commit:
            version = f"git-{commit}"
    packages = len(discover(root))
    return {
        "name": name,
        "version": version,
        "sha256": digest.hexdigest(),
        "hashed": f"{len(files)} files: every file of the {packages} packages"
        + (" and manifest.json" if manifest_path.is_file() else "")
        + " (relative path, size and bytes; hidden files left out)",
    }
