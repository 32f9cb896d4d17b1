"""The run summary: every number in ``summary.json``, ``summary.md`` and the terminal table.

Computed from result records alone, so a run's reports can be rebuilt from its ``results.jsonl``
at any time (``optbench summarize RUN_DIR``). Only ``passed``/``failed`` records are scored;
infrastructure errors and skipped cases are counted apart and never lower a model's score.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any, Literal

from benchmark.categories import CaseOutcome
from benchmark.metrics import k_values, mean_pass_at_k, mean_std, rate
from benchmark.reporting.intervals import instance_rate_interval
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.base import Grouping


def _instance_key(record: CaseRecord) -> str:
    """The instance (under its setting) a record belongs to: its case key without the sample."""
    return record.case.rsplit("/", 1)[0]


def _counts(
    records: Sequence[CaseRecord], field: Literal["passed", "valid_code"] = "passed"
) -> list[tuple[int, int]]:
    per_instance: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        entry = per_instance[_instance_key(record)]
        entry[0] += 1
        entry[1] += int(record.passed if field == "passed" else record.valid_code)
    return [(n, c) for n, c in per_instance.values()]


def _ci95(records: Sequence[CaseRecord]) -> dict[str, Any]:
    """95% intervals of pass@1 and Valid Code Rate over instances (see :mod:`intervals`)."""
    out: dict[str, Any] = {}
    fields: tuple[tuple[str, Literal["passed", "valid_code"]], ...] = (
        ("pass@1", "passed"),
        ("valid_code_rate", "valid_code"),
    )
    for name, field in fields:
        interval = instance_rate_interval(_counts(records, field))
        if interval is not None:
            out[name] = [interval.low, interval.high]
            out["method"] = interval.method
    return out


def metric_block(records: Sequence[CaseRecord]) -> dict[str, Any]:
    """pass@k (unbiased, averaged over instances), Valid Code Rate and per-run spreads."""
    counts = _counts(records)
    max_n = max((n for n, _ in counts), default=0)
    block: dict[str, Any] = {
        "instances": len(counts),
        "samples": len(records),
        "passed_samples": sum(int(r.passed) for r in records),
    }
    for k in k_values(max_n):
        block[f"pass@{k}"] = mean_pass_at_k(counts, k)
    block["valid_code_rate"] = rate([r.valid_code for r in records])
    block["ci95"] = _ci95(records)
    by_run: dict[int, list[CaseRecord]] = defaultdict(list)
    for record in records:
        by_run[record.sample].append(record)
    if len(by_run) > 1:
        runs = [by_run[s] for s in sorted(by_run)]
        pass1 = mean_std([rate([r.passed for r in run]) or 0.0 for run in runs])
        vcr = mean_std([rate([r.valid_code for r in run]) or 0.0 for run in runs])
        block["runs"] = len(runs)
        block["pass@1_over_runs"] = {"mean": pass1[0], "std": pass1[1]} if pass1 else None
        block["valid_code_rate_over_runs"] = {"mean": vcr[0], "std": vcr[1]} if vcr else None
    stochastic = [r for r in records if (r.temperature or 0.0) > 0]
    if stochastic and len(stochastic) != len(records):
        stochastic_counts = _counts(stochastic)
        k = max(n for n, _ in stochastic_counts)
        block[f"pass@{k}_stochastic_runs"] = mean_pass_at_k(stochastic_counts, k)
    return block


def build_summary(
    records: Iterable[CaseRecord],
    run: Mapping[str, Any] | None = None,
    suite_tables: Sequence[Table] = (),
    official_settings: Sequence[str] | None = None,
    selected: Sequence[str] | None = None,
    groupings: Sequence[Grouping] = (),
    failure_categories: Sequence[str] = (),
) -> dict[str, Any]:
    """Official metrics (pass@k, Valid Code Rate, the group tables, failure categories) count only
    records of ``official_settings`` (all when None); diagnostic settings appear in ``by_setting``
    and in the suite's own tables, never in the official numbers. ``counts`` tallies every case.

    ``selected`` is the case keys the session selected (None when unknown, e.g. rebuilt from old
    records): a selected case without a record is counted as ``not recorded``, so a run whose cases
    vanished can never read as complete. ``groupings`` and ``failure_categories`` are the suite's
    declarations: the "By <label>" tables, and the order failure categories are listed in."""
    latest = sorted(records, key=lambda r: r.case)  # the same summary whatever the finish order
    recorded_keys = {r.case for r in latest}
    not_recorded = [key for key in selected or () if key not in recorded_keys]
    all_scored = [r for r in latest if r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)]
    scored = [r for r in all_scored if official_settings is None or r.setting in official_settings]
    errors = [r for r in latest if r.outcome == CaseOutcome.ERROR]
    skipped = [r for r in latest if r.outcome == CaseOutcome.SKIPPED]
    failures = Counter(str(r.category) for r in scored if not r.passed)
    summary: dict[str, Any] = {
        "run": dict(run or {}),
        "counts": {
            "selected": len(selected) if selected is not None else None,
            "recorded": len(set(selected) & recorded_keys) if selected is not None else len(latest),
            "not_recorded": len(not_recorded),
            "cases": len(latest),
            "scored": len(all_scored),
            "passed": sum(int(r.passed) for r in all_scored),
            "failed": sum(int(not r.passed) for r in all_scored),
            "infrastructure_errors": len(errors),
            "skipped": len(skipped),
        },
        "metrics": metric_block(scored),
        "failure_categories": {
            c: failures[c]
            for c in (*failure_categories, *sorted(set(failures) - set(failure_categories)))
            if failures[c]
        },
        "groupings": [grouping.label for grouping in groupings],
        "infrastructure": dict(sorted(Counter(str(r.category) for r in errors).items())),
        "not_scored": not_scored_reasons(latest, not_recorded),
        "not_recorded_cases": sorted(not_recorded)[:50],
        "skipped_reasons": dict(sorted(Counter(reason_template(r) for r in skipped).items())),
        "accounting": _accounting(latest),
        "suite_tables": [asdict(table) for table in suite_tables],
    }
    by_setting: dict[str, list[CaseRecord]] = defaultdict(list)
    for record in all_scored:
        by_setting[record.setting].append(record)
    if len(by_setting) > 1 or (official_settings is not None and set(by_setting) - set(official_settings)):
        summary["by_setting"] = {
            name: {**metric_block(group), "official": official_settings is None or name in official_settings}
            for name, group in sorted(by_setting.items())
        }
    for grouping in groupings:
        groups: dict[str, list[CaseRecord]] = defaultdict(list)
        for record in scored:
            value = record.label(grouping.label)
            if value is not None:
                groups[value].append(record)
        if groups:
            order = sorted(groups, key=grouping.sort_key)
            summary[f"by_{grouping.label}"] = {name: metric_block(groups[name]) for name in order}
    return summary


_LOCATION = re.compile(r"(?:[\w.-]*/)+[\w.-]+(?::\d+)?|\b[\w.-]+\.(?:jsonl?|py|txt|lp):\d+")


def reason_template(record: CaseRecord) -> str:
    """A skip's reason without what differs per case (file paths, FILE:LINE), so 1,209 skips for
    one cause make one row: ``[oracle_unavailable] FILE: this question has no reference …``."""
    detail = _LOCATION.sub("FILE", record.detail)
    return f"[{record.category}] {detail}"[:300]


def _category_order(declared: Sequence[str], seen: Iterable[str]) -> list[str]:
    """The suite's declared order, then (from records of an older harness) any others by name."""
    return [*declared, *sorted(set(seen) - set(declared))]


