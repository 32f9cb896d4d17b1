"""Held-out data (issue 25): does the model a candidate wrote follow its data, or only fit the data
it was shown?

Every base task ships unseen data instances (same schema, other sizes and values, each verified; see
``generation.py``). A candidate names its own sets and parameters, so the harness learns the names
from the candidate's files: glpsol displays every set and parameter the candidate's data file
assigns (:func:`dump_model`, run in the sandbox with ``--check``), and each one is matched to the
shown instance's entity with the same contents (:func:`map_entities`): a set by its members, a
parameter by its values key by key (either index order of a two-dimensional one), a scalar also to
a set's size. The unseen data file then gives every mapped name the unseen instance's values, in the
candidate's own names (:func:`unseen_data`); a name that matches nothing keeps the value it had,
and the record says so (``kept``). A model with a value written into it instead of its data, or a
constant objective, gives another optimum there: ``model_data_coupling``.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Any

from benchmark.suites.nldata.entities import declarations, tokens
from benchmark.suites.nldata.records import number
from benchmark.suites.nldata.statements import statement_spans

DUMP_BEGIN = "NLDATA_DUMP_BEGIN"
DUMP_END = "NLDATA_DUMP_END"
Key = tuple[str, ...]


@dataclass(frozen=True)
class Instance:
    """One data instance of a base task: sets (members in order) and every value some setting shows
    (parameters, derivation components, distractors), keyed by member tuples."""

    objective: float
    sets: dict[str, tuple[str, ...]]
    params: dict[str, dict[Key, float]]

    @classmethod
    def from_json(cls, raw: dict[str, Any], objective: float) -> Instance:
        sets = {str(s["name"]): tuple(str(m) for m in s["members"]) for s in raw["sets"]}
        params: dict[str, dict[Key, float]] = {}
        for p in [*raw["params"], *raw.get("other_params", [])]:
            width = len(p["index"])
            params[str(p["name"])] = {
                tuple(str(k) for k in row[:width]): float(row[width]) for row in p["values"]
            }
        return cls(objective, sets, params)

    def scalar(self, name: str) -> float:
        """A scalar the data may state as a parameter: a parameter's value, or ``card(S)``."""
        if name.startswith("card(") and name.endswith(")"):
            return float(len(self.sets[name[5:-1]]))
        return self.params[name][()]


@dataclass(frozen=True)
class Dumped:
    """What glpsol displayed of the candidate's data: sets (members) and parameters (values)."""

    sets: dict[str, tuple[str, ...]]
    params: dict[str, dict[Key, float | str]]


def data_names(model: str, data: str) -> list[str]:
    """The sets and parameters the model declares and the data file (or the model's own ``data;``
    section) mentions: the names the candidate gives values to."""
    mentioned = {value for value, _ in tokens(data)}
    mentioned |= {value for value, _ in tokens(_data_section(model))}
    return [
        d.name
        for d in declarations(model)
        if d.kind in ("set", "parameter") and d.name in mentioned and re.fullmatch(r"\w+", d.name)
    ]


def _split_at_data(model: str) -> tuple[str, str]:
    """(the model part, its own ``data;`` section and ``end;``, if any)."""
    for word, begin, _ in statement_spans(model):
        if word.lower() in ("data", "end"):
            return model[:begin], model[begin:]
    return model, ""


def _data_section(model: str) -> str:
    return _split_at_data(model)[1]


def model_without_data(model: str) -> str:
    """The model part alone, for a run on a data file of our own."""
    return _split_at_data(model)[0]


def dump_model(model: str, names: list[str]) -> str:
    """The (rewritten) model with our display of ``names`` between two markers, before any data
    section of its own: run with ``--check``, glpsol prints the values the data gave them."""
    head, tail = _split_at_data(model)
    shown = "".join(f"display {name};\n" for name in names)
    return f'{head}\nprintf "{DUMP_BEGIN}\\n";\n{shown}printf "{DUMP_END}\\n";\n{tail}'


_ASSIGNED = re.compile(r"^(\w+)(?:\[(.*)\])? = (.*)$")


