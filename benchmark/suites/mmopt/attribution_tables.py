"""The failure-attribution report tables (MM-OptBench App. F.4, Tables 11–13, and Table 9).

Built from result records alone (like every report), per model and pooled, and only for the
settings present in the records. None of them feeds the official metrics: those come from the
Stage-1 verdicts, which ``two_stage`` records carry unchanged.

Cells read ``count/scored (share of failures)``, the paper's convention: the denominator is the
number of scored samples of that model and setting, the percentage is within its failed samples.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from benchmark.categories import CaseOutcome, SkipCategory
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.mmopt.attribution import COMPACT_GROUP, FINE_CATEGORIES, FINE_LABELS, fine_category
from benchmark.suites.mmopt.detail import MmoptExtra
from benchmark.suites.mmopt.stage2 import PARSE_FAILURE_SUBTYPES

SETTINGS: tuple[str, ...] = ("stage1", "two_stage", "oracle_reading", "verified_extraction")
OFFICIAL_SETTINGS: tuple[str, ...] = ("stage1", "two_stage")

TWO_STAGE_TITLE = "Two-stage failure attribution (Table 11)"
ORACLE_READING_TITLE = "Oracle-reading failures (Table 12)"
PARSE_FAILURE_TITLE = "Stage-2 unresolved subtypes (Table 13)"
FINE_TITLE = "Failure taxonomy (Table 9)"
SOLVED_SHARE_TITLE = "Solved share: official vs diagnostic settings"

ATTRIBUTIONS: dict[str, str] = {
    "reading_mismatch": "reading mismatch",
    "downstream_after_matched_extraction": "downstream after matched extraction",
    "unresolved": "schema / interrupted",
}
COMPACT_LABELS: dict[str, str] = {
    "modeling_algorithmic": "modeling / algorithmic",
    "runtime": "runtime",
    "other_code_artifact": "other code / artifact",
}
#: Table 13's order; the subtypes that are not parse failures follow when they occur.
SUBTYPE_LABELS: dict[str, str] = {
    "incomplete_json": "Incomplete JSON",
    "other_malformed_json": "Other malformed JSON",
    "python_literal": "Python literal, not JSON",
    "unquoted_numeric_keys": "Numeric keys not quoted",
    "empty_response": "Empty response",
    "schema_mismatch": "Valid JSON, not the extraction contract",
    "interrupted": "Follow-up not obtained (interrupted)",
}


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "n/a"


def _cell(count: int, scored: int, failed: int) -> str:
    return f"{count}/{scored} ({_pct(count, failed)})"


def _scored(records: Sequence[CaseRecord], setting: str) -> list[CaseRecord]:
    return [
        r for r in records if r.setting == setting and r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)
    ]


def _by_model(records: Sequence[CaseRecord]) -> list[tuple[str, list[CaseRecord]]]:
    """Rows per model, then a pooled row when there is more than one model."""
    groups: dict[str, list[CaseRecord]] = defaultdict(list)
    for record in records:
        groups[str(record.model)].append(record)
    rows = sorted(groups.items())
    if len(rows) > 1:
        rows.append(("pooled", list(records)))
    return rows


def _breakdown_table(
    title: str,
    records: Sequence[CaseRecord],
    labels: Mapping[str, str],
    key_of: Callable[[CaseRecord], str],
) -> Table | None:
    if not records:
        return None
    rows = []
    for model, group in _by_model(records):
        failed = [r for r in group if r.outcome == CaseOutcome.FAILED]
        counts = Counter(key_of(r) for r in failed)
        cells = [_cell(counts[key], len(group), len(failed)) for key in labels]
        rows.append((model, *cells, f"{len(failed)}/{len(group)}"))
    return Table(title, ("model", *labels.values(), "total failed"), tuple(rows))


def two_stage_table(records: Sequence[CaseRecord]) -> Table | None:
    return _breakdown_table(
        TWO_STAGE_TITLE,
        _scored(records, "two_stage"),
        ATTRIBUTIONS,
        lambda r: MmoptExtra.read(r.extra).attribution or "unresolved",
    )


def oracle_reading_table(records: Sequence[CaseRecord]) -> Table | None:
    return _breakdown_table(
        ORACLE_READING_TITLE,
        _scored(records, "oracle_reading"),
        COMPACT_LABELS,
        lambda r: COMPACT_GROUP.get(str(MmoptExtra.read(r.extra).failure_class), "modeling_algorithmic"),
    )


def unresolved_subtype_table(records: Sequence[CaseRecord]) -> Table | None:
    failed = [r for r in _scored(records, "two_stage") if r.outcome == CaseOutcome.FAILED]
    if not failed:
        return None
    extras = [MmoptExtra.read(r.extra) for r in failed]
    subtypes = Counter(
        str(extra.stage2.unresolved if extra.stage2 else None)
        for extra in extras
        if extra.attribution == "unresolved"
    )
    parse_failures = sum(subtypes[s] for s in PARSE_FAILURE_SUBTYPES)
    rows = [
        (label, str(subtypes[s]), _pct(subtypes[s], parse_failures) if s in PARSE_FAILURE_SUBTYPES else "-")
        for s, label in SUBTYPE_LABELS.items()
        if s in PARSE_FAILURE_SUBTYPES or subtypes[s]
    ]
    return Table(PARSE_FAILURE_TITLE, ("subtype", "count", "share of parse failures"), tuple(rows))


def fine_taxonomy_table(records: Sequence[CaseRecord]) -> Table | None:
    present = [s for s in SETTINGS if _scored(records, s)]
    if not present:
        return None
    counts = {
        s: Counter(fine_category(r) for r in _scored(records, s) if r.outcome == CaseOutcome.FAILED)
        for s in present
    }
    diagnosed = {"upstream_reading", "unresolved"}
    rows = []
    for category in FINE_CATEGORIES:
        cells = [
            str(counts[s][category]) if s == "two_stage" or category not in diagnosed else "-"
            for s in present
        ]
        rows.append((FINE_LABELS[category], *cells))
    rows.append(("total failed", *(str(sum(counts[s].values())) for s in present)))
    return Table(FINE_TITLE, ("category", *present), tuple(rows))


def solved_share_table(records: Sequence[CaseRecord]) -> Table | None:
    rows = []
    for setting in SETTINGS:
        scored = _scored(records, setting)
        not_evaluable = [
            r
            for r in records
            if r.setting == setting
            and r.outcome == CaseOutcome.SKIPPED
            and r.category == SkipCategory.NOT_EVALUABLE
        ]
        if not scored and not not_evaluable:
            continue
        for model, group in _by_model(scored) or [(str(not_evaluable[0].model), [])]:
            solved = sum(int(r.passed) for r in group)
            skipped = sum(int(model in ("pooled", str(r.model))) for r in not_evaluable)
            label = f"{setting} (official)" if setting in OFFICIAL_SETTINGS else setting
            rows.append((model, label, f"{solved}/{len(group)}", _pct(solved, len(group)), str(skipped)))
    if not rows:
        return None
    headers = ("model", "setting", "solved", "share", "not evaluable")
    return Table(SOLVED_SHARE_TITLE, headers, tuple(rows))


def attribution_tables(records: Sequence[CaseRecord]) -> list[Table]:
    """Every attribution table the records support, in the paper's order."""
    tables = (
        two_stage_table(records),
        oracle_reading_table(records),
        unresolved_subtype_table(records),
        fine_taxonomy_table(records),
        solved_share_table(records),
    )
    return [table for table in tables if table is not None]
