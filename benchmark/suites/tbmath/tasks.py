"""Reading a task directory in the public TB-MathModel layout (the paper's release).

A task is a folder holding ``task.toml`` (``artifacts = [<required artifact path>]`` and
``[metadata]``), ``instruction.md`` (the prompt, verbatim), ``environment/data/`` (``problem.md``,
``output_schema.json``, ``attachments/…`` and ``figures/*.png``: everything the agent may see) and
``tests/score_config.json`` (the metric panel: per metric ``path``, ``oracle_value``, ``direction``,
``weight``, ``rel_scale``, ``abs_scale``). The oracle's artifact is ``tests/expected_result.json``
when the task ships one; our own tasks instead run their primary reference script.

Our tasks add, in the same layout: ``tests/reference_panel.json`` (the reference solutions and the
values each reports), ``tests/feasibility.json`` (the gate's checks), ``solution/references/*.py``
(one script per reference model) and three optional score-config keys: ``domain`` per metric,
``cardinality`` (list path → how many items the task asks for; surplus items are excluded) and
``unit_pinned: false`` per metric (with ``noncomparable_unit_anchor_above``, default 5: the
non-comparable-unit rule of §3.1 (ii)). A damaged file raises :class:`DatasetError` naming it.
"""

from __future__ import annotations

import functools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from benchmark.suites.tbmath import attachments, paths, release_config
from benchmark.suites.tbmath.scoring import NAMED_DOMAINS, Domain, Metric, Reference
from benchmark.verdict import DatasetError

