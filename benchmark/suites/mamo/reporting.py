"""Mamo's report tables: accuracy by type with the modifier's improvement (paper Table 4) and the
execution rate raw vs modified (Table 5), built from result records alone.

Every scored sample counts once, so "overall" is weighted by question count as in Table 4.
Samples whose raw artifact did not need the modifier keep their raw result as the modified one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchmark.categories import CaseOutcome
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.mamo.dataset import ODE, OPTIMIZATION, TYPES
from benchmark.suites.mamo.detail import MamoScores

_CATEGORY_NAMES = {ODE: "ODE", OPTIMIZATION: "Optimization"}


def _scored(records: Sequence[CaseRecord]) -> list[CaseRecord]:
    return [
        r
        for r in records
        if r.suite == "mamo" and r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED) and bool(r.scores)
    ]


Score = Callable[[MamoScores], float]


def _share(records: Sequence[CaseRecord], score: Score) -> float:
    return sum(score(MamoScores.read(r.scores)) for r in records) / len(records)


def _row(name: str, records: Sequence[CaseRecord], raw: Score, modified: Score) -> tuple[str, ...]:
    before, after = _share(records, raw), _share(records, modified)
    return (
        name,
        str(len(records)),
        f"{100 * before:.2f}%",
        f"{100 * after:.2f}%",
        f"{100 * (after - before):+.2f}",
    )


def _rows(
    records: Sequence[CaseRecord],
    group: Callable[[CaseRecord], str],
    order: Sequence[str],
    raw: Score,
    modified: Score,
) -> tuple[tuple[str, ...], ...]:
    rows = []
    for name in order:
        members = [r for r in records if group(r) == name]
        if members:
            rows.append(_row(name, members, raw, modified))
    rows.append(_row("overall", records, raw, modified))
    return tuple(rows)


def report_tables(records: Sequence[CaseRecord]) -> list[Table]:
    scored = _scored(records)
    if not scored:
        return []
    headers = ("questions", "raw", "modified", "improvement")
    accuracy = Table(
        "Mamo accuracy by type (Table 4: raw, after the code modifier, improvement in points)",
        ("type", *headers),
        _rows(
            scored,
            lambda r: str(r.label("subcategory")),
            list(TYPES),
            lambda s: s.raw,
            lambda s: s.modified,
        ),
    )
    execution = Table(
        "Mamo execution rate (Table 5: artifacts that ran in the right format)",
        ("category", *headers),
        _rows(
            scored,
            lambda r: _CATEGORY_NAMES.get(str(r.label("family")), str(r.label("family"))),
            list(_CATEGORY_NAMES.values()),
            lambda s: s.executed_raw,
            lambda s: s.executed_modified,
        ),
    )
    return [accuracy, execution]
