"""What a pass means for one of our tasks: a rule by metric kind, not an O-Eval threshold.

O-Eval ≥ 1.0 means "reproduced the primary reference's numbers", which for an estimation target
rewards copying one estimate rather than being right. So ``tests/score_config.json`` may declare::

    "pass_rule": {"kind": "decision" | "estimation" | "mixed", "statement": "...",
                  "conditions": [...]}

with each condition one of

* ``{"path", "optimum": "min" | "max", "rel_tolerance", "abs_tolerance"}`` — a decision: the
  value must be *verified* (recomputed from the decisions by the gate) and no worse than the
  certified optimum (the metric's anchor, ``oracle_value``) by more than the tolerance;
* ``{"path", "truth", "rel_tolerance", "abs_tolerance", "basis"}`` — an estimate: within the
  tolerance of the value the generator used (``truth``), whichever reference is the anchor;
  ``basis`` says why the tolerance is what it is.

A case passes when the gate passes and every condition holds; O-Eval and the multi-reference
score are reported beside it. Tasks without a rule (the public release) keep ``--pass-o-eval``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.suites.tbmath import paths
from benchmark.suites.tbmath.scoring import Metric, as_number
from benchmark.verdict import DatasetError

SCORE_CONFIG = "tests/score_config.json"
KINDS: tuple[str, ...] = ("decision", "estimation", "mixed")


@dataclass(frozen=True)
class Condition:
    path: str
    target: float
    optimum: str | None  # "min" / "max" for a decision; None for an estimate against the truth
    rel_tolerance: float
    abs_tolerance: float
    basis: str = ""

    @property
    def width(self) -> float:
        return self.rel_tolerance * abs(self.target) + self.abs_tolerance

    def describe(self) -> str:
        if self.optimum == "min":
            return f"{self.path} ≤ {self.target:g} + {self.width:g} (certified minimum), recomputed"
        if self.optimum == "max":
            return f"{self.path} ≥ {self.target:g} − {self.width:g} (certified maximum), recomputed"
        return f"|{self.path} − {self.target:g}| ≤ {self.width:g} (generating truth)"

    def check(self, artifact: Any, verified: Collection[str]) -> str | None:
        """None when the condition holds, else why not."""
        found, value = paths.lookup(artifact, self.path)
        number = as_number(value) if found else None
        if number is None:
            return f"{self.path}: no number reported"
        if self.optimum is not None and self.path not in verified:
            return f"{self.path} = {number:g} is not recomputed from the decisions"
        shown = f"{self.path} = {number:g}"
        if self.optimum == "min" and number > self.target + self.width:
            return f"{shown} is above the certified minimum {self.target:g} (±{self.width:g})"
        if self.optimum == "max" and number < self.target - self.width:
            return f"{shown} is below the certified maximum {self.target:g} (±{self.width:g})"
        if self.optimum is None and abs(number - self.target) > self.width:
            return f"{shown} is off the generating truth {self.target:g} by more than {self.width:g}"
        return None


@dataclass(frozen=True)
class PassRule:
    kind: str
    statement: str
    conditions: tuple[Condition, ...]

    def failures(self, artifact: Any, verified: Collection[str]) -> list[str]:
        return [reason for c in self.conditions if (reason := c.check(artifact, verified)) is not None]

    def as_record(self) -> dict[str, Any]:
        conditions = [c.describe() for c in self.conditions]
        return {"kind": self.kind, "statement": self.statement, "conditions": conditions}


def _number(raw: Any, where: str) -> float:
    number = as_number(raw)
    if number is None:
        raise DatasetError(where, f"must be a finite number, got {raw!r}")
    return number


def parse(raw: Any, metrics: Sequence[Metric], where: str) -> PassRule:
    if not isinstance(raw, Mapping) or raw.get("kind") not in KINDS:
        raise DatasetError(f"{where}.kind", f"one of {', '.join(KINDS)}")
    items = raw.get("conditions")
    if not isinstance(items, list) or not items:
        raise DatasetError(f"{where}.conditions", "a non-empty list of conditions")
    anchors = {m.path: m.anchor for m in metrics}
    conditions: list[Condition] = []
    for number, item in enumerate(items):
        here = f"{where}.conditions[{number}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            raise DatasetError(here, "each condition needs a string 'path'")
        optimum = item.get("optimum")
        if optimum is not None:
            if optimum not in ("min", "max"):
                raise DatasetError(f"{here}.optimum", f"'min' or 'max', got {optimum!r}")
            if item["path"] not in anchors:
                raise DatasetError(f"{here}.path", f"{item['path']} is not a scored metric (no optimum)")
            target = anchors[item["path"]]
        elif "truth" in item:
            target = _number(item["truth"], f"{here}.truth")
            if not str(item.get("basis", "")).strip():
                raise DatasetError(f"{here}.basis", "an estimate's tolerance needs its stated basis")
        else:
            raise DatasetError(here, "a condition needs 'optimum' (a decision) or 'truth' (an estimate)")
        conditions.append(
            Condition(
                path=item["path"],
                target=target,
                optimum=optimum,
                rel_tolerance=_number(item.get("rel_tolerance", 0), f"{here}.rel_tolerance"),
                abs_tolerance=_number(item.get("abs_tolerance", 0), f"{here}.abs_tolerance"),
                basis=str(item.get("basis", "")),
            )
        )
    return PassRule(str(raw["kind"]), str(raw.get("statement", "")), tuple(conditions))


def load(root: Path, metrics: Sequence[Metric]) -> PassRule | None:
    """The task's rule, or None when its score configuration declares none."""
    path = root / SCORE_CONFIG
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetError(path, f"cannot read the score configuration ({exc})") from None
    if not isinstance(config, dict) or "pass_rule" not in config:
        return None
    return parse(config["pass_rule"], metrics, f"{path}: pass_rule")
