"""Reading NLData2Opt fixtures: one JSONL file per domain, one line per verified base record holding
its nine settings (see ``generation.py`` for how they are made and checked).

Listing reads each line's identity fields; loading a task checks the fields it needs and raises
:class:`DatasetError` naming ``FILE:LINE`` and the problem, so a damaged line is one errored case.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.cases import InstanceRef
from benchmark.jsonl import jsonl_files, numbered_objects
from benchmark.suites.nldata.heldout import Instance
from benchmark.suites.nldata.records import Table
from benchmark.suites.nldata.settings import SETTINGS
from benchmark.verdict import DatasetError

SUITE_NAME = "nldata"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Task:
    """One base record under one setting, checked."""

    where: str
    instance_id: str
    setting: str
    objective: float
    description: str
    tables: tuple[Table, ...]
    gold_model: str
    gold_data: str
    predictions: tuple[dict[str, str], ...]
    derived: str | None
    shown: Instance
    """The data the task shows, every value any setting shows (for mapping the candidate's names)."""
    unseen: tuple[Instance, ...]
    """The held-out data instances with their verified optima."""


def _identity(where: str, obj: dict[str, Any]) -> tuple[str, str, str, str]:
    fields = []
    for name in ("id", "domain", "problem_type", "difficulty"):
        value = obj.get(name)
        if not isinstance(value, str) or not value or "/" in value or any(c.isspace() for c in value):
            raise DatasetError(
                where, f"'{name}' must be a non-empty string without '/' or spaces, got {value!r}"
            )
        fields.append(value)
    return fields[0], fields[1], fields[2], fields[3]


def discover(root: Path) -> list[InstanceRef]:
    """Every base record, keyed ``nldata/<domain>/<difficulty>/<id>``, in file then line order."""
    refs: list[InstanceRef] = []
    seen: dict[str, str] = {}
    for path in jsonl_files(root):
        for number, obj in numbered_objects(path):
            where = f"{path}:{number}"
            instance_id, domain, problem_type, difficulty = _identity(where, obj)
            if instance_id in seen:
                raise DatasetError(where, f"id {instance_id} already used at {seen[instance_id]}")
            seen[instance_id] = where
            refs.append(
                InstanceRef(
                    suite=SUITE_NAME,
                    path=(domain, difficulty, instance_id),
                    labels={
                        "family": problem_type,
                        "subcategory": domain,
                        "difficulty": difficulty,
                        "instance_id": instance_id,
                    },
                    location=path,
                )
            )
    return refs


def _text(where: str, raw: dict[str, Any], name: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(where, f"'{name}' must be a non-empty string")
    return value


def load_task(ref: InstanceRef, setting: str) -> Task:
    """The task of ``ref`` under ``setting``; damage raises :class:`DatasetError` at FILE:LINE."""
    instance_id = ref.path[-1]
    found = [(n, obj) for n, obj in numbered_objects(ref.location) if obj.get("id") == instance_id]
    if not found:
        raise DatasetError(ref.location, f"no line with id {instance_id}")
    number, obj = found[0]
    where = f"{ref.location}:{number}"
    objective = obj.get("objective")
    if isinstance(objective, bool) or not isinstance(objective, int | float):
        raise DatasetError(where, f"'objective' must be a number, got {objective!r}")
    settings = obj.get("settings")
    if not isinstance(settings, dict) or not isinstance(settings.get(setting), dict):
        raise DatasetError(where, f"no setting {setting!r} (settings: {', '.join(SETTINGS)})")
    raw = settings[setting]
    try:
        tables = tuple(Table.from_json(t) for t in raw.get("tables", []))
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(where, f"setting {setting}: malformed table ({exc!r})") from None
    predictions = raw.get("predictions", [])
    if not isinstance(predictions, list) or not all(isinstance(p, dict) for p in predictions):
        raise DatasetError(where, f"setting {setting}: 'predictions' must be a list of objects")
    shown, unseen = _instances(where, obj, float(objective))
    return Task(
        where=where,
        instance_id=instance_id,
        setting=setting,
        objective=float(objective),
        description=_text(where, raw, "description"),
        tables=tables,
        gold_model=_text(where, raw, "gold_model"),
        gold_data=_text(where, raw, "gold_data"),
        predictions=tuple(predictions),
        derived=raw.get("derived"),
        shown=shown,
        unseen=unseen,
    )


def _instances(where: str, obj: dict[str, Any], objective: float) -> tuple[Instance, tuple[Instance, ...]]:
    """The shown data (``base``) and the held-out instances (``unseen``, each with its optimum)."""
    try:
        shown = Instance.from_json(obj["base"], objective)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise DatasetError(where, f"'base' is malformed ({exc!r})") from None
    raw_unseen = obj.get("unseen")
    if not isinstance(raw_unseen, list) or not raw_unseen:
        raise DatasetError(where, "'unseen' must be a non-empty list of held-out data instances")
    unseen = []
    for position, raw in enumerate(raw_unseen):
        value = raw.get("objective") if isinstance(raw, dict) else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DatasetError(where, f"unseen[{position}]: 'objective' must be a number, got {value!r}")
        try:
            unseen.append(Instance.from_json(raw, float(value)))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise DatasetError(where, f"unseen[{position}] is malformed ({exc!r})") from None
    return shown, tuple(unseen)


def fingerprint(root: Path) -> dict[str, str]:
    """Name, version and content hash (manifest and every JSONL file) for the run manifest."""
    digest = hashlib.sha256()
    name, version = root.stem, "unversioned"
    manifest = root / MANIFEST if root.is_dir() else None
    if manifest is not None and manifest.is_file():
        raw = manifest.read_bytes()
        digest.update(raw)
        info = json.loads(raw)
        name, version = str(info.get("dataset", name)), str(info.get("version", version))
    for path in jsonl_files(root):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return {"name": name, "version": version, "sha256": digest.hexdigest()}
