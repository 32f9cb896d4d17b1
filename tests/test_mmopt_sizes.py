"""Size dimensions of instances, and the ours-vs-official size table (``scripts/mmopt_sizes.py``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from benchmark.suites.mmopt.generation.sizes import comparison_rows, size_dimensions, tier_sizes

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
    rows = {(r[1], r[2]): r[3:] for r in comparison_rows(tier_sizes(ours), tier_sizes(official))}
    assert {tier for tier, _ in rows} == {"medium"}  # only tiers both sides have
    customers = len(mine["sets"]["customers"])
    assert rows["medium", "sets.customers"] == (f"{customers}", "8", f"{8 / customers:.2f}")
    assert rows["medium", "sets.vehicles"] == ("1", "2", "2.00")
    done = subprocess.run(
        [sys.executable, "scripts/mmopt_sizes.py", str(ours), "--official", str(official)],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "| inventory_routing_problem | medium | sets.vehicles | 1 | 2 | 2.00 |" in done.stdout
    assert "1 tiers on both sides; packages: ours 1, official 1" in done.stdout
