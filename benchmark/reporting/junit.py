"""``junit.xml`` for CI dashboards: cases grouped by what they test, the run's facts on the suite.

pytest's junitxml plugin names every benchmark case ``cases.test_benchmark`` inside a testsuite
called "pytest", so a dashboard that groups by class shows one class of 780 cases and no model.
After the plugin has written the file, :func:`label_junit` rewrites it in place:

- each benchmark case's ``classname`` becomes ``<suite>.<first grouping>.<second grouping>`` (the
  first two labels the suite declares as groupings, e.g. family and subcategory), read from the
  case's record; the harness's own tests keep pytest's classname;
- the ``<testsuite>`` is named after the suite, and the ``<testsuites>`` root gets the run's wall
  time (pytest's session time of the testsuite), which a dashboard would otherwise take as the sum
  of the cases' times, cases that overlapped under ``-n``;
- the run's facts become testsuite properties whatever the run did (``optbench.model``, the
  dataset's name, version and hash, the headline metrics such as ``optbench.pass@1``), beside the
  gate's decision when a gate ran.

Per-case tokens, cost and time are ``<property>`` elements the evaluation adds to each test case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from benchmark.schema import CaseRecord

#: Per-case fields the evaluation shows as JUnit properties of the test case (when recorded).
CASE_PROPERTIES = (
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "model_time_s",
    "execution_time_s",
    "cache_hit",
    "truncated",
    "end_reason",
)


def case_classname(record: CaseRecord, groupings: Sequence[str]) -> str:
    """``<suite>.<value of the first grouping>.<value of the second>``, dots in values replaced so a
    dashboard's class tree keeps three levels (a missing value reads ``none``)."""
    parts = [record.suite]
    parts += [(record.label(label) or "none").replace(".", "_") for label in groupings[:2]]
    return ".".join(parts)


def run_properties(summary: Mapping[str, Any], records: Sequence[CaseRecord]) -> dict[str, str]:
    """What a dashboard shows of a run: model, suite, setting, dataset, headline metrics, spend."""
    run = summary.get("run") or {}
    properties: dict[str, str] = {}
    for key in ("model", "suite", "setting", "scoring", "schedule", "sandbox"):
        if run.get(key) is not None:
            properties[f"optbench.{key}"] = str(run[key])
    if records:
        first = records[0]
        facts = {
            "dataset_version": first.dataset_version,
            "dataset_sha256": first.dataset_sha256,
            "harness_version": first.harness_version,
        }
        for key, value in facts.items():
            if value is not None:
                properties[f"optbench.{key.replace('_', '.', 1)}"] = value
    metrics = summary.get("metrics") or {}
    for name, value in metrics.items():
        if (name.startswith("pass@") or name == "valid_code_rate") and isinstance(value, int | float):
            properties[f"optbench.{name}"] = f"{value:.6f}"
    for name, bounds in (metrics.get("ci95") or {}).items():
        if isinstance(bounds, list):
            properties[f"optbench.{name}.ci95"] = f"[{bounds[0]:.6f}, {bounds[1]:.6f}]"
    for name in ("instances", "samples"):
        if name in metrics:
            properties[f"optbench.{name}"] = str(metrics[name])
    counts = summary.get("counts") or {}
    for name in ("selected", "scored", "passed", "failed", "infrastructure_errors", "skipped"):
        if counts.get(name) is not None:
            properties[f"optbench.cases.{name}"] = str(counts[name])
    accounting = summary.get("accounting") or {}
    for name in ("model_calls", "cache_hits", "input_tokens", "output_tokens", "cost_usd", "cost_usd_sent"):
        if accounting.get(name) is not None:
            properties[f"optbench.{name}"] = str(accounting[name])
    return properties


def _case_id(name: str) -> str | None:
    """The case's test id from a JUnit test name ``test_case[<test id>]``."""
    if "[" not in name or not name.endswith("]"):
        return None
    return name[name.index("[") + 1 : -1]


def label_junit(
    junit: Path,
    summary: Mapping[str, Any],
    records: Sequence[CaseRecord],
    extra_properties: Mapping[str, str] | None = None,
) -> None:
    """Rewrite ``junit`` in place (see the module docstring); ``extra_properties`` (the gate's)
    join the run's. Running it again gives the same file."""
    if not junit.exists():
        return
    by_test_id = {r.test_id: r for r in records if r.test_id}
    groupings = list(summary.get("groupings") or ())
    suite_name = str((summary.get("run") or {}).get("suite") or "")
    properties = {**run_properties(summary, records), **(extra_properties or {})}
    tree = ElementTree.parse(junit)
    root = tree.getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    wall = 0.0
    for suite in suites:
        if suite_name:
            suite.set("name", suite_name)
        for case in suite.iter("testcase"):
            record = by_test_id.get(_case_id(case.get("name", "")) or "")
            if record is not None:
                case.set("classname", case_classname(record, groupings))
        wall = max(wall, float(suite.get("time", "0") or 0))
        block = suite.find("properties")
        if block is None:
            block = ElementTree.Element("properties")
            suite.insert(0, block)
        for element in [p for p in block.findall("property") if p.get("name", "").startswith("optbench.")]:
            block.remove(element)
        for name, value in properties.items():
            ElementTree.SubElement(block, "property", {"name": name, "value": value})
    if root.tag == "testsuites":
        root.set("time", f"{wall:.3f}")
        if suite_name:
            root.set("name", suite_name)
    tree.write(junit, encoding="utf-8", xml_declaration=True)
