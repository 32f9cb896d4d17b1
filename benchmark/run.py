"""A run's folder and its manifest: everything needed to reproduce or audit the run.

``reports/<run>/`` holds ``results.jsonl`` (one record per case), ``summary.json``,
``summary.md``, ``junit.xml`` and ``manifest.json`` (git revision, dataset version and hash, model,
decoding settings, sandbox, package versions, start and end time, the command line).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmark import HARNESS_VERSION
from benchmark.files import write_atomically
from benchmark.schema import SCHEMA_VERSION, RunManifest

MANIFEST_FILE = "manifest.json"
_PACKAGES = (
    "pytest", "pytest-xdist", "pytest-timeout", "syrupy", "amplpy", "gurobipy", "ortools", "hypothesis",
    "openai", "numpy", "scipy", "networkx", "matplotlib", "highspy", "pulp", "pyscipopt",
)  # fmt: skip


@dataclass(frozen=True)
class RunPaths:
    root: Path

    @property
    def results(self) -> Path:
        return self.root / "results.jsonl"

    @property
    def summary_json(self) -> Path:
        return self.root / "summary.json"

    @property
    def summary_md(self) -> Path:
        return self.root / "summary.md"

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST_FILE

    @property
    def junit(self) -> Path:
        return self.root / "junit.xml"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def choose_run_dir(reports: Path, model: str, suite: str, report_dir: Path | None, resume: bool) -> Path:
    """``--report-dir`` when given; on ``--resume`` without it, the newest run of this model and
    suite; otherwise a fresh ``reports/<model>-<suite>-<timestamp>``."""
    if report_dir is not None:
        return report_dir
    prefix = f"{_slug(Path(model).stem if model.startswith('replay:') else model)}-{suite}-"
    if resume:
        earlier = sorted(p for p in reports.glob(prefix + "*") if (p / "results.jsonl").exists())
        if earlier:
            return earlier[-1]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-%f")
    return reports / f"{prefix}{stamp}"


def check_reuse(run_dir: Path, model: str, suite: str, resume: bool) -> None:
    """Refuse a run folder that holds another model's or suite's run: its records would be merged
    into one summary, crediting one model with the other's passes. ``--resume`` continues only a
    run of the same model and suite. Raises :class:`ValueError` naming both."""
    paths = RunPaths(run_dir)
    if not paths.manifest.exists():
        return
    try:
        manifest = read_manifest(paths)
    except ValueError as exc:
        raise ValueError(f"--report-dir {run_dir}: {paths.manifest} cannot be read ({exc})") from None
    previous_model = (manifest.get("model") or {}).get("alias")
    previous_suite = manifest.get("suite")
    if (previous_model, previous_suite) == (model, suite) or previous_model is None:
        return
    held = f"holds a run of model {previous_model} on suite {previous_suite}, not {model} on {suite}"
    if resume:
        raise ValueError(
            f"--resume --report-dir {run_dir}: that folder {held}; --resume continues a run of the "
            "same model and suite only"
        )
    raise ValueError(
        f"--report-dir {run_dir} {held}: its records would be merged into this run's summary; "
        "choose another --report-dir"
    )


def git_revision(root: Path) -> dict[str, Any]:
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    revision = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"revision": revision, "dirty": bool(status) if status is not None else None}


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def write_manifest(paths: RunPaths, manifest: Mapping[str, Any]) -> None:
    paths.root.mkdir(parents=True, exist_ok=True)
    body = {"schema_version": SCHEMA_VERSION, "harness_version": HARNESS_VERSION, **manifest}
    RunManifest.model_validate(body)  # a manifest later tools cannot read is a harness bug
    write_atomically(paths.manifest, json.dumps(body, indent=2, sort_keys=True, default=str) + "\n")


def read_manifest(paths: RunPaths) -> dict[str, Any]:
    if not paths.manifest.exists():
        return {}
    value = json.loads(paths.manifest.read_text(encoding="utf-8"))
    return RunManifest.model_validate(value).model_dump() if isinstance(value, dict) else {}
