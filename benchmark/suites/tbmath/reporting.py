"""TB-MathModel's report tables, from result records alone: the per-task panel (O-Eval,
multi-reference O-Eval, BO scores, gate and certificate status) and the headline means.

Literature-split tasks stay in the per-task table but out of the headline numbers (§3.2); a task
whose artifact is missing or gated counts with its 0 / −1, so the denominator is every task.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.categories import CaseOutcome
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord


def _scored(records: Sequence[CaseRecord]) -> list[CaseRecord]:
    return [
        r
        for r in records
        if r.suite == "tbmath"
        and r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)
        and "o_eval" in r.scores
    ]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.2f}%" if percent else f"{value:.3f}"


def _gate(record: CaseRecord) -> str:
    gate = record.extra.get("gate") or {}
    if gate.get("passed") is None:
        return "ungated" if "gate" in record.extra else "–"
    return "pass" if gate["passed"] else "FAIL"


def flags_table(records: Sequence[CaseRecord]) -> Table | None:
    """Per task, what its scores rest on: gate or none ("ungated"), a reference panel or one
    anchor ("single anchor"), the config's format, metrics the release leaves unscored, metrics
    whose orientation was inferred, attachments the copy lacks, and Python packages its Dockerfile
    pins differently from the agent stack."""
    flags: dict[str, Mapping[str, Any]] = {}
    for record in records:
        found = record.extra.get("task_flags")
        if record.suite == "tbmath" and isinstance(found, Mapping):
            flags.setdefault(str(record.label("instance_id")), found)
    if not flags:
        return None
    rows = tuple(
        (
            task_id,
            str(item.get("gate", "–")),
            str(item.get("references", "–")),
            str(item.get("config_format", "–")),
            str(len(item.get("unscored_metrics") or {})),
            str(item.get("inferred_orientation", 0)),
            "; ".join(item.get("missing_attachments") or ()) or "none",
            "; ".join(item.get("environment_differences") or ()) or "as pinned",
        )
        for task_id, item in sorted(flags.items())
    )
    return Table(
        "TB-MathModel task flags",
        (
            "task",
            "gate",
            "references",
            "config",
            "unscored",
            "inferred orientation",
            "missing attachments",
            "Dockerfile packages",
        ),
        rows,
    )


def report_tables(records: Sequence[CaseRecord]) -> list[Table]:
    scored = _scored(records)
    flags = flags_table(records)
    if not scored:
        return [flags] if flags else []
    by_task: dict[str, list[CaseRecord]] = defaultdict(list)
    for record in scored:
        by_task[str(record.label("instance_id"))].append(record)
    rows = []
    headline: dict[str, list[float]] = defaultdict(list)
    for task_id in sorted(by_task):
        group = by_task[task_id]
        split = any(r.extra.get("literature_split") for r in group)
        means = {
            key: _mean([float(r.scores[key]) for r in group if key in r.scores])
            for key in ("o_eval", "multi_o_eval", "robust_bo_eval", "multi_bo")
        }
        if not split:
            for key, value in means.items():
                if value is not None:
                    headline[key].append(value)
        gates = sorted({_gate(r) for r in group})
        certificates = sorted({str((r.extra.get("certificate") or {}).get("status", "–")) for r in group})
        panel = group[0].extra.get("references", {}).get("per_reference", {})
        rows.append(
            (
                task_id,
                "yes" if split else "no",
                str(len(group)),
                _fmt(means["o_eval"]),
                _fmt(means["multi_o_eval"]),
                " ".join(f"{k}={'excl' if v is None else f'{v:.3f}'}" for k, v in panel.items()) or "–",
                _fmt(means["robust_bo_eval"], percent=False),
                _fmt(means["multi_bo"], percent=False),
                "/".join(gates),
                "/".join(certificates),
            )
        )
    per_task = Table(
        "TB-MathModel per-task panel",
        (
            "task",
            "lit. split",
            "cases",
            "O-Eval",
            "multi-ref O-Eval",
            "per reference",
            "Robust BO",
            "Multi-BO",
            "gate",
            "certificate",
        ),
        tuple(rows),
    )
    summary = Table(
        "TB-MathModel headline (literature-split tasks excluded)",
        ("tasks", "O-Eval", "multi-ref O-Eval", "Robust BO-Eval", "Multi-BO"),
        (
            (
                str(len(headline["o_eval"])),
                _fmt(_mean(headline["o_eval"])),
                _fmt(_mean(headline["multi_o_eval"])),
                _fmt(_mean(headline["robust_bo_eval"]), percent=False),
                _fmt(_mean(headline["multi_bo"]), percent=False),
            ),
        ),
    )
    return [summary, per_task, *([flags] if flags else [])]