DATA_DIR = PurePosixPath("environment/data")
SCORE_CONFIG = "tests/score_config.json"
PANEL_FILE = "tests/reference_panel.json"
FEASIBILITY_FILE = "tests/feasibility.json"
EXPECTED_RESULT = "tests/expected_result.json"
OFFICIAL_CHECKS = "tests/test_outputs.py"
STRING_CHECKS = "tests/string_checks.json"
NUMERIC_CHECKS = "tests/numeric_checks.json"
OFFICIAL_SCORER = "tests/score_result.py"
DEFAULT_UNIT_THRESHOLD = 5.0


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(path, f"cannot read the file ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(path, f"not valid JSON ({exc})") from None


def _domain(raw: Any, where: str) -> Domain | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        if raw not in NAMED_DOMAINS:
            raise DatasetError(
                where, f"unknown domain {raw!r}; one of {sorted(NAMED_DOMAINS)} or [low, high]"
            )
        low, high, low_open = NAMED_DOMAINS[raw]
        return Domain(low, high, low_open, raw)
    if isinstance(raw, list) and len(raw) == 2:
        low = -math.inf if raw[0] is None else release_config.finite(raw[0], f"{where}.domain[0]")
        high = math.inf if raw[1] is None else release_config.finite(raw[1], f"{where}.domain[1]")
        return Domain(low, high, False, "domain")
    raise DatasetError(where, f"domain must be a name or [low, high], got {raw!r}")


def _metrics(
    config: dict[str, Any], where: Path
) -> tuple[tuple[Metric, ...], tuple[release_config.ReleaseMetric, ...]]:
    raw_metrics = config.get("metrics")
    if not isinstance(raw_metrics, list) or not raw_metrics:
        raise DatasetError(where, "'metrics' must be a non-empty list")
    cardinality = config.get("cardinality") or {}
    if not isinstance(cardinality, dict):
        raise DatasetError(f"{where}: cardinality", "must be an object of list path → count")
    threshold = release_config.finite(
        config.get("noncomparable_unit_anchor_above"),
        f"{where}: noncomparable_unit_anchor_above",
        DEFAULT_UNIT_THRESHOLD,
    )
    fmt = release_config.config_format(config)
    metrics: list[Metric] = []
    declared: list[release_config.ReleaseMetric] = []
    for number, item in enumerate(raw_metrics):
        here = f"{where}: metrics[{number}]"
        entry = release_config.read_metric(item, fmt, here)
        try:
            paths.parse(entry.path)
            anchor = entry.oracle_value
            excluded = None
            if entry.unscored is not None:
                excluded = f"unscored: the release gives it no weight ({entry.unscored})"
            elif entry.weight == 0:
                excluded = "weight_zero: declared at weight 0, recorded but not scored"
            elif item.get("unit_pinned", True) is False and abs(anchor) > threshold:
                excluded = (
                    f"non_comparable_unit: the anchor {anchor:g} is a raw index with no schema-pinned unit "
                    f"(|anchor| > {threshold:g})"
                )
            prefix = paths.list_prefix(entry.path)
            if excluded is None and prefix is not None and prefix[0] in cardinality:
                count = cardinality[prefix[0]]
                wanted = int(release_config.finite(count, f"{where}: cardinality.{prefix[0]}"))
                if prefix[1] >= wanted:
                    excluded = f"surplus_item: the task asks for {wanted} items of {prefix[0]}"
            metrics.append(
                Metric(
                    path=entry.path,
                    anchor=anchor,
                    direction=entry.direction,
                    weight=entry.weight,
                    rel_scale=entry.rel_scale,
                    abs_scale=entry.abs_scale,
                    domain=_domain(item.get("domain"), here),
                    excluded=excluded,
                )
            )
            declared.append(entry)
        except DatasetError:
            raise
        except (KeyError, TypeError, ValueError, paths.PathError) as exc:
            raise DatasetError(here, f"bad metric entry ({exc})") from None
    return tuple(metrics), tuple(declared)


@dataclass(frozen=True)
class Timeouts:
    """``task.toml``'s ``[agent].timeout_sec`` and ``[verifier].timeout_sec`` (None when absent)."""

    agent_s: float | None = None
    verifier_s: float | None = None


@dataclass(frozen=True)
class Resources:
    """``task.toml``'s ``[environment]`` promises: CPUs, memory, whether internet is allowed."""

    cpus: float | None = None
    memory_mb: float | None = None
    allow_internet: bool = False

    def as_record(self) -> dict[str, Any]:
        return {"cpus": self.cpus, "memory_mb": self.memory_mb, "allow_internet": self.allow_internet}


def _resources(info: dict[str, Any], where: Path) -> Resources:
    block = info.get("environment") or {}
    if not isinstance(block, dict):
        raise DatasetError(f"{where}: [environment]", "must be a table")
    numbers = {}
    for key in ("cpus", "memory_mb"):
        raw = block.get(key)
        numbers[key] = None if raw is None else release_config.finite(raw, f"{where}: environment.{key}")
    internet = block.get("allow_internet", False)
    if not isinstance(internet, bool):
        raise DatasetError(f"{where}: environment.allow_internet", f"must be true or false, got {internet!r}")
    return Resources(numbers["cpus"], numbers["memory_mb"], internet)


def _timeouts(info: dict[str, Any], where: Path) -> Timeouts:
    found: list[float | None] = []
    for table in ("agent", "verifier"):
        block = info.get(table) or {}
        if not isinstance(block, dict):
            raise DatasetError(f"{where}: [{table}]", "must be a table")
        raw = block.get("timeout_sec")
        if raw is None:
            found.append(None)
            continue
        value = release_config.finite(raw, f"{where}: {table}.timeout_sec")
        if value <= 0:
            raise DatasetError(f"{where}: {table}.timeout_sec", f"must be > 0, got {raw!r}")
        found.append(value)
    return Timeouts(found[0], found[1])


@dataclass(frozen=True)
class ReferenceScript:
    reference_id: str
    script: Path
    model: str


@dataclass(frozen=True)
class Task:
    """One task, checked."""

    task_id: str
    root: Path
    instruction: str
    artifact_path: str  # relative to the agent's working directory
    metrics: tuple[Metric, ...]
    references: tuple[Reference, ...]
    reference_scripts: tuple[ReferenceScript, ...]
    primary_reference: str | None
    feasibility: tuple[dict[str, Any], ...] | None  # None: the task ships no gate
    schema: Any
    literature_split: bool
    metadata: dict[str, Any]
    config_format: str = "oriented"  # release_config.config_format of tests/score_config.json
    declared_metrics: tuple[release_config.ReleaseMetric, ...] = ()
    endpoints: release_config.Endpoints = field(default_factory=lambda: release_config.Endpoints(0.0, 1.0))
    timeouts: Timeouts = field(default_factory=lambda: Timeouts())
    resources: Resources = field(default_factory=lambda: Resources())
    missing_attachments: tuple[str, ...] = ()
    string_checks: tuple[release_config.Check, ...] = ()  # the release's identifier checks
    numeric_checks: tuple[release_config.Check, ...] = ()  # the release's paper-target checks

    @property
    def official_verifier(self) -> tuple[Path, Path] | None:
        """The task's own ``tests/test_outputs.py`` and ``tests/score_result.py``, when it ships both."""
        checks, scorer = self.root / OFFICIAL_CHECKS, self.root / OFFICIAL_SCORER
        return (checks, scorer) if checks.is_file() and scorer.is_file() else None

    @property
    def inferred_orientation(self) -> tuple[str, ...]:
        """Paths of scored metrics whose direction the config does not give (the default scoring
        assumes two-sided closeness for them)."""
        return tuple(
            m.path
            for m in self.declared_metrics
            if m.direction_source.startswith("inferred") and not m.unscored
        )

    @property
    def data_dir(self) -> Path:
        return self.root / DATA_DIR

    @property
    def expected_result(self) -> Path | None:
        path = self.root / EXPECTED_RESULT
        return path if path.is_file() else None

    def workspace_files(self) -> dict[str, bytes]:
        """What the agent's working directory starts with: ``data/…`` mirrored from environment/data."""
        files: dict[str, bytes] = {}
        for path in sorted(self.data_dir.rglob("*")):
            if path.is_file():
                files[f"data/{path.relative_to(self.data_dir).as_posix()}"] = path.read_bytes()
        return files

    def figures(self) -> list[Path]:
        return sorted((self.data_dir / "figures").glob("*.png"))


def artifact_relative(raw: str, task_id: str) -> str:
    """The release writes ``/root/results/<task>_result.json``; our agents work in a fresh directory,
    so an absolute path is taken relative to ``/root`` (or ``/``) and must stay inside it."""
    path = PurePosixPath(raw)
    if path.is_absolute():
        parts = path.parts[1:]
        if parts[:1] == ("root",):
            parts = parts[1:]
        path = PurePosixPath(*parts) if parts else PurePosixPath(f"results/{task_id}_result.json")
    if ".." in path.parts or not path.parts:
        raise ValueError(f"artifact path {raw!r} leaves the working directory")
    return path.as_posix()


def _references(root: Path) -> tuple[tuple[Reference, ...], tuple[ReferenceScript, ...], str | None]:
    path = root / PANEL_FILE
    if not path.is_file():
        return (), (), None
    panel = _json(path)
    if not isinstance(panel, dict) or not isinstance(panel.get("references"), list):
        raise DatasetError(path, "'references' must be a list")
    references: list[Reference] = []
    scripts: list[ReferenceScript] = []
    for number, item in enumerate(panel["references"]):
        here = f"{path}: references[{number}]"
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise DatasetError(here, "each reference needs a string 'id'")
        values = item.get("values") or {}
        if not isinstance(values, dict):
            raise DatasetError(here, "'values' must be an object of path → number")
        references.append(Reference(item["id"], values, item.get("exclusion_reason")))
        if isinstance(item.get("script"), str):
            script = root / item["script"]
            if not attachments.inside(script, root):
                raise DatasetError(f"{here}.script", f"{item['script']!r} leaves the task folder")
            if not script.is_file():
                raise DatasetError(here, f"script {item['script']} does not exist")
            scripts.append(ReferenceScript(item["id"], script, str(item.get("model", ""))))
    primary = panel.get("primary")
    if primary is not None and primary not in {r.reference_id for r in references}:
        raise DatasetError(path, f"primary reference {primary!r} is not in the panel")
    return tuple(references), tuple(scripts), primary


@functools.lru_cache(maxsize=64)
def load_task(root: Path) -> Task:
    toml_path = root / "task.toml"
    try:
        info = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(toml_path, f"cannot read the file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DatasetError(toml_path, f"not valid TOML ({exc})") from None
    artifacts = info.get("artifacts")
    if not isinstance(artifacts, list) or len(artifacts) != 1 or not isinstance(artifacts[0], str):
        raise DatasetError(toml_path, "'artifacts' must list exactly one artifact path")
    try:
        artifact = artifact_relative(artifacts[0], root.name)
    except ValueError as exc:
        raise DatasetError(toml_path, str(exc)) from None
    instruction_path = root / "instruction.md"
    try:
        instruction = instruction_path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(instruction_path, f"cannot read the file ({exc.strerror or exc})") from None
    config_path = root / SCORE_CONFIG
    config = _json(config_path)
    if not isinstance(config, dict):
        raise DatasetError(config_path, "the score configuration must be a JSON object")
    metrics, declared = _metrics(config, config_path)
    endpoints = release_config.read_endpoints(config, str(config_path))
    timeouts = _timeouts(info, toml_path)
    resources = _resources(info, toml_path)
    attachments.refuse_escaping_links(root, root / DATA_DIR)
    references, scripts, primary = _references(root)
    checks = {}
    for name, numeric in ((STRING_CHECKS, False), (NUMERIC_CHECKS, True)):
        path = root / name
        checks[name] = release_config.read_checks(_json(path), str(path), numeric) if path.is_file() else ()
    feasibility = None
    gate_path = root / FEASIBILITY_FILE
    if gate_path.is_file():
        gate = _json(gate_path)
        if not isinstance(gate, dict) or not isinstance(gate.get("checks"), list):
            raise DatasetError(gate_path, "'checks' must be a list")
        feasibility = tuple(gate["checks"])
    schema_path = root / DATA_DIR / "output_schema.json"
    schema = _json(schema_path) if schema_path.is_file() else None
    metadata = dict(info.get("metadata") or {})
    return Task(
        task_id=root.name,
        root=root,
        instruction=instruction,
        artifact_path=artifact,
        metrics=metrics,
        references=references,
        reference_scripts=scripts,
        primary_reference=primary,
        feasibility=feasibility,
        schema=schema,
        literature_split=bool(metadata.get("literature_split", False)),
        metadata=metadata,
        config_format=release_config.config_format(config),
        declared_metrics=declared,
        endpoints=endpoints,
        timeouts=timeouts,
        resources=resources,
        missing_attachments=attachments.missing(root, root / DATA_DIR, instruction),
        string_checks=checks[STRING_CHECKS],
        numeric_checks=checks[NUMERIC_CHECKS],
    )


def discover(root: Path) -> list[Path]:
    """Every task folder under ``root`` (a folder with ``task.toml``), sorted; ``root`` itself may be one."""
    if not root.is_dir():
        raise DatasetError(root, "dataset path does not exist or is not a directory")
    if (root / "task.toml").is_file():
        return [root]
    found = sorted(p.parent for p in root.rglob("task.toml") if not any(s.startswith(".") for s in p.parts))
    if not found:
        raise DatasetError(root, "no task.toml below the dataset directory")
    return found


def schema_violations(schema: Any, artifact: Any, where: str = "") -> list[str]:
    """Where ``artifact`` departs from a shape schema (the release's form: field → type name, a
    one-element list for "list of"); keys starting with ``$`` (our units table) are annotations."""
    out: list[str] = []
    label = where or "(root)"
    if isinstance(schema, dict):
        if not isinstance(artifact, dict):
            return [f"{label}: expected an object"]
        for key, sub in schema.items():
            if key.startswith("$"):
                continue
            child = f"{where}.{key}" if where else key
            if key not in artifact:
                out.append(f"{child}: missing")
            else:
                out.extend(schema_violations(sub, artifact[key], child))
        return out
    if isinstance(schema, list):
        if not isinstance(artifact, list):
            return [f"{label}: expected a list"]
        for index, item in enumerate(artifact):
            if schema:
                out.extend(schema_violations(schema[0], item, f"{where}[{index}]"))
        return out
    kind = str(schema).split()[0].strip(",;") if isinstance(schema, str) and schema.strip() else ""
    checks = {
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
    }
    if kind in checks and not checks[kind](artifact):
        out.append(f"{label}: expected {kind}, got {type(artifact).__name__}")
    return out