def not_scored_reasons(records: Sequence[CaseRecord], not_recorded: Sequence[str]) -> dict[str, int]:
    """Why cases went unscored, by kind: an infrastructure category (``api_error``, …), a skip
    (``skipped: <category>``) or ``not recorded``."""
    reasons: Counter[str] = Counter()
    for record in records:
        if record.outcome == CaseOutcome.ERROR:
            reasons[str(record.category)] += 1
        elif record.outcome == CaseOutcome.SKIPPED:
            reasons[f"skipped: {record.category}"] += 1
    if not_recorded:
        reasons["not recorded"] = len(not_recorded)
    return dict(sorted(reasons.items()))


def unscored_errors(summary: Mapping[str, Any]) -> dict[str, int]:
    """The unscored cases the gate counts: errors and missing records (skips are deliberate)."""
    return {k: n for k, n in summary["not_scored"].items() if not k.startswith("skipped: ")}


def _accounting(records: Sequence[CaseRecord]) -> dict[str, Any]:
    """What the run's model side cost. ``cost_usd`` is what the replies cost when first asked (a
    cache hit keeps its original cost); ``cost_usd_sent`` only what this run's own requests cost,
    so a fully cached rerun shows 0 beside the original's price."""
    costs = [r.cost_usd for r in records if r.cost_usd is not None]
    sent = [cost for r in records for cost in _sent_costs(r)]
    return {
        "model_calls": sum(r.model_calls for r in records),
        "cache_hits": sum(r.cache_hits for r in records),
        "shared_replies": sum(int(bool(r.shared_reply_from)) for r in records),
        "input_tokens": sum(r.input_tokens or 0 for r in records),
        "output_tokens": sum(r.output_tokens or 0 for r in records),
        "truncated": sum(int(r.truncated) for r in records),
        "cost_usd": sum(costs) if costs else None,
        "cost_usd_sent": round(sum(sent), 8) if costs else None,
        "model_time_s": round(sum(float(r.model_time_s or 0.0) for r in records), 3),
        "execution_time_s": round(sum(float(r.execution_time_s or 0.0) for r in records), 3),
    }


def _sent_costs(record: CaseRecord) -> list[float]:
    """The costs of the record's calls that were sent, not answered from the cache (per turn; a
    record from before turns kept their cost counts whole unless it had a cache hit)."""
    calls = record.turns
    if calls and all("cost_usd" in turn.model_fields_set for turn in calls):
        return [t.cost_usd for t in calls if t.cost_usd is not None and not t.cache_hit]
    if record.cost_usd is not None and not record.cache_hits:
        return [float(record.cost_usd)]
    return []
