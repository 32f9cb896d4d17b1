"""``python -m benchmark contamination PUBLIC_RUN FRESH_RUN``: does a model do better on the public
instances than on fresh ones of the same kind?

A model that saw the public set in training can score on it by recall. A held-out split drawn from
the same generators (``generate --split NAME --seed-base N``) has instances of the same kind, size and
difficulty that no model can have seen, so the same model under the same settings should score the
same on both, up to noise; a gap beyond noise is evidence of contamination (or of a split that is not
of the same kind, which the version check below rules out as far as the manifests can tell).

Pairing. A split numbers its instances as the public set does, each drawn by the same generator
at the same index from a different seed; the labels it draws by are the suite's split labels
(:attr:`benchmark.suites.base.Grouping.split`, e.g. ``<subcategory>/<difficulty>/…_001`` and on).
So public instance *k* of each combination of those labels is paired with the split's instance *k*:
a matched design whose pairs share everything but the seed. The pass-rate gap (public − fresh) per
value of the first split label every record carries, and overall, gets the paired interval and the
paired test of :mod:`benchmark.reporting.intervals` (with one sample per instance Newcombe's hybrid
score interval and the exact McNemar test). Public instances without a counterpart in the split
(with the split's default two per combination, the third on) are left out of the pairs; their pass
rate is shown for context.

Verdict per row: "gap beyond noise" when the whole 95% interval lies above zero *and* the test
rejects equality at 5%; otherwise "no evidence". Both are asked because with a handful of pairs
they disagree: three pairs where the public instance passed and the fresh one failed give the
interval [+20.6, +100] points, above zero, while the exact test says three pairs prove nothing
(p = 0.25).
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmark.reporting.compare import LoadedRun, instance_of, load_run, paired, per_instance_rates
from benchmark.reporting.intervals import PairedDifference
from benchmark.schema import CaseRecord
from benchmark.suites.base import get_suite

#: Manifest fields that must be equal: the same model, asked the same way, scored the same way.
SAME_FIELDS: tuple[tuple[str, ...], ...] = (
    ("suite",), ("model", "alias"), ("model", "model_id"), ("model", "base_url"), ("model", "extra_body"),
    ("decoding",), ("setting",), ("scoring",), ("objective_only",), ("execution",), ("dataset", "name"),
)  # fmt: skip
SPLIT_MARK = "+split."
"""A held-out split's dataset version is ``<public version>+split.<name>.<seed base>``."""
ALPHA = 0.05
GAP = "gap beyond noise"
NO_EVIDENCE = "no evidence"


class ContaminationError(ValueError):
    """The two runs cannot answer the question (not the same model and settings, not a split)."""


def _field(manifest: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = manifest
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def mismatches(public: LoadedRun, fresh: LoadedRun) -> list[str]:
    """Why the two runs are not the same model and settings on the public set and one of its splits."""
    reasons = [
        f"{'.'.join(path)} differs: {_field(public.manifest, path)!r} in {public.root} vs "
        f"{_field(fresh.manifest, path)!r} in {fresh.root}"
        for path in SAME_FIELDS
        if _field(public.manifest, path) != _field(fresh.manifest, path)
    ]
    public_version = str(_field(public.manifest, ("dataset", "version")))
    fresh_version = str(_field(fresh.manifest, ("dataset", "version")))
    if SPLIT_MARK in public_version:
        reasons.append(f"PUBLIC_RUN {public.root} ran a held-out split (dataset version {public_version})")
    if not fresh_version.startswith(public_version + SPLIT_MARK):
        reasons.append(
            f"FRESH_RUN {fresh.root} did not run a split of the public dataset: its dataset version is "
            f"{fresh_version!r}, a split of {public_version!r} would be '{public_version}{SPLIT_MARK}NAME.N'"
        )
    return reasons


def group_label(records: Mapping[str, CaseRecord], labels: Sequence[str]) -> str | None:
    """The first of ``labels`` (the suite's split labels) that every record carries."""
    for label in labels:
        if records and all(r.label(label) is not None for r in records.values()):
            return label
    return None


def verdict(result: PairedDifference | None) -> str:
    if result is None:
        return NO_EVIDENCE
    return GAP if result.low > 0 and result.p_value < ALPHA else NO_EVIDENCE


def _row(
    name: str, public: LoadedRun, fresh: LoadedRun, keys_public: Sequence[str], keys_fresh: Sequence[str]
) -> dict[str, Any]:
    """One row: the paired gap public − fresh over the instances both runs scored."""
    pub = {k: public.records[k] for k in keys_public}
    new = {k: fresh.records[k] for k in keys_fresh}
    result = paired(new, pub)  # B − A with A = fresh: the gap public − fresh
    all_public = per_instance_rates(pub)
    return {
        "group": name,
        "pairs": result.instances if result is not None else 0,
        "public_instances": len(all_public),
        "public_pass_rate_all": sum(c / n for n, c in all_public.values()) / len(all_public)
        if all_public
        else None,
        "paired": asdict(result) if result is not None else None,
        "verdict": verdict(result),
    }


def contamination_report(public: LoadedRun, fresh: LoadedRun) -> dict[str, Any]:
    reasons = mismatches(public, fresh)
    if reasons:
        raise ContaminationError("refusing the contamination check: " + "; ".join(reasons))
    split_labels = [g.label for g in get_suite(str(public.manifest["suite"])).groupings if g.split]
    label = group_label(public.records, split_labels)
    groups_public: dict[str, list[str]] = defaultdict(list)
    groups_fresh: dict[str, list[str]] = defaultdict(list)
    for records, groups in ((public.records, groups_public), (fresh.records, groups_fresh)):
        for key, record in records.items():
            groups[str(record.label(label)) if label else "all"].append(key)
    rows = [
        _row(name, public, fresh, groups_public[name], groups_fresh.get(name, []))
        for name in sorted(groups_public)
    ]
    overall = _row("all", public, fresh, sorted(public.records), sorted(fresh.records))
    fresh_instances = {instance_of(k) for k in fresh.records}
    return {
        "public": str(public.root),
        "fresh": str(fresh.root),
        "model": _field(public.manifest, ("model", "alias")),
        "public_dataset_version": _field(public.manifest, ("dataset", "version")),
        "fresh_dataset_version": _field(fresh.manifest, ("dataset", "version")),
        "grouped_by": label,
        "paired_by": split_labels,
        "unpaired_fresh_instances": len(fresh_instances - {instance_of(k) for k in public.records}),
        "overall": overall,
        "groups": rows,
        "rule": f"'{GAP}' when the 95% interval of public − fresh lies above 0 and p < {ALPHA:g}",
    }


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}%"


