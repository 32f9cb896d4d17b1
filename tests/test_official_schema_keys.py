"""Our generated packages use the official instance schema: no key the official release lacks.

For every subcategory with an official sample package under ``tests/data/official_mmopt`` (plus the
keys of other official variants listed in ``more_official_keys.json``), every shipped package's
``instance_data.json`` may use only top-level keys the official schema has, and records in a list
(``arcs: [{...}]``) only the record keys the official records have. A package of ours may leave
official keys out (e.g. descriptive ones), never add its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.official import official_rules, official_schema
from benchmark.suites.mmopt.subcategories import get_subcategory

SAMPLE = Path(__file__).parent / "data" / "official_mmopt"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
MORE: dict[str, Any] = json.loads((SAMPLE / "more_official_keys.json").read_text(encoding="utf-8"))
#: Instance keys of ours that no official package of the subcategory has, kept on purpose (listed in
#: the README's MM-OptBench section): side constraints that make our small medium/hard instances hard
#: while HiGHS and CP-SAT still prove their optimum; the official hard variants of these
#: subcategories get their difficulty from size instead (e.g. 36-48 jobs for parallel machines).
#: Bipartite assignment's ``objective_sense`` marks our maximizing variant, which the official
#: release (minimizing only) lacks. Subcategory -> key -> what it adds.
EXTENSIONS: dict[str, dict[str, str]] = {
    "bipartite_assignment": {
        "objective_sense": "medium and hard: 'maximize' the summed cost_matrix values (official: minimize)",
    },
    "flexible_hybrid_flow-shop_scheduling": {
        "eligible_machines": "hard: per job and stage, the only machines of the stage the job may use",
    },
    "lot_sizing_production_planning": {
        "setup_time": "hard: a period's setup of a product uses that much of the period's capacity",
    },
    "parallel_machine_scheduling": {
        "setup_time": "medium and hard: a job occupies its machine for setup plus processing time",
    },
}
#: Extensions no check reads: they tell the model (through the task text) and the generator what
#: is optimized, while feasibility and the recomputed objective do not depend on them.
UNREAD_EXTENSIONS: frozenset[tuple[str, str]] = frozenset({("bipartite_assignment", "objective_sense")})
README = Path(__file__).resolve().parents[1] / "README.md"


def _record_keys(instance: Mapping[str, Any]) -> dict[str, set[str]]:
    """Field → the keys of the records in that field, for every list of records."""
    return {
        field: {key for record in value for key in record}
        for field, value in instance.items()
        if isinstance(value, list) and value and all(isinstance(r, Mapping) for r in value)
    }


def _official_schema() -> dict[str, tuple[set[str], dict[str, set[str]]]]:
    schema: dict[str, tuple[set[str], dict[str, set[str]]]] = {}
    for path in sorted(SAMPLE.glob("*/*/*/*/ground_truth/instance_data.json")):
        subcategory = path.parents[3].name
        instance = json.loads(path.read_text(encoding="utf-8"))
        keys, records = schema.setdefault(subcategory, (set(), {}))
        keys |= set(instance)
        for field, found in _record_keys(instance).items():
            records.setdefault(field, set()).update(found)
    for subcategory, extra in MORE.items():
        if isinstance(extra, Mapping):
            keys, records = schema[subcategory]
            keys |= set(extra.get("keys", ()))
            for field, found in extra.get("records", {}).items():
                records.setdefault(field, set()).update(found)
    return schema


OFFICIAL = _official_schema()


def _shipped(subcategory: str) -> list[Path]:
    return sorted(FIXTURES.glob(f"*/{subcategory}/*/*/ground_truth/instance_data.json"))


def _params() -> list[str]:
    return [name for name in sorted(OFFICIAL) if _shipped(name)]


@pytest.mark.parametrize("subcategory", _params())
def test_shipped_instances_use_only_official_keys(subcategory: str) -> None:
    keys, records = OFFICIAL[subcategory]
    keys = keys | set(EXTENSIONS.get(subcategory, {}))
    problems = []
    for path in _shipped(subcategory):
        instance = json.loads(path.read_text(encoding="utf-8"))
        extra = sorted(set(instance) - keys)
        if extra:
            problems.append(f"{path.parents[1].name}: keys the official schema lacks: {extra}")
        for field, found in _record_keys(instance).items():
            extra = sorted(found - records.get(field, set()))
            if extra:
                problems.append(f"{path.parents[1].name}: {field}[] record keys the official lacks: {extra}")
    assert not problems, "\n".join(problems[:10])


def test_every_shipped_subcategory_with_an_official_sample_is_checked() -> None:
    checked = set(_params())
    assert {"maximum_flow", "time-expanded_multi-period_network_flow", "facility_location"} <= checked
    assert {"bipartite_assignment", "p_median_center"} <= checked


@pytest.mark.parametrize("subcategory", [n for n in _params() if official_rules(n) is not None])
def test_shipped_instances_are_scored_by_the_official_rules(subcategory: str) -> None:
    """No shipped package of a subcategory with official rules falls back to its validator."""
    unread = [
        path.parents[1].name
        for path in _shipped(subcategory)
        if official_schema(subcategory, json.loads(path.read_text(encoding="utf-8"))) is None
    ]
    assert not unread, unread


def test_the_check_catches_a_key_of_our_own() -> None:
    keys, _ = OFFICIAL["maximum_flow"]
    assert "problem" not in keys and "layers" not in keys
    assert {"nodes", "source", "sink", "arcs"} <= keys


@pytest.mark.parametrize("subcategory", sorted(EXTENSIONS))
def test_each_extension_is_ours_used_and_documented(subcategory: str) -> None:
    """An extension is a key the official schema lacks (sample and ``more_official_keys.json``), that
    a shipped package still uses, the README names and the validator lists as optional (an official
    package, without it, is scored without that constraint): otherwise the entry is stale, hides an
    official key whose name and shape we should match instead, or breaks official packages."""
    keys, _ = OFFICIAL[subcategory]
    used = set().union(*(json.loads(p.read_text(encoding="utf-8")) for p in _shipped(subcategory)))
    listed = _readme_line(README.read_text(encoding="utf-8"), subcategory)
    optional = set(getattr(getattr(get_subcategory(subcategory), "validator", None), "OPTIONAL_KEYS", ()))
    for key in EXTENSIONS[subcategory]:
        assert key not in keys, f"{subcategory}: {key!r} is an official key, not an extension"
        assert key in used, f"{subcategory}: no shipped package uses the extension {key!r}"
        assert f"`{key}`" in listed, f"README.md has no line '- {subcategory}: ... `{key}` ...'"
        if (subcategory, key) in UNREAD_EXTENSIONS:
            _assert_unread(subcategory, key)
        else:
            assert key in optional, f"{subcategory}: the validator's OPTIONAL_KEYS lack the extension {key!r}"


def _assert_unread(subcategory: str, key: str) -> None:
    """Every shipped reference gets the same verdict from the validator with ``key`` dropped."""
    check = get_subcategory(subcategory).check_solution  # type: ignore[attr-defined]
    for path in _shipped(subcategory):
        instance = json.loads(path.read_text(encoding="utf-8"))
        if key not in instance:
            continue
        reference = json.loads((path.parent / "solution_ref.json").read_text(encoding="utf-8"))
        without = {k: v for k, v in instance.items() if k != key}
        assert check(without, reference) == check(instance, reference), path.parents[1].name


def _readme_line(readme: str, subcategory: str) -> str:
    """The README line listing ``subcategory``'s extensions ('' when there is none)."""
    return next((line for line in readme.splitlines() if line.startswith(f"- {subcategory}:")), "")
