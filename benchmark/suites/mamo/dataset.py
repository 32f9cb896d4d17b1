"""Reading Mamo datasets: the public release's JSONL files and our fixtures, one format for both.

Each line of a ``*.jsonl`` file is one question: ``id`` (restarting at 1 in every file, so a case is
keyed on the file and the id), ``Question``, ``Answer`` (a numeric string whose decimals set the
tolerance), ``Category`` (``ordinary_differential_equation`` or ``optimization``) and ``Type``. Our
fixtures add fields the release lacks, chiefly ``reference`` (the artifact the oracle answers with:
Python that prints y(t0), or a CPLEX ``.lp`` file); external data has none, so the oracle cannot run
there and says so per case.

A dataset is a directory (every ``*.jsonl`` below it, in path order) or a single ``.jsonl`` file.
Listing reads each line's id, Category and Type only; loading a case checks every field and raises
:class:`DatasetError` naming ``FILE:LINE`` when something is wrong, so one damaged line is one
errored case, not a failed run.

Listing also warns (:class:`ConflictingAnswersWarning`, once per group) about questions a model
cannot tell apart: the same Category and Question text (so the very same prompt) with different
Answers. No answer can be right for all of them; the public release's ODE file has one such group of
three (ids 317, 318 and 319 of ``mamo_ode.jsonl``: three brine tanks, one question text, answers
0.101, 4.31 and 17.3), and its LP files have none.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.cases import InstanceRef
from benchmark.jsonl import jsonl_files, numbered_objects
from benchmark.suites.mamo.comparison import AnswerFormatError, answer_decimals
from benchmark.verdict import DatasetError

SUITE_NAME = "mamo"
MANIFEST = "manifest.json"
ODE = "ordinary_differential_equation"
OPTIMIZATION = "optimization"
#: Type → Category, in the paper's order (Table 4's columns).
TYPES: dict[str, str] = {
    "first_order_equation": ODE,
    "second_order_equation": ODE,
    "system_equation": ODE,
    "easy_lp": OPTIMIZATION,
    "complex_lp": OPTIMIZATION,
}
#: The ``difficulty`` label (markers, the by-difficulty table): ODE order and system size, LP level.
DIFFICULTY: dict[str, str] = {
    "first_order_equation": "easy",
    "second_order_equation": "medium",
    "system_equation": "hard",
    "easy_lp": "easy",
    "complex_lp": "hard",
}


@dataclass(frozen=True)
class MamoCase:
    """One question, checked."""

    file: Path
    line: int
    case_id: str
    question: str
    answer: str
    category: str
    type: str
    reference: str | None
    fields: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def is_ode(self) -> bool:
        return self.category == ODE


def _case_id(path: Path, number: int, obj: dict[str, Any]) -> str:
    raw = obj.get("id")
    if isinstance(raw, bool) or not isinstance(raw, int | str) or str(raw).strip() in ("", ".", ".."):
        raise DatasetError(f"{path}:{number}", f"'id' must be an integer or a non-empty string, got {raw!r}")
    text = str(raw).strip()
    if "/" in text or any(c.isspace() for c in text):
        raise DatasetError(f"{path}:{number}", f"'id' {text!r} may not contain '/' or spaces")
    return text


class ConflictingAnswersWarning(UserWarning):
    """Questions whose model input is identical but whose expected answers differ."""


def conflicting_answers(root: Path) -> list[str]:
    """One line per group of questions under ``root`` with the same Category and Question text (the
    same prompt) but different Answers, naming the file, lines, ids and answers."""
    groups: dict[tuple[object, object], list[tuple[Path, int, object, object]]] = defaultdict(list)
    for path in jsonl_files(root, recursive=True):
        for number, obj in numbered_objects(path):
            question = obj.get("Question")
            if isinstance(question, str):
                key = (obj.get("Category"), " ".join(question.split()))
                groups[key].append((path, number, obj.get("id"), obj.get("Answer")))
    found = []
    for members in groups.values():
        answers = [str(answer).strip() for *_, answer in members]
        if len(set(answers)) < 2:
            continue
        where = ", ".join(f"{path}:{number} (id {case_id})" for path, number, case_id, _ in members)
        found.append(
            f"{len(members)} questions have the same text, so the same prompt, but different answers "
            f"({', '.join(answers)}): {where}; no reply can be right for all of them"
        )
    return found


def discover(root: Path) -> list[InstanceRef]:
    """Every question under ``root``, keyed ``mamo/<file path without .jsonl>/<id>``, in file order;
    warns about :func:`conflicting_answers`."""
    refs: list[InstanceRef] = []
    base = root if root.is_dir() else root.parent
    for message in conflicting_answers(root):
        warnings.warn(message, ConflictingAnswersWarning, stacklevel=2)
    for path in jsonl_files(root, recursive=True):
        rel = path.relative_to(base).with_suffix("").parts
        seen: dict[str, int] = {}
        for number, obj in numbered_objects(path):
            case_id = _case_id(path, number, obj)
            if case_id in seen:
                raise DatasetError(f"{path}:{number}", f"id {case_id} already used on line {seen[case_id]}")
            seen[case_id] = number
            kind = str(obj.get("Type", "unknown"))
            refs.append(
                InstanceRef(
                    suite=SUITE_NAME,
                    path=(*rel, case_id),
                    labels={
                        "family": str(obj.get("Category", "unknown")),
                        "subcategory": kind,
                        "difficulty": DIFFICULTY.get(kind, "unknown"),
                        "needs": _needs(obj),
                        "instance_id": case_id,
                        "file": "/".join(rel),
                    },
                    location=path,
                )
            )
    return refs


def _needs(obj: dict[str, Any]) -> str:
    """The per-case difficulty: what a question needs beyond transcription (``direct`` for none)."""
    needs = obj.get("needs")
    if not isinstance(needs, list) or not needs:
        return "direct" if isinstance(needs, list) else "unknown"
    return "+".join(str(n) for n in needs)


def load_case(ref: InstanceRef) -> MamoCase:
    """Read and check the question ``ref`` names; damage raises :class:`DatasetError` at FILE:LINE."""
    path, case_id = ref.location, ref.path[-1]
    found = [(n, obj) for n, obj in numbered_objects(path) if str(obj.get("id", "")).strip() == case_id]
    if not found:
        raise DatasetError(path, f"no line with id {case_id}")
    number, obj = found[0]
    where = f"{path}:{number}"
    for name in ("Question", "Answer", "Category", "Type"):
        if not isinstance(obj.get(name), str) or not obj[name].strip():
            raise DatasetError(where, f"'{name}' must be a non-empty string")
    kind, category = obj["Type"], obj["Category"]
    if kind not in TYPES:
        raise DatasetError(where, f"unknown Type {kind!r}; expected one of {', '.join(TYPES)}")
    if TYPES[kind] != category:
        raise DatasetError(where, f"Type {kind} belongs to Category {TYPES[kind]}, not {category!r}")
    try:
        answer_decimals(obj["Answer"])
    except AnswerFormatError as exc:
        raise DatasetError(where, str(exc)) from None
    reference = obj.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise DatasetError(where, "'reference' must be a string when present")
    return MamoCase(
        file=path,
        line=number,
        case_id=case_id,
        question=obj["Question"],
        answer=obj["Answer"].strip(),
        category=category,
        type=kind,
        reference=reference,
        fields=obj,
    )


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
    base = root if root.is_dir() else root.parent
    for path in jsonl_files(root, recursive=True):
        digest.update(path.relative_to(base).as_posix().encode())
        digest.update(path.read_bytes())
    return {"name": name, "version": version, "sha256": digest.hexdigest()}
