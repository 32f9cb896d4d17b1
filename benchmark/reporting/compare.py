"""``python -m benchmark compare RUN_A RUN_B``: two runs on the same cases, paired per instance.

Two scores from different runs are only comparable on the same instances, under the same dataset
version and scoring mode, so the comparison pairs instances present and scored in both runs and
refuses (unless told to) runs whose datasets or scoring differ, and warns when their settings
(setting, decoding, execution limits) differ. The difference B − A of pass@1 gets a paired 95%
interval and a paired test (with one sample per instance the exact McNemar test and its exact
conditional interval, which stay sane on a handful of instances; otherwise a paired bootstrap and
a sign-flip test), overall and per value of each label the suite declares for comparison
(:attr:`benchmark.suites.base.Grouping.compare`); every case whose verdict flipped is listed.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from benchmark.records import FINISHED_OUTCOMES, latest_by_case, read_records
from benchmark.reporting.intervals import PairedDifference, paired_difference
from benchmark.run import RunPaths, read_manifest
from benchmark.schema import CaseRecord
from benchmark.suites.base import get_suite

#: What must agree between two runs for their scores to be comparable.
COMPATIBILITY_FIELDS: tuple[tuple[str, ...], ...] = (
    ("suite",), ("dataset", "name"), ("dataset", "version"), ("dataset", "sha256"), ("scoring",),
)  # fmt: skip


#: How each run was made: runs that differ here are comparable, but the difference may come from
#: the settings rather than the model, so the comparison says so.
SETTING_FIELDS: tuple[tuple[str, ...], ...] = (
    ("setting",), ("decoding", "schedule"), ("decoding", "samples"), ("decoding", "temperature"),
    ("decoding", "max_tokens"), ("objective_only",), ("execution", "timeout_s"), ("execution", "memory_mb"),
)  # fmt: skip


RateField = Literal["passed", "valid_code"]
"""The record fields a rate is taken of: ``passed`` (pass@1) and ``valid_code`` (Valid Code Rate)."""


class CompareError(ValueError):
    """Two runs that cannot be compared (missing files, different datasets or scoring)."""


@dataclass(frozen=True)
class LoadedRun:
    root: Path
    manifest: dict[str, Any]
    records: dict[str, CaseRecord]
    """The latest scored record of every case (``passed``/``failed``), official settings only."""


def _field(manifest: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = manifest
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def load_run(root: Path) -> LoadedRun:
    paths = RunPaths(root)
    if not paths.results.exists():
        raise CompareError(f"{paths.results}: no results file; is {root} a run folder?")
    manifest = read_manifest(paths)
    if "suite" not in manifest:
        raise CompareError(f"{paths.manifest}: no manifest naming the run's suite")
    suite = get_suite(str(manifest["suite"]))
    official = suite.official_settings
    records = {
        key: record
        for key, record in latest_by_case(read_records(paths.results)).items()
        if record.outcome in FINISHED_OUTCOMES and (official is None or record.setting in official)
    }
    return LoadedRun(root, manifest, records)


def incompatibilities(a: LoadedRun, b: LoadedRun) -> list[str]:
    """Why two runs' scores are not comparable (empty when they are)."""
    reasons = []
    for path in COMPATIBILITY_FIELDS:
        left, right = _field(a.manifest, path), _field(b.manifest, path)
        if left != right:
            reasons.append(f"{'.'.join(path)} differs: {left!r} in {a.root} vs {right!r} in {b.root}")
    return reasons


def setting_differences(a: LoadedRun, b: LoadedRun) -> list[str]:
    """How the two runs were made differently (setting, decoding, execution limits)."""
    return [
        f"{'.'.join(path)} differs: {_field(a.manifest, path)!r} in A vs {_field(b.manifest, path)!r} in B"
        for path in SETTING_FIELDS
        if _field(a.manifest, path) != _field(b.manifest, path)
    ]


def instance_of(case_key: str) -> str:
    """A case key without its sample suffix: the unit that is paired and resampled."""
    return case_key.rsplit("/", 1)[0]


def per_instance_rates(
    records: Mapping[str, CaseRecord], field: RateField = "passed"
) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, record in sorted(records.items()):
        entry = counts[instance_of(key)]
        entry[0] += 1
        entry[1] += int(record.passed if field == "passed" else record.valid_code)
    return {k: (n, c) for k, (n, c) in counts.items()}


def paired(
    a: Mapping[str, CaseRecord],
    b: Mapping[str, CaseRecord],
    instances: Sequence[str] | None = None,
    field: RateField = "passed",
) -> PairedDifference | None:
    """The rate of ``field`` (pass@1 for ``passed``) of B − A over the instances scored in both
    (optionally only ``instances``)."""
    rates_a, rates_b = per_instance_rates(a, field), per_instance_rates(b, field)
    common = sorted(set(rates_a) & set(rates_b) & (set(instances) if instances is not None else set(rates_a)))
    pairs = [(rates_a[k][1] / rates_a[k][0], rates_b[k][1] / rates_b[k][0]) for k in common]
    binary = all(rates_a[k][0] == 1 and rates_b[k][0] == 1 for k in common)
    return paired_difference(pairs, binary)