def _symbol(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _value(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return _symbol(text)


def parse_dump(log: str) -> Dumped | None:
    """The displayed sets and parameters between the markers; None when the markers are missing."""
    if DUMP_BEGIN not in log or DUMP_END not in log:
        return None
    body = log.split(DUMP_BEGIN, 1)[1].split(DUMP_END, 1)[0]
    sets: dict[str, list[str]] = {}
    params: dict[str, dict[Key, float | str]] = {}
    current: str | None = None
    for line in body.splitlines():
        if not line.strip() or line.startswith("Display statement"):
            continue
        if match := re.fullmatch(r"(\w+):", line.strip()):
            current = match.group(1)
            sets[current] = []
            continue
        if line.startswith(" ") and current is not None:
            sets[current].extend(_symbol(m) for m in line.split())
            continue
        current = None
        if match := _ASSIGNED.match(line.strip()):
            name, key, value = match.groups()
            parts = tuple(_symbol(k) for k in key.split(",")) if key else ()
            params.setdefault(name, {})[parts] = _value(value)
    return Dumped({k: tuple(v) for k, v in sets.items()}, params)


def _same(a: float | str, b: float) -> bool:
    return isinstance(a, float) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _param_matches(values: dict[Key, float | str], instance: Instance) -> list[tuple[str, bool]]:
    """(gold name, transposed) of every instance entity whose values the candidate's equal: every key
    the candidate gave is one of the entity's, with the same value (defaults may leave some out)."""
    found: list[tuple[str, bool]] = []
    width = len(next(iter(values)))
    if width == 0:
        value = values[()]
        names = [n for n, v in instance.params.items() if () in v]
        names += [f"card({s})" for s in instance.sets]
        return [(n, False) for n in names if _same(value, instance.scalar(n))]
    for name, gold in instance.params.items():
        if not gold or len(next(iter(gold))) != width:
            continue
        for transposed in (False, True) if width == 2 else (False,):
            keyed = {(k[::-1] if transposed else k): v for k, v in values.items()}
            if all(k in gold and _same(v, gold[k]) for k, v in keyed.items()):
                found.append((name, transposed))
    return found


def _prefer(candidate: str, matches: list[str], taken: set[str]) -> str:
    """Of several equal matches: the one named like the candidate's name (exact, then closest by
    spelling), entities no other name has taken first; ties keep data order."""
    ranked = sorted(
        matches,
        key=lambda m: (
            m.lower() != candidate.lower(),
            m in taken,
            -difflib.SequenceMatcher(None, candidate.lower(), m.lower()).ratio(),
        ),
    )
    return ranked[0]


@dataclass(frozen=True)
class Mapping:
    """Candidate name → how the unseen data gives it a value."""

    sets: dict[str, str]
    params: dict[str, tuple[str, bool]]
    kept: dict[str, str]
    ambiguous: dict[str, list[str]]

    def as_record(self) -> dict[str, Any]:
        return {
            "sets": self.sets,
            "params": {k: name + (" (transposed)" if t else "") for k, (name, t) in self.params.items()},
            "kept": self.kept,
            "ambiguous": self.ambiguous,
        }


def map_entities(dumped: Dumped, shown: Instance) -> Mapping:
    """Match every displayed set and parameter to the shown instance's entity with the same contents;
    names with several equal matches are settled after the unambiguous ones (``ambiguous`` records
    what they could have been)."""
    sets: dict[str, str] = {}
    params: dict[str, tuple[str, bool]] = {}
    kept: dict[str, str] = {}
    ambiguous: dict[str, list[str]] = {}
    for name, members in dumped.sets.items():
        matches = [gold for gold, m in shown.sets.items() if set(m) == set(members)]
        if matches:
            sets[name] = _prefer(name, matches, set(sets.values()))
        else:
            kept[name] = "no set of the data has these members"
    found = {name: _param_matches(values, shown) for name, values in dumped.params.items() if values}
    for name in sorted(found, key=lambda n: len(found[n])):
        if not found[name]:
            kept[name] = "no value of the data equals it"
            continue
        names = [n for n, _ in found[name]]
        if len(names) > 1:
            ambiguous[name] = names
        chosen = _prefer(name, names, {gold for gold, _ in params.values()})
        params[name] = next(m for m in found[name] if m[0] == chosen)
    return Mapping(dict(sorted(sets.items())), dict(sorted(params.items())), kept, ambiguous)


def _data_symbol(value: str | float) -> str:
    if isinstance(value, float):
        return number(value)
    if re.fullmatch(r"[A-Za-z0-9_.+-]+|\(.*\)", value):
        return value
    return "'" + value.replace("'", "''") + "'"


def declared_names(model: str) -> list[str]:
    """Every set and parameter the model declares (computed ones too: EF1 matches them by value)."""
    return [
        d.name for d in declarations(model) if d.kind in ("set", "parameter") and re.fullmatch(r"\w+", d.name)
    ]


def unseen_data(mapping: Mapping, dumped: Dumped, instance: Instance, names: list[str] | None = None) -> str:
    """A data file in the candidate's names with the unseen instance's values (kept names as shown);
    ``names``, when given, limits it to what the candidate's data file assigns."""
    lines = ["data;"]
    keep = set(names) if names is not None else set(dumped.sets) | set(dumped.params)
    dumped = Dumped(
        {k: v for k, v in dumped.sets.items() if k in keep},
        {k: v for k, v in dumped.params.items() if k in keep},
    )
    for name, members in dumped.sets.items():
        chosen = instance.sets[mapping.sets[name]] if name in mapping.sets else members
        lines.append(f"set {name} := {' '.join(_data_symbol(m) for m in chosen)};")
    for name, values in dumped.params.items():
        if name in mapping.params:
            gold, transposed = mapping.params[name]
            if gold.startswith("card("):
                written: dict[Key, float | str] = {(): instance.scalar(gold)}
            else:
                written = {(k[::-1] if transposed else k): v for k, v in instance.params[gold].items()}
        else:
            written = values
        if () in written:
            lines.append(f"param {name} := {_data_symbol(written[()])};")
        elif written:
            body = " ".join(
                " ".join(_data_symbol(k) for k in key) + " " + _data_symbol(v) for key, v in written.items()
            )
            lines.append(f"param {name} := {body};")
    lines.append("end;")
    return "\n".join(lines) + "\n"
