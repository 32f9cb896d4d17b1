"""NLData2Opt's report tables, from result records alone: metrics by setting (Tables 7–15), mean EBC
by setting × model (the Fig. 5 heatmap, as a table), error-analysis counts (Fig. 6), and the
held-out data's check (how many cases and unseen instances ran, EBC shown / unseen / strict).

The headline EBC is the strict one (``scores.ebc``: the lowest of the shown and every unseen
instance's EBC); records written before the held-out check have no ``ebc_shown`` and count their
``ebc`` as shown."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from benchmark.categories import CaseOutcome
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.nldata.categories import FAILURE_CATEGORIES, NLDataCategory
from benchmark.suites.nldata.detail import NldataExtra, NldataScores
from benchmark.suites.nldata.settings import SETTINGS


def _scored(records: Sequence[CaseRecord]) -> list[CaseRecord]:
    return [
        r
        for r in records
        if r.suite == "nldata"
        and r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)
        and NldataScores.read(r.scores).ebc is not None
    ]


def _ebc(record: CaseRecord) -> float:
    """The strict EBC of a scored record."""
    return float(NldataScores.read(record.scores).ebc or 0.0)


def _mean(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.3f}" if values else "n/a"


def _ordered(settings: set[str]) -> list[str]:
    return [s for s in SETTINGS if s in settings] + sorted(settings - set(SETTINGS))


def _headline(group: Sequence[CaseRecord]) -> list[CaseRecord]:
    """The cases the headline EBC is computed over: all but ``unsupported_syntax`` (AMPL that the
    MathProg backend cannot run is not the model's error, so it counts neither way; the tables say
    how many were left out)."""
    return [r for r in group if r.category != NLDataCategory.UNSUPPORTED_SYNTAX]


def by_setting(records: Sequence[CaseRecord]) -> Table:
    groups: dict[str, list[CaseRecord]] = defaultdict(list)
    for record in records:
        groups[record.setting].append(record)
    rows = []
    for setting in _ordered(set(groups)):
        group = groups[setting]
        counted = _headline(group)
        scores = [NldataScores.read(r.scores) for r in group]
        judged = [s.llm_es for s in scores if s.llm_es is not None]
        rows.append(
            (
                setting,
                str(len(group)),
                _mean([_ebc(r) for r in counted]),
                str(len(counted)),
                str(len(group) - len(counted)),
                _mean([float(s.ef1 or 0.0) for s in scores]),
                f"{_mean(judged)} ({len(judged)})",
                f"{100 * sum(r.passed for r in group) / len(group):.1f}%",
            )
        )
    return Table(
        "NLData2Opt by setting (EBC: strict, shown and unseen data, over the cases MathProg could run, "
        "unsupported_syntax left out; EF1 by role in [0, 1]; LLM-ES 0-10 with the number judged)",
        ("setting", "cases", "EBC", "EBC over", "unsupported_syntax", "EF1", "LLM-ES", "EBC = 1"),
        tuple(rows),
    )


def heldout(records: Sequence[CaseRecord]) -> Table:
    groups: dict[str, list[CaseRecord]] = defaultdict(list)
    for record in records:
        groups[record.setting].append(record)
    rows = []
    for setting in _ordered(set(groups)):
        group = groups[setting]
        runs = [NldataExtra.read(r.extra).heldout if r.extra else None for r in group]
        checked = [h for h in runs if h is not None and h.run]
        scores = [NldataScores.read(r.scores) for r in group]
        rows.append(
            (
                setting,
                str(len(group)),
                str(len(checked)),
                str(sum(len(h.runs) for h in checked)),
                _mean([float((s.ebc if s.ebc_shown is None else s.ebc_shown) or 0.0) for s in scores]),
                _mean([float(s.ebc_unseen or 0.0) for s in scores]),
                _mean([float(s.ebc or 0.0) for s in scores]),
                str(sum(r.category == NLDataCategory.MODEL_DATA_COUPLING for r in group)),
            )
        )
    return Table(
        "Held-out data: the model run on unseen data instances of the same schema (strict EBC = the "
        "lowest of shown and unseen; cases optimal on the shown data only fail as model_data_coupling)",
        ("setting", "cases", "cases run on unseen data", "unseen instances run", "EBC shown",
         "EBC unseen", "EBC strict", "model_data_coupling"),
        tuple(rows),
    )  # fmt: skip


def heatmap(records: Sequence[CaseRecord]) -> Table:
    models = sorted({str(r.model) for r in records})
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in _headline(records):
        cells[(record.setting, str(record.model))].append(_ebc(record))
    rows = tuple(
        (setting, *(_mean(cells.get((setting, model), [])) for model in models))
        for setting in _ordered({r.setting for r in records})
    )
    left_out = len(records) - len(_headline(records))
    return Table(
        f"Mean EBC by setting and model (Fig. 5; strict EBC, {left_out} unsupported_syntax cases left out)",
        ("setting", *models),
        rows,
    )


def error_analysis(records: Sequence[CaseRecord]) -> Table:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        category = record.category if record.outcome == CaseOutcome.FAILED else None
        if category:
            counts[record.setting][category] += 1
    present = [c for c in FAILURE_CATEGORIES if any(c in group for group in counts.values())] or ["errors"]
    rows = tuple(
        (setting, *(str(counts[setting].get(c, 0)) for c in present))
        for setting in _ordered({r.setting for r in records})
    )
    return Table(
        "Error analysis by setting (unsupported_syntax = AMPL that MathProg cannot run, reported apart)",
        ("setting", *present),
        rows,
    )


def report_tables(records: Sequence[CaseRecord]) -> list[Table]:
    scored = _scored(records)
    if not scored:
        return []
    return [by_setting(scored), heldout(scored), heatmap(scored), error_analysis(scored)]