def report_rows(report: Mapping[str, Any]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    headers: tuple[str, ...] = (
        report["grouped_by"] or "group", "pairs", "public (paired)", "fresh (paired)", "gap (pp)",
        "95% CI (pp)", "p-value", "test", "public, all instances", "verdict",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = []
    for row in (*report["groups"], report["overall"]):
        d = row["paired"]
        public_all = f"{_pct(row['public_pass_rate_all'])} of {row['public_instances']}"
        if d is None:
            rows.append(
                (row["group"], "0", "n/a", "n/a", "n/a", "n/a", "n/a", "", public_all, row["verdict"])
            )
            continue
        rows.append(
            (
                row["group"], str(row["pairs"]), _pct(d["mean_b"]), _pct(d["mean_a"]),
                _pct(d["difference"], True), f"[{_pct(d['low'], True)}, {_pct(d['high'], True)}]",
                f"{d['p_value']:.4g}", d["test"], public_all, row["verdict"],
            )
        )  # fmt: skip
    return headers, rows


def _intro(report: Mapping[str, Any]) -> list[str]:
    return [
        f"model {report['model']}: public run {report['public']} (dataset {report['public_dataset_version']})"
        f", fresh run {report['fresh']} (dataset {report['fresh_dataset_version']})",
        f"public instance k of {_each(report['paired_by'])} is paired with the split's "
        f"instance k; {report['rule']}",
        f"verdict overall: {report['overall']['verdict']}",
    ]


def _each(labels: Sequence[str]) -> str:
    """``each subcategory and difficulty``: what the split draws by (the whole set without labels)."""
    return f"each {' and '.join(labels)}" if labels else "the set"


def to_markdown(report: Mapping[str, Any]) -> str:
    headers, rows = report_rows(report)
    lines = ["# Contamination check", "", *(f"- {line}" for line in _intro(report)), ""]
    lines += ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def to_html(report: Mapping[str, Any]) -> str:
    """The same table as a self-contained page (no scripts, no network)."""
    esc = html.escape
    headers, rows = report_rows(report)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Contamination check</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}"
        ".gap{background:#fdd}</style></head><body><h1>Contamination check</h1><ul>",
        *(f"<li>{esc(line)}</li>" for line in _intro(report)),
        "</ul><table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>",
    ]
    for row in rows:
        marked = " class='gap'" if row[-1] == GAP else ""
        parts.append(f"<tr{marked}>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
    parts.append("</table></body></html>\n")
    return "".join(parts)


def run_contamination(public: Path, fresh: Path, out: Path | None) -> dict[str, Any]:
    report = contamination_report(load_run(public), load_run(fresh))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "contamination.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", "utf-8")
        (out / "contamination.md").write_text(to_markdown(report), encoding="utf-8")
        (out / "contamination.html").write_text(to_html(report), encoding="utf-8")
    return report
