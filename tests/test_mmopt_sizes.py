"""Size dimensions of instances, and the ours-vs-official size table (``scripts/mmopt_sizes.py``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from benchmark.suites.mmopt.generation.sizes import (
    RELEASE_SIZES,
    comparison_markdown,
    comparison_rows,
    release_names,
    release_tier_sizes,
    renamed,
    size_dimensions,
    tier_sizes,
    within_tolerance,
)
from benchmark.suites.mmopt.package import discover
from benchmark.suites.mmopt.subcategories import all_subcategories

REPO = Path(__file__).resolve().parents[1]
OFFICIAL = REPO / "tests" / "data" / "official_mmopt"
IRP = "multi_period_system_planning/inventory_routing_problem"


def test_size_dimensions_count_sets_lists_and_numbers() -> None:
    record = {
        "sets": {"nodes": ["a", "b", "c"], "periods": ["t1", "t2"], "name": "x"},
        "arcs": [{"from": "a", "to": "b", "capacity": 4}, {"from": "b", "to": "c", "capacity": 2.5}],
        "flag": True,
        "demand": {"a": {"t1": 1, "t2": "2"}, "b": [3, 4, False]},
    }
    assert size_dimensions(record) == {"sets.nodes": 3, "sets.periods": 2, "arcs": 2, "numbers": 5}


def test_official_over_ours_per_tier_and_dimension(tmp_path: Path) -> None:
    ours, official = tmp_path / "ours", tmp_path / "official"
    shutil.copytree(OFFICIAL / IRP / "easy", official / IRP / "easy")
    shutil.copytree(OFFICIAL / IRP / "medium", official / IRP / "medium")
    shutil.copytree(REPO / "fixtures/mmopt" / IRP / "medium/irp_m_001", ours / IRP / "medium/irp_m_001")
    mine = json.loads((ours / IRP / "medium/irp_m_001/ground_truth/instance_data.json").read_text())
    rows = {(r[1], r[2]): r[3:6] for r in comparison_rows(tier_sizes(ours), tier_sizes(official))}
    assert {tier for tier, _ in rows} == {"medium"}  # only tiers both sides have
    customers = len(mine["sets"]["customers"])
    assert rows["medium", "sets.customers"] == (f"{customers}", "8", f"{8 / customers:.2f}")
    assert rows["medium", "sets.vehicles"] == ("1", "2", "2.00")
    done = subprocess.run(
        [sys.executable, "scripts/mmopt_sizes.py", str(ours), "--official", str(official)],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "| inventory_routing_problem | medium | sets.vehicles | 1 | 2 | 2.00 | no |" in done.stdout
    assert "1 tiers on both sides; packages: ours 1, official 1" in done.stdout


def _release_packages() -> dict[str, tuple[str, dict[str, str], dict[str, int]]]:
    """instance id → (subcategory, its dimension → count-field map, its transcribed counts)."""
    found = {}
    for path in sorted(RELEASE_SIZES.glob("*.json")):
        for subcategory, entry in json.loads(path.read_text())["subcategories"].items():
            for instance_id, counts in entry["packages"].items():
                found[instance_id] = (subcategory, entry["dimensions"], counts)
    return found


def test_the_release_table_has_ten_medium_and_ten_hard_packages_of_every_subcategory() -> None:
    tiers = release_tier_sizes()
    expected = {(name, tier) for name in all_subcategories() for tier in ("medium", "hard")}
    assert set(tiers) == expected
    assert {key: tier.packages for key, tier in tiers.items()} == dict.fromkeys(expected, 10)
    assert all(tier.medians for tier in tiers.values()), "a tier with no mapped dimension"


def test_the_transcribed_counts_equal_the_sample_packages_instance_data() -> None:
    """The counts were read from the release's meta.json files; the sample's instance_data.json
    files were transcribed separately, so every mapped dimension must agree on them."""
    release, compared = _release_packages(), 0
    for ref in discover(OFFICIAL):
        if ref.labels["instance_id"] not in release:
            continue
        subcategory, dimensions, counts = release[ref.labels["instance_id"]]
        assert subcategory == ref.labels["subcategory"]
        measured = size_dimensions(json.loads((ref.location / "ground_truth/instance_data.json").read_text()))
        for dimension, count_field in dimensions.items():
            if dimension in measured and count_field in counts:
                assert measured[dimension] == counts[count_field], (ref.labels["instance_id"], dimension)
                compared += 1
    assert compared >= 100  # 52 medium/hard sample packages, 2-9 mapped dimensions each


def test_every_release_dimension_is_measured_on_our_side() -> None:
    """Each tier's official dimensions exist in our packages too (after ``our_names``), so the
    table compares every one of them and none drops out for a spelling."""
    ours = renamed(tier_sizes(REPO / "fixtures" / "mmopt"), release_names())
    for key, tier in release_tier_sizes().items():
        assert set(tier.medians) <= set(ours[key].medians), key


def test_within_tolerance_is_relative_to_the_official_median() -> None:
    assert within_tolerance(7.5, 10) and within_tolerance(12.5, 10)
    assert not within_tolerance(7.4, 10) and not within_tolerance(12.6, 10)


def test_the_table_against_the_shipped_counts_names_its_source_and_tally() -> None:
    lines = comparison_markdown(REPO / "fixtures" / "mmopt")
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    tally = lines[-1]
    assert "official side: the release's meta.json counts" in tally
    within = sum(row.endswith("| yes |") for row in rows)
    assert tally.endswith(f"within ±25% of the official median: {within} of {len(rows)}")
    assert "| bipartite_assignment | medium | sets.drivers |" in "\n".join(rows)
