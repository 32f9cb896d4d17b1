"""The nine settings (NLData2Opt §3.2, Fig. 5) as transformations of one verified base record.

* ``nl``: the story with every set and number written into the text; no tables.
* ``nl_data``: the story without numbers, plus CSV-style data tables.
* ``derivation``: one parameter is replaced in the tables by the data it is computed from, and the
  description states the rule; the gold model declares the components and computes the parameter.
* ``prediction`` / ``multi_prediction``: one (two) parameter(s) are replaced by a history table whose
  next value follows a stated pattern (linear trend, a four-period seasonal cycle, or one level
  change), with distractors: a missing entry and a row marked ``outlier``. The gold data file holds the
  predicted values, which are, by construction, the base record's values.
* every ``*_irr`` twin adds four distractor columns to the tables, chosen by the instance's seed from
  a pool (:func:`distractor_pool`): the domain's own near-synonyms and plausible attributes, and the
  same quantities at another time (last year, next season, last year's budget, an older average).
  No distractor's header or meaning says it does not apply; the story is what rules it out.

The validity criterion (§3.3) is checked in ``generation.py`` and again by the test suite: the gold
model and data of every setting, executed, give the base optimum, and every history table, read back
and extrapolated by :func:`extrapolate`, gives the values the gold data file uses.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from benchmark.suites.nldata.records import (
    BaseRecord,
    Param,
    Table,
    data_file,
    number,
    numeric_sentences,
    tables,
)


class NLDataSetting(StrEnum):
    """A setting by name (records and case ids carry its value)."""

    NL = "nl"
    NL_DATA = "nl_data"
    NL_DATA_IRR = "nl_data_irr"
    DERIVATION = "derivation"
    DERIVATION_IRR = "derivation_irr"
    PREDICTION = "prediction"
    PREDICTION_IRR = "prediction_irr"
    MULTI_PREDICTION = "multi_prediction"
    MULTI_PREDICTION_IRR = "multi_prediction_irr"
    PREDICTION_UNNAMED = "prediction_unnamed"


#: Plain strings, not the members: they travel to xdist workers and back, and execnet serializes
#: only builtin types (a member as a dict key made every worker fail).
SETTINGS: tuple[str, ...] = tuple(setting.value for setting in NLDataSetting)
#: The paper's nine settings (Fig. 5), what a run without ``--setting`` runs; ``prediction_unnamed``
#: (issue 25) is run by name.
PAPER_SETTINGS: tuple[str, ...] = SETTINGS[:9]
HISTORY_PERIODS = 8
SEASON = 4
PATTERNS: tuple[str, ...] = ("trend", "seasonal", "step")
_DATA_NOTE = (
    "The data of the problem are in the tables below; write the model without numbers from them and "
    "put every value into the data file."
)
_PATTERN_TEXT = {
    "trend": "changes by the same amount from every planning round to the next (a linear trend)",
    "seasonal": "follows a seasonal cycle that repeats exactly every four planning rounds",
    "step": "changed once to a new level and has stayed at that level ever since",
}


@dataclass(frozen=True)
class Prediction:
    param: str
    pattern: str
    table: str

    def to_json(self) -> dict[str, str]:
        return {"param": self.param, "pattern": self.pattern, "table": self.table}


@dataclass(frozen=True)
class SettingTask:
    """What one setting of one base record shows the model and what its gold answer is."""

    setting: str
    description: str
    tables: tuple[Table, ...]
    gold_model: str
    gold_data: str
    predictions: tuple[Prediction, ...] = ()
    derived: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "tables": [t.to_json() for t in self.tables],
            "gold_model": self.gold_model,
            "gold_data": self.gold_data,
            "predictions": [p.to_json() for p in self.predictions],
            "derived": self.derived,
        }


DISTRACTORS_SHOWN = 4
#: Near-synonyms of a real parameter: the same quantity at another time or in another plan.
_SYNONYMS: tuple[tuple[str, str], ...] = (
    ("last_year", "{text}, as recorded last year"),
    ("next_season", "{text} forecast for the season after this plan"),
    ("budgeted", "{text} in last year's budget"),
    ("avg_3y", "{text}, averaged over the three years before last"),
)


def _near(value: float, rng: random.Random) -> float:
    moved = value * rng.uniform(0.7, 1.3)
    return max(1, round(moved)) if float(value).is_integer() else round(moved, 2)


def distractor_pool(record: BaseRecord) -> tuple[Param, ...]:
    """The domain's own distractors, then near-synonyms of its one-dimensional and scalar parameters
    (values near the real ones, drawn from the instance's own seed)."""
    rng = random.Random(f"{record.instance_id}:{record.seed}:distractor-pool")
    taken = {p.name for p in (*record.params, *record.derivation.components, *record.distractors)}
    pool = list(record.distractors)
    for param in record.params:
        if len(param.index) > 1:
            continue
        for suffix, text in _SYNONYMS:
            name = f"{param.name}_{suffix}"
            if name in taken:
                continue
            values = {key: _near(value, rng) for key, value in param.values.items()}
            if values == param.values:
                first = next(iter(values))
                values[first] += 1
            pool.append(Param(name, param.index, values, text.format(text=param.text)))
            taken.add(name)
    return tuple(pool)


def shown_distractors(record: BaseRecord) -> tuple[Param, ...]:
    """The four distractors an instance's ``*_irr`` settings show, chosen by its seed, in pool order."""
    pool = distractor_pool(record)
    chosen = set(random.Random(f"{record.seed}:distractors").sample(range(len(pool)), DISTRACTORS_SHOWN))
    return tuple(p for position, p in enumerate(pool) if position in chosen)


def _with_distractors(record: BaseRecord, params: list[Param], irrelevant: bool) -> list[Param]:
    return params + list(shown_distractors(record)) if irrelevant else params


def derived_model(record: BaseRecord) -> tuple[str, list[Param]]:
    """The gold model with the target computed from its components, and the data parameters."""
    d = record.derivation
    target = record.param(d.target)
    existing = {p.name for p in record.params}
    new = [c for c in d.components if c.name not in existing]
    declarations = []
    for component in new:
        index = "{" + ", ".join(component.index) + "}" if component.index else ""
        declarations.append(f"param {component.name}{index};")
    if target.index:
        over = ", ".join(f"{dummy} in {s}" for dummy, s in zip(d.dummies, target.index, strict=True))
        declarations.append(f"param {target.name}{{{over}}} := {d.expression};")
    else:
        declarations.append(f"param {target.name} := {d.expression};")
    pattern = re.compile(rf"^param {re.escape(target.name)}\b[^;]*;$", re.MULTILINE)
    if len(pattern.findall(record.model)) != 1:
        raise ValueError(f"{record.domain}: the gold model must declare {target.name} on one line")
    model = pattern.sub(lambda _: "\n".join(declarations), record.model)
    params = []
    for param in record.params:
        if param.name == target.name:
            params.extend(new)
        else:
            params.append(param)
    return model, params


def _history(
    param: Param, pattern: str, rng: random.Random
) -> tuple[list[dict[str, int]], int, tuple[int, str]]:
    """Past values per member for periods 1..H whose next value is the parameter's value, the outlier
    row and the (row, member) of the missing entry."""
    members = [key[0] if key else "value" for key in param.values]
    targets = {m: int(v) for m, v in zip(members, param.values.values(), strict=True)}
    h = HISTORY_PERIODS
    series: dict[str, list[int]] = {}
    if pattern == "trend":
        for m, v in targets.items():
            step = rng.randint(1, max(1, (v - 1) // h)) * rng.choice((1, -1))
            series[m] = [v - step * (h + 1 - t) for t in range(1, h + 1)]
        outlier = rng.randint(2, h - 1)
        missing = (rng.choice([t for t in range(2, h) if t != outlier]), rng.choice(members))
    elif pattern == "seasonal":
        for m, v in targets.items():
            offsets = [0] + [
                rng.choice([o for o in range(-(v - 1), v + 6) if o != 0]) for _ in range(SEASON - 1)
            ]
            # period t has phase (t - 1) mod SEASON; the predicted period H + 1 has phase 0.
            series[m] = [v + offsets[(t - 1) % SEASON] for t in range(1, h + 1)]
        free = [t for t in range(1, h + 1) if (t - 1) % SEASON != 0]
        outlier = rng.choice(free)
        missing = (rng.choice([t for t in free if t != outlier]), rng.choice(members))
    elif pattern == "step":
        change = rng.randint(3, h - 2)
        for m, v in targets.items():
            old = rng.choice([x for x in range(max(1, v // 2), v * 2 + 3) if x != v])
            series[m] = [old if t < change else v for t in range(1, h + 1)]
        outlier = rng.randint(1, change - 1)
        missing = (rng.randint(change, h - 2), rng.choice(members))
    else:
        raise ValueError(f"unknown pattern {pattern}")
    if any(x <= 0 for values in series.values() for x in values):
        raise ValueError(f"history of {param.name} would hold a non-positive value")
    rows = [{m: series[m][t - 1] for m in members} for t in range(1, h + 1)]
    return rows, outlier, missing


def _pattern_for(param: Param, rng: random.Random) -> str:
    values = list(param.values.values())
    if any(not float(v).is_integer() or v < 1 for v in values):
        raise ValueError(f"{param.name} has non-integer or non-positive values; it cannot be predicted")
    eligible = [p for p in PATTERNS if p != "trend" or min(values) > HISTORY_PERIODS]
    return rng.choice(eligible)


def _history_table(
    record: BaseRecord, param: Param, pattern: str, rng: random.Random, named: bool = True
) -> Table:
    """The history of ``param``; ``named=False`` leaves out the note column that marks the outlier."""
    rows, outlier, (missing_row, missing_member) = _history(param, pattern, rng)
    members = list(rows[0])
    noun = record.set(param.index[0]).noun if param.index else None
    columns = [
        ("round", "past planning round, numbered from one (the plan made now is the round after the last)")
    ]
    columns += [(m, f"{param.text}, {noun} {m}" if noun else param.text) for m in members]
    columns.append(("note", "remark on the row"))
    out = []
    for t, row in enumerate(rows, start=1):
        cells = []
        for m in members:
            value = row[m] * 3 + 7 if t == outlier else row[m]
            cells.append("" if (t, m) == (missing_row, missing_member) else number(value))
        out.append((str(t), *cells, "outlier" if t == outlier else ""))
    if not named:
        columns = columns[:-1]
        out = [row[:-1] for row in out]
    return Table(f"history_{param.name}", f"past values of the {param.text}", tuple(columns), tuple(out))


def _prediction_sentence(record: BaseRecord, param: Param, pattern: str, table: str) -> str:
    who = f"For every {record.set(param.index[0]).noun}, it" if param.index else "It"
    scope = (
        f"one value per {record.set(param.index[0]).noun}, each holding for the whole plan"
        if param.index
        else "one value for the whole plan (in a plan of several periods, the same in every period)"
    )
    return (
        f"The {param.text} in the plan made now is not in the data: {scope}. Table {table} records its "
        f"values in past planning rounds, one row per round; the plan made now is the round right after "
        f"the last recorded one. {who} "
        f"{_PATTERN_TEXT[pattern]}. A blank cell is a missing record and a row whose note says outlier "
        "is a recording error; ignore both when you predict. Use the predicted value in the model."
    )


def _unnamed_sentence(record: BaseRecord, param: Param, table: str) -> str:
    scope = (
        f"one value per {record.set(param.index[0]).noun}, each holding for the whole plan"
        if param.index
        else "one value for the whole plan (in a plan of several periods, the same in every period)"
    )
    return (
        f"The {param.text} in the plan made now is not in the data: {scope}. Table {table} records its "
        "values in past planning rounds, one row per round; the plan made now is the round right after "
        "the last recorded one. The values follow a regular pattern that you must find in the table. A "
        "blank cell is a missing record, and one row of the table is a recording error. Use the "
        "predicted value in the model."
    )


def _unnamed_prediction_task(record: BaseRecord, setting: str) -> SettingTask:
    """One parameter predicted from a history whose pattern is not named and whose outlier row is not
    marked; the draw is kept only when :func:`identify` finds a single prediction, the true one."""
    rng = random.Random(f"{record.seed}:{setting}")
    param = record.param(record.predictable[0])
    expected = {(key[0] if key else "value"): v for key, v in param.values.items()}
    for _ in range(20):
        pattern = _pattern_for(param, rng)
        table = _history_table(record, param, pattern, rng, named=False)
        if identify(table) == (pattern, expected):
            break
    else:
        raise ValueError(f"{record.instance_id}: no identifiable unnamed history for {param.name}")
    kept = [p for p in record.params if p is not param]
    return SettingTask(
        setting,
        "\n\n".join([record.story, _unnamed_sentence(record, param, table.name), _DATA_NOTE]),
        (*tables(record.sets, kept), table),
        record.model,
        data_file(record.sets, record.params),
        predictions=(Prediction(param.name, pattern, table.name),),
    )


def _prediction_task(record: BaseRecord, setting: str, count: int, irrelevant: bool) -> SettingTask:
    rng = random.Random(f"{record.seed}:{setting}")
    targets = [record.param(name) for name in record.predictable[:count]]
    kept = [p for p in record.params if p not in targets]
    history, predictions, sentences = [], [], []
    for param in targets:
        pattern = _pattern_for(param, rng)
        table = _history_table(record, param, pattern, rng)
        history.append(table)
        predictions.append(Prediction(param.name, pattern, table.name))
        sentences.append(_prediction_sentence(record, param, pattern, table.name))
    shown = tables(record.sets, _with_distractors(record, kept, irrelevant))
    return SettingTask(
        setting,
        "\n\n".join([record.story, *sentences, _DATA_NOTE]),
        tuple(shown + history),
        record.model,
        data_file(record.sets, record.params),
        predictions=tuple(predictions),
    )


def build(record: BaseRecord, setting: str) -> SettingTask:
    """The task of ``record`` under ``setting``."""
    irrelevant = setting.endswith("_irr")
    gold_data = data_file(record.sets, record.params)
    if setting == NLDataSetting.NL:
        text = f"{record.story}\n\n{numeric_sentences(record.sets, record.params)}"
        return SettingTask(setting, text, (), record.model, gold_data)
    if setting in (NLDataSetting.NL_DATA, NLDataSetting.NL_DATA_IRR):
        shown = tables(record.sets, _with_distractors(record, list(record.params), irrelevant))
        return SettingTask(setting, f"{record.story}\n\n{_DATA_NOTE}", tuple(shown), record.model, gold_data)
    if setting in (NLDataSetting.DERIVATION, NLDataSetting.DERIVATION_IRR):
        model, params = derived_model(record)
        shown = tables(record.sets, _with_distractors(record, params, irrelevant))
        text = "\n\n".join([record.story, record.derivation.sentence, _DATA_NOTE])
        return SettingTask(
            setting,
            text,
            tuple(shown),
            model,
            data_file(record.sets, params),
            derived=record.derivation.target,
        )
    if setting in (NLDataSetting.PREDICTION, NLDataSetting.PREDICTION_IRR):
        return _prediction_task(record, setting, 1, irrelevant)
    if setting in (NLDataSetting.MULTI_PREDICTION, NLDataSetting.MULTI_PREDICTION_IRR):
        return _prediction_task(record, setting, 2, irrelevant)
    if setting == NLDataSetting.PREDICTION_UNNAMED:
        return _unnamed_prediction_task(record, setting)
    raise ValueError(f"unknown setting {setting!r}; settings: {', '.join(SETTINGS)}")


def extrapolate(table: Table, pattern: str) -> dict[str, float]:
    """The next period's value for every member column of a history table, read from the table alone
    (blank cells and rows noted ``outlier`` skipped) under the stated pattern."""
    names = [name for name, _ in table.columns]
    members = names[1:-1]
    valid_rows = [row for row in table.rows if row[-1] != "outlier"]
    next_period = len(table.rows) + 1
    out: dict[str, float] = {}
    for position, member in enumerate(members, start=1):
        points = [(int(row[0]), float(row[position])) for row in valid_rows if row[position] != ""]
        if len(points) < 2:
            raise ValueError(f"{table.name}: fewer than two usable records for {member}")
        if pattern == "trend":
            (t0, v0), (t1, v1) = points[0], points[-1]
            slope = (v1 - v0) / (t1 - t0)
            if any(abs(v0 + slope * (t - t0) - v) > 1e-9 for t, v in points):
                raise ValueError(f"{table.name}: {member} is not on one line")
            out[member] = v1 + slope * (next_period - t1)
        elif pattern == "seasonal":
            same_phase = [v for t, v in points if (next_period - t) % SEASON == 0]
            if not same_phase or len(set(same_phase)) != 1:
                raise ValueError(f"{table.name}: {member} has no consistent record in the predicted phase")
            out[member] = same_phase[-1]
        elif pattern == "step":
            if points[-1][1] != points[-2][1]:
                raise ValueError(f"{table.name}: {member} has not settled at its new level")
            out[member] = points[-1][1]
        else:
            raise ValueError(f"unknown pattern {pattern}")
    return out


def _fits(pattern: str, points: list[tuple[int, Fraction]], next_round: int) -> Fraction | None:
    """The next round's value when ``points`` follow ``pattern`` exactly, else None."""
    if len(points) < 3:
        return None
    if pattern == "trend":
        (t0, v0), (t1, v1) = points[0], points[-1]
        slope = (v1 - v0) / (t1 - t0)
        if any(v0 + slope * (t - t0) != v for t, v in points):
            return None
        return v1 + slope * (next_round - t1)
    if pattern == "seasonal":
        phases: dict[int, set[Fraction]] = {}
        for t, v in points:
            phases.setdefault((next_round - t) % SEASON, set()).add(v)
        if any(len(values) != 1 for values in phases.values()) or 0 not in phases:
            return None
        return next(iter(phases[0]))
    if pattern == "step":
        changes = sum(a != b for (_, a), (_, b) in itertools.pairwise(points))
        return points[-1][1] if changes <= 1 and points[-1][1] == points[-2][1] else None
    raise ValueError(f"unknown pattern {pattern}")


def identify(table: Table) -> tuple[str, dict[str, float]] | None:
    """The pattern and next-round values of an unmarked history, found by fitting: every pattern with
    every choice of one row left out as the recording error (all member columns alike). None unless
    the fits that hold give one prediction, and the pattern of the first fit (in ``PATTERNS`` order)."""
    members = [name for name, _ in table.columns][1:]
    next_round = len(table.rows) + 1
    found: list[tuple[str, dict[str, float]]] = []
    for pattern in PATTERNS:
        for dropped in [None, *(int(row[0]) for row in table.rows)]:
            prediction: dict[str, float] = {}
            for position, member in enumerate(members, start=1):
                points = [
                    (int(row[0]), Fraction(row[position]))
                    for row in table.rows
                    if row[position] != "" and int(row[0]) != dropped
                ]
                value = _fits(pattern, points, next_round)
                if value is None:
                    break
                prediction[member] = float(value)
            else:
                found.append((pattern, prediction))
    predictions = {tuple(sorted(p.items())) for _, p in found}
    return found[0] if len(predictions) == 1 else None
