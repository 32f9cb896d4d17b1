"""``--gate-baseline RUN_DIR`` with ``--gate 'pass@1>=baseline-0.02'``: a non-inferiority gate.

A fixed threshold is crossed by a lucky or unlucky run; what a release needs to know is whether
the candidate is worse than the current model beyond a stated margin, given the noise of a finite
set of instances. The candidate and the baseline are paired per instance (both scored, same
dataset version and scoring mode), and the condition holds when the whole 95% interval of the
paired difference (candidate − baseline) lies on the allowed side of the margin: for ``>=`` its
lower end is at least the margin. A candidate equal to its baseline has a difference of exactly
zero and passes any margin ``>= baseline-m`` with m ≥ 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchmark.gate import Allowance, Condition, GateResult, evaluate_gate, parse_gate
from benchmark.reporting.compare import LoadedRun, RateField, incompatibilities, load_run, paired
from benchmark.reporting.summary import unscored_errors

_FIELDS: dict[str, RateField] = {"pass@1": "passed", "valid_code_rate": "valid_code"}


def baseline_decider(
    candidate: LoadedRun, baseline: LoadedRun, details: list[dict[str, Any]]
) -> Callable[[Condition], tuple[bool, str]]:
    """Decides each relative condition; appends what it found (interval, test) to ``details``."""
    mismatches = incompatibilities(baseline, candidate)

    def decide(condition: Condition) -> tuple[bool, str]:
        if mismatches:
            details.append({"condition": str(condition), "passed": False, "mismatches": mismatches})
            return False, "not comparable with the baseline: " + "; ".join(mismatches)
        result = paired(baseline.records, candidate.records, field=_FIELDS[condition.metric])
        if result is None:
            details.append({"condition": str(condition), "passed": False, "instances": 0})
            return False, f"no instance is scored in both this run and the baseline {baseline.root}"
        margin = condition.threshold
        if condition.op in (">=", ">"):
            ok = result.low >= margin if condition.op == ">=" else result.low > margin
            bound = f"lower 95% bound {result.low:+.4f} {'>=' if ok else '<'} margin {margin:+.4f}"
        else:
            ok = result.high <= margin if condition.op == "<=" else result.high < margin
            bound = f"upper 95% bound {result.high:+.4f} {'<=' if ok else '>'} margin {margin:+.4f}"
        details.append(
            {
                "condition": str(condition),
                "passed": ok,
                "baseline": str(baseline.root),
                "instances": result.instances,
                "baseline_value": result.mean_a,
                "candidate_value": result.mean_b,
                "difference": result.difference,
                "ci95": [result.low, result.high],
                "test": result.test,
                "p_value": result.p_value,
            }
        )
        return ok, (
            f"candidate {result.mean_b:.4f} vs baseline {result.mean_a:.4f} over {result.instances} paired "
            f"instances: difference {result.difference:+.4f}, "
            f"95% CI [{result.low:+.4f}, {result.high:+.4f}]; "
            f"{bound}; {result.test} p={result.p_value:.4g}"
        )

    return decide


def run_gate(
    summary: dict[str, Any],
    run_root: Path,
    expression: str,
    allowance: Allowance,
    baseline_dir: Path | None,
) -> GateResult:
    """Evaluate ``--gate`` on a finished run's summary (and against ``baseline_dir`` when its
    conditions are relative) and store the decision, every interval and test in ``summary``."""
    metrics = {k: v for k, v in summary["metrics"].items() if isinstance(v, int | float) or v is None}
    counts = summary["counts"]
    details: list[dict[str, Any]] = []
    decide = None
    if baseline_dir is not None:
        decide = baseline_decider(load_run(run_root), load_run(baseline_dir), details)
    result = evaluate_gate(
        parse_gate(expression),
        metrics,
        selected=counts["selected"] if counts["selected"] is not None else counts["cases"],
        unscored=unscored_errors(summary),
        allowance=allowance,
        baseline=decide,
    )
    summary["run"]["gate"] = {
        "passed": result.passed,
        "expression": expression,
        "lines": list(result.lines),
        **({"baseline": details} if baseline_dir is not None else {}),
    }
    return result


def junit_properties(gate: Mapping[str, Any]) -> dict[str, str]:
    """The gate's decision as JUnit ``<testsuite>`` properties, for CI systems that show them."""
    properties = {
        "optbench.gate": "passed" if gate["passed"] else "failed",
        "optbench.gate.expression": gate["expression"],
    }
    for index, detail in enumerate(gate.get("baseline") or ()):
        prefix = f"optbench.gate.baseline.{index}"
        properties[f"{prefix}.condition"] = str(detail["condition"])
        properties[f"{prefix}.passed"] = str(detail["passed"]).lower()
        if "ci95" in detail:
            properties[f"{prefix}.difference"] = f"{detail['difference']:.6f}"
            properties[f"{prefix}.ci95"] = f"[{detail['ci95'][0]:.6f}, {detail['ci95'][1]:.6f}]"
            properties[f"{prefix}.test"] = f"{detail['test']} p={detail['p_value']:.6g}"
    for index, line in enumerate(gate["lines"]):
        properties[f"optbench.gate.line.{index}"] = line
    return properties