def compare_runs(a: LoadedRun, b: LoadedRun, *, allow_mismatch: bool = False) -> dict[str, Any]:
    reasons = incompatibilities(a, b)
    if reasons and not allow_mismatch:
        raise CompareError(
            "refusing to compare: " + "; ".join(reasons) + " (--allow-mismatch to compare anyway)"
        )
    suite = get_suite(str(a.manifest["suite"]))
    common = sorted(set(a.records) & set(b.records))
    flipped = [
        {"case": key, "a": a.records[key].passed, "b": b.records[key].passed,
         "category_a": a.records[key].category, "category_b": b.records[key].category}
        for key in common
        if a.records[key].passed != b.records[key].passed
    ]  # fmt: skip
    overall = paired(a.records, b.records)
    breakdown: dict[str, dict[str, Any]] = {}
    for grouping in (g for g in suite.groupings if g.compare):
        groups: dict[str, list[str]] = defaultdict(list)
        for key in common:
            value = a.records[key].label(grouping.label)
            if value is not None:
                groups[value].append(instance_of(key))
        breakdown[grouping.label] = {
            name: _as_dict(paired(a.records, b.records, groups[name]))
            for name in sorted(groups, key=grouping.sort_key)
        }
    return {
        "a": str(a.root),
        "b": str(b.root),
        "mismatches": reasons,
        "setting_differences": setting_differences(a, b),
        "only_in_a": len(set(a.records) - set(b.records)),
        "only_in_b": len(set(b.records) - set(a.records)),
        "paired_cases": len(common),
        "pass@1": _as_dict(overall),
        "by": breakdown,
        "flipped": flipped,
    }


def _as_dict(result: PairedDifference | None) -> dict[str, Any] | None:
    return asdict(result) if result is not None else None


def _pct(value: float) -> str:
    return f"{100 * value:+.1f}" if value else "0.0"


def _verdict(passed: bool, category: str | None) -> str:
    return "pass" if passed else f"fail ({category})"


#: A titled table: (title, headers, rows).
TitledTable = tuple[str, tuple[str, ...], list[tuple[str, ...]]]


def comparison_tables(comparison: Mapping[str, Any]) -> list[TitledTable]:
    headers = ("", "instances", "pass@1 A", "pass@1 B", "B − A (pp)", "95% CI (pp)", "p-value", "test")

    def row(name: str, d: Mapping[str, Any] | None) -> tuple[str, ...]:
        if d is None:
            return (name, "0", "n/a", "n/a", "n/a", "n/a", "n/a", "")
        return (
            name, str(d["instances"]), f"{100 * d['mean_a']:.1f}%", f"{100 * d['mean_b']:.1f}%",
            _pct(d["difference"]), f"[{_pct(d['low'])}, {_pct(d['high'])}]", f"{d['p_value']:.4g}", d["test"],
        )  # fmt: skip

    tables: list[TitledTable] = [("pass@1, B − A", headers, [row("all", comparison["pass@1"])])]
    for label, groups in comparison["by"].items():
        tables.append((f"By {label}", (label, *headers[1:]), [row(n, d) for n, d in groups.items()]))
    flips: list[tuple[str, ...]] = [
        (f["case"], _verdict(f["a"], f["category_a"]), _verdict(f["b"], f["category_b"]))
        for f in comparison["flipped"]
    ]
    tables.append((f"Flipped cases ({len(flips)})", ("case", "A", "B"), flips))
    return tables


def _setting_warnings(comparison: Mapping[str, Any]) -> list[str]:
    differences = comparison.get("setting_differences") or []
    if not differences:
        return []
    return [
        f"the runs were made with different settings ({'; '.join(differences)}): part of B − A may be theirs"
    ]


def interval_methods(comparison: Mapping[str, Any]) -> list[str]:
    """The interval methods the comparison's rows used, in order of first use."""
    rows = [comparison.get("pass@1"), *(d for groups in comparison["by"].values() for d in groups.values())]
    return list(dict.fromkeys(str(d["interval"]) for d in rows if d and d.get("interval")))


def to_markdown(comparison: Mapping[str, Any]) -> str:
    lines = ["# Run comparison", "", f"- **A**: {comparison['a']}", f"- **B**: {comparison['b']}"]
    lines.append(
        f"- **paired cases**: {comparison['paired_cases']} (only in A: {comparison['only_in_a']}, "
        f"only in B: {comparison['only_in_b']})"
    )
    lines += [f"- **warning**: {reason}" for reason in comparison["mismatches"]]
    lines += [f"- **warning**: {line}" for line in _setting_warnings(comparison)]
    methods = interval_methods(comparison)
    if methods:
        lines.append(f"- **95% intervals**: {'; '.join(methods)}")
    lines.append("")
    for title, headers, rows in comparison_tables(comparison):
        lines += [
            f"## {title}",
            "",
            "| " + " | ".join(headers) + " |",
            "|" + "|".join("---" for _ in headers) + "|",
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def to_html(comparison: Mapping[str, Any]) -> str:
    """The same tables as a self-contained page (no scripts, no network)."""
    esc = html.escape
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Run comparison</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
        "td:first-child{text-align:left}</style>",
        "</head><body><h1>Run comparison</h1>",
        f"<p>A: {esc(comparison['a'])}<br>B: {esc(comparison['b'])}<br>"
        f"paired cases: {comparison['paired_cases']}</p>",
    ]
    parts += [f"<p><strong>warning</strong>: {esc(reason)}</p>" for reason in comparison["mismatches"]]
    parts += [f"<p><strong>warning</strong>: {esc(line)}</p>" for line in _setting_warnings(comparison)]
    methods = interval_methods(comparison)
    if methods:
        parts.append(f"<p>95% intervals: {esc('; '.join(methods))}</p>")
    for title, headers, rows in comparison_tables(comparison):
        parts.append(
            f"<h2>{esc(title)}</h2><table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>"
        )
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows]
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)


def run_compare(run_a: Path, run_b: Path, out: Path | None, allow_mismatch: bool) -> dict[str, Any]:
    comparison = compare_runs(load_run(run_a), load_run(run_b), allow_mismatch=allow_mismatch)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.json").write_text(
            json.dumps(comparison, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        (out / "compare.md").write_text(to_markdown(comparison), encoding="utf-8")
        (out / "compare.html").write_text(to_html(comparison), encoding="utf-8")
    return comparison
