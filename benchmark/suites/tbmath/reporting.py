"""TB-MathModel's report tables, from result records alone: the per-task panel (O-Eval,
multi-reference O-Eval, BO scores, gate and certificate status) and the headline means.

Literature-split tasks stay in the per-task table but out of the headline numbers (§3.2); a task
whose artifact is missing or gated counts with its 0 / −1, so the denominator is every task.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from benchmark.categories import CaseOutcome
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord
from benchmark.suites.tbmath.detail import TaskFlags, TbmathExtra, TbmathScores


def _scored(records: Sequence[CaseRecord]) -> list[CaseRecord]:
    return [
        r
        for r in records
        if r.suite == "tbmath"
        and r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)
        and TbmathScores.read(r.scores).o_eval is not None
    ]


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of the values present (None when none is)."""
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.2f}%" if percent else f"{value:.3f}"


def _gate(extra: TbmathExtra) -> str:
    if extra.gate is None:
        return "–"
    if extra.gate.passed is None:
        return "ungated"
    return "pass" if extra.gate.passed else "FAIL"


def flags_table(records: Sequence[CaseRecord]) -> Table | None:
    """Per task, what its scores rest on: gate or none ("ungated"), a reference panel or one
    anchor ("single anchor"), the config's format, metrics the release leaves unscored, metrics
    whose orientation was inferred, attachments the copy lacks, and Python packages its Dockerfile
    pins differently from the agent stack."""
    flags: dict[str, TaskFlags] = {}
    for record in records:
        if record.suite == "tbmath" and record.extra:  # a record without detail is an error
            flags.setdefault(str(record.label("instance_id")), TbmathExtra.read(record.extra).task_flags)
    if not flags:
        return None
    rows = tuple(
        (
            task_id,
            item.gate,
            item.references,
            item.config_format,
            str(len(item.unscored_metrics)),
            str(item.inferred_orientation),
            "; ".join(item.missing_attachments) or "none",
            "; ".join(item.environment_differences) or "as pinned",
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
        extras = [TbmathExtra.read(r.extra) for r in group]
        scores = [TbmathScores.read(r.scores) for r in group]
        split = any(extra.literature_split for extra in extras)
        means = {
            "o_eval": _mean([s.o_eval for s in scores]),
            "multi_o_eval": _mean([s.multi_o_eval for s in scores]),
            "robust_bo_eval": _mean([s.robust_bo_eval for s in scores]),
            "multi_bo": _mean([s.multi_bo for s in scores]),
        }
        if not split:
            for key, value in means.items():
                if value is not None:
                    headline[key].append(value)
        gates = sorted({_gate(extra) for extra in extras})
        certificates = sorted({extra.certificate.status if extra.certificate else "–" for extra in extras})
        panel = extras[0].references.per_reference if extras[0].references else {}
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
