"""The reward, written for optbench's tests in the release's form: a weighted mean of per-metric
closeness (two-sided, or min-max between the baseline and outstanding values where the metric
declares it), normalised between the panel's endpoints, written to /logs/verifier/reward.txt."""

import json
import math
from pathlib import Path

ARTIFACT = Path("/root/results/route-budget_result.json")
CONFIG = json.loads(Path("/tests/score_config.json").read_text(encoding="utf-8"))
LOGS = Path("/logs/verifier")


def value_at(data, dotted):
    node = data
    for part in dotted.replace("]", "").replace("[", ".").split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def number(raw):
    result = float(raw)  # like the release: numeric strings and booleans are numbers here
    if not math.isfinite(result):
        raise ValueError(raw)
    return result


def closeness(actual, metric):
    anchor = float(metric["oracle_value"])
    floor, relative = abs(float(metric.get("abs_scale", 1e-6))), abs(float(metric.get("rel_scale", 0.12)))
    width = max(floor, relative * abs(anchor), 1e-12)
    return 1.0 / (1.0 + abs(actual - anchor) / width)


def endpoint(actual, metric):
    low, high = float(metric["baseline_value"]), float(metric["outstanding_value"])
    span = (high - low) if metric.get("direction") == "higher_is_better" else (low - high)
    if span <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - abs(actual - high) / span))


def panel_endpoint(key, default):
    block = CONFIG.get(key, {})
    return float(block.get("normalized_panel_score", block.get("panel_score", default)))


def main():
    data = json.loads(ARTIFACT.read_text(encoding="utf-8"))
    total = weights = 0.0
    rows = []
    for metric in CONFIG["metrics"]:
        weight = max(0.0, float(metric.get("score_weight", metric.get("weight", 1.0))))
        row = {"path": metric["path"], "weight": weight, "reward": 0.0}
        try:
            actual = number(value_at(data, metric["path"]))
        except (KeyError, IndexError, TypeError, ValueError):
            row["found"] = False
        else:
            row["found"] = True
            if weight > 0:
                minmax = metric.get("normalization_mode") == "baseline_to_outstanding_target_minmax"
                row["reward"] = endpoint(actual, metric) if minmax else closeness(actual, metric)
        if weight > 0:
            total += weight * row["reward"]
            weights += weight
        rows.append(row)
    raw = min(1.0, max(0.0, total / weights if weights else 0.0))
    low, high = panel_endpoint("baseline_endpoint", 0.0), panel_endpoint("outstanding_endpoint", 1.0)
    reward = raw if high <= low else min(1.0, max(0.0, (raw - low) / (high - low)))
    (LOGS / "reward.txt").write_text(f"{reward:.12g}\n", encoding="utf-8")
    details = {"reward": reward, "raw": raw, "metrics": rows}
    (LOGS / "score_details.json").write_text(json.dumps(details), encoding="utf-8")
    print(f"reward={reward:.12g} raw={raw:.12g}")


if __name__ == "__main__":
    main()
