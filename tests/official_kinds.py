"""The kinds of answer to a shipped official package on which our ``--scoring=official`` is
compared with the release's scorer.

One construction serves both sides of the comparison: ``scripts/official_verdicts.py`` scores these
answers with the release's own scorer and writes its verdicts to
``tests/data/official_mmopt/official_verdicts.json``; ``tests/test_official_answer_kinds.py``
scores the same answers with ours and expects those verdicts. The kinds:

- ``reference``: the package's ``solution_ref.json`` as is;
- ``objective_x1.01`` / ``objective_x1.0001``: every numeric objective key scaled by the factor;
- ``infeasible_decision``: one decision changed to break a constraint (``mutants.json``);
- ``decisions_missing``: only the status and the objective keys;
- ``objective_missing``: the objective keys left out;
- ``objective_na``: the objective keys set to ``"n/a"``;
- ``wrong_type:<field>``: one decision field of the reference (a table or a list) replaced by
  ``"n/a"``, for every such field.

A feasibility-type package (its answer is a status) has no objective, so the objective kinds do
not apply to it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from benchmark.suites.mmopt.feasibility import is_feasibility_type
from benchmark.suites.mmopt.package import SETTING_FILES, Package, discover, load_package

SAMPLE = Path(__file__).parent / "data" / "official_mmopt"
#: Where the release's verdicts on these answers are kept (written by scripts/official_verdicts.py).
VERDICTS_FILE = "official_verdicts.json"
#: The reference's objective keys (the numbers the objective kinds change or remove).
OBJECTIVE_KEYS = ("objective_exact", "objective", "objective_value", "total_cost")
FIXED_KINDS = (
    "reference",
    "objective_x1.01",
    "objective_x1.0001",
    "infeasible_decision",
    "decisions_missing",
    "objective_missing",
    "objective_na",
)
WRONG_TYPE = "wrong_type:"


def packages(sample: Path = SAMPLE) -> list[Package]:
    """The shipped packages of ``sample``, loaded as a Stage-1 case loads them."""
    return [load_package(ref, SETTING_FILES["stage1"]) for ref in discover(sample)]


def mutants(sample: Path = SAMPLE) -> dict[str, Any]:
    """``mutants.json`` of ``sample``: per package key, its infeasible-decision mutant."""
    loaded: dict[str, Any] = json.loads((sample / "mutants.json").read_text(encoding="utf-8"))
    return loaded


def package_key(package: Package) -> str:
    """``family/subcategory/difficulty/instance_id``, the key of ``mutants.json`` and the verdicts."""
    return "/".join((package.family, package.subcategory, package.difficulty, package.instance_id))


def decision_fields(package: Package) -> list[str]:
    """The reference's top-level decision fields: tables and lists (objectives are numbers)."""
    return [key for key, value in package.solution_ref.items() if isinstance(value, dict | list)]


def kinds(package: Package) -> list[str]:
    """The kinds that apply to ``package``, in a stable order."""
    fixed: tuple[str, ...] = FIXED_KINDS
    if is_feasibility_type(package.solution_ref):
        fixed = ("reference", "infeasible_decision", "decisions_missing")
    return [*fixed, *(WRONG_TYPE + field for field in decision_fields(package))]


def answer(package: Package, kind: str, mutant_specs: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``kind`` to ``package`` (a fresh copy, safe to score and mutate)."""
    reference = copy.deepcopy(package.solution_ref)
    objective_keys = [k for k in OBJECTIVE_KEYS if isinstance(reference.get(k), int | float)]
    if kind == "reference":
        return reference
    if kind == "infeasible_decision":
        spec = mutant_specs[package_key(package)]["infeasible_decision"]
        target = reference
        for step in spec["path"][:-1]:
            target = target[step]
        target[spec["path"][-1]] = spec["value"]
        return reference
    if kind == "decisions_missing":
        return {k: reference[k] for k in ("status", *objective_keys) if k in reference}
    if kind.startswith(WRONG_TYPE):
        return {**reference, kind.removeprefix(WRONG_TYPE): "n/a"}
    if kind.startswith("objective_x"):
        factor = float(kind.removeprefix("objective_x"))
        return {**reference, **{k: reference[k] * factor for k in objective_keys}}
    if kind == "objective_missing":
        return {k: v for k, v in reference.items() if k not in objective_keys}
    if kind == "objective_na":
        return {**reference, **dict.fromkeys(objective_keys, "n/a")}
    raise ValueError(f"unknown answer kind {kind!r}")
