"""The verified base record every task of one instance is derived from, and how its data is written.

A base record holds the instance's sets (ordered members), its parameters (values keyed by member
tuples), the gold AMPL model, and the domain's hooks for the transformations: the derivation it
supports, the parameters that may be predicted, and near-synonym distractor columns. From it come the
gold data file (:func:`data_file`), the data tables (:func:`tables`) and the numeric sentences of
the ``nl`` setting (:func:`numeric_sentences`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, ...]


def number(value: float) -> str:
    """A value as it appears in data files and tables: integers without a decimal point."""
    if isinstance(value, int) or (math.isfinite(value) and float(value).is_integer()):
        return str(int(value))
    return format(value, ".15g")


@dataclass(frozen=True)
class SetSpec:
    """A set, its members in order, the singular noun of one member and a table name."""

    name: str
    members: tuple[str, ...]
    noun: str
    plural: str


@dataclass(frozen=True)
class Param:
    """A parameter: ``index`` names its sets (empty for a scalar), ``text`` says what it is."""

    name: str
    index: tuple[str, ...]
    values: dict[Key, float]
    text: str

    @property
    def scalar(self) -> float:
        return self.values[()]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "index": list(self.index),
            "text": self.text,
            "values": [[*key, value] for key, value in self.values.items()],
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Param:
        index = tuple(raw["index"])
        values = {tuple(str(k) for k in row[: len(index)]): row[len(index)] for row in raw["values"]}
        return cls(raw["name"], index, values, raw["text"])


@dataclass(frozen=True)
class Derivation:
    """``target`` is computed from ``components`` by ``expression`` (AMPL, over ``dummies``); the
    sentence states the rule in words. Components may include parameters the model already has."""

    target: str
    dummies: tuple[str, ...]
    expression: str
    components: tuple[Param, ...]
    sentence: str


@dataclass(frozen=True)
class BaseRecord:
    """One verified instance before any transformation."""

    instance_id: str
    domain: str
    problem_type: str
    difficulty: str
    seed: int
    story: str
    sets: tuple[SetSpec, ...]
    params: tuple[Param, ...]
    model: str
    derivation: Derivation
    predictable: tuple[str, ...]
    distractors: tuple[Param, ...]
    objective: float | None = None
    checks: dict[str, Any] = field(default_factory=dict)

    def set(self, name: str) -> SetSpec:
        return next(s for s in self.sets if s.name == name)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def data_file(sets: tuple[SetSpec, ...], params: tuple[Param, ...] | list[Param]) -> str:
    """The AMPL data file: ``set S := ...;``, ``param p := key value ...;`` and matrix tables."""
    lines = ["data;", ""]
    for spec in sets:
        lines.append(f"set {spec.name} := {' '.join(spec.members)};")
    lines.append("")
    by_name = {s.name: s for s in sets}
    for param in params:
        if not param.index:
            lines.append(f"param {param.name} := {number(param.scalar)};")
        elif len(param.index) == 1:
            body = "\n".join(f"  {key[0]} {number(value)}" for key, value in param.values.items())
            lines.append(f"param {param.name} :=\n{body};")
        else:
            rows, cols = by_name[param.index[0]].members, by_name[param.index[1]].members
            header = f"param {param.name}: {' '.join(cols)} :="
            body = "\n".join(f"  {r} " + " ".join(number(param.values[(r, c)]) for c in cols) for r in rows)
            lines.append(f"{header}\n{body};")
    lines += ["", "end;", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Table:
    """A CSV-style data table: a name, a one-line description, column meanings and rows."""

    name: str
    description: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "columns": [list(c) for c in self.columns],
            "rows": [list(r) for r in self.rows],
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Table:
        return cls(
            raw["name"],
            raw["description"],
            tuple((str(a), str(b)) for a, b in raw["columns"]),
            tuple(tuple(str(c) for c in row) for row in raw["rows"]),
        )

    def render(self) -> str:
        lines = [f"Table {self.name}: {self.description}"]
        lines += [f"  column {name}: {meaning}" for name, meaning in self.columns]
        lines.append(",".join(name for name, _ in self.columns))
        lines += [",".join(row) for row in self.rows]
        return "\n".join(lines)


def tables(sets: tuple[SetSpec, ...], params: list[Param]) -> list[Table]:
    """One table per index set (its one-dimensional parameters as columns), one per two-dimensional
    parameter (rows × columns), and one for the scalars."""
    by_name = {s.name: s for s in sets}
    out: list[Table] = []
    for spec in sets:
        group = [p for p in params if p.index == (spec.name,)]
        if not group:
            continue
        columns = ((spec.noun, f"the {spec.noun}"), *((p.name, p.text) for p in group))
        rows = tuple((m, *(number(p.values[(m,)]) for p in group)) for m in spec.members)
        out.append(Table(spec.plural, f"one row per {spec.noun}", columns, rows))
    for param in params:
        if len(param.index) != 2:
            continue
        rows_set, cols_set = by_name[param.index[0]], by_name[param.index[1]]
        columns = (
            (rows_set.noun, f"the {rows_set.noun} (one row each)"),
            *((c, f"the value for {cols_set.noun} {c}") for c in cols_set.members),
        )
        rows = tuple((r, *(number(param.values[(r, c)]) for c in cols_set.members)) for r in rows_set.members)
        out.append(Table(param.name, f"{param.text}, by {rows_set.noun} and {cols_set.noun}", columns, rows))
    scalars = [p for p in params if not p.index]
    if scalars:
        rows = tuple((p.name, number(p.scalar), p.text) for p in scalars)
        columns = (("parameter", "name of the value"), ("value", "the value"), ("meaning", "what it is"))
        out.append(Table("scalars", "single values of the problem", columns, rows))
    return out


def numeric_sentences(sets: tuple[SetSpec, ...], params: tuple[Param, ...]) -> str:
    """The ``nl`` setting's data: every set and value written into the text."""
    lines = [f"The {s.plural} are {', '.join(s.members)}." for s in sets]
    for param in params:
        if not param.index:
            lines.append(f"The {param.text} is {number(param.scalar)}.")
        else:
            parts = ", ".join(f"{'/'.join(key)}: {number(value)}" for key, value in param.values.items())
            nouns = " / ".join(next(s.noun for s in sets if s.name == name) for name in param.index)
            lines.append(f"The {param.text} (by {nouns}) is {parts}.")
    return "\n".join(lines)
