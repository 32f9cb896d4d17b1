"""A held-out split reproduces byte for byte and validates, also where a verdict once depended on
the machine's load or on which of several optima a solver reported.

``generate --split heldout --seed-base 7`` failed ``validate`` on two packages: fhfss_m_001, whose
first candidate the flow-shop MILP cross-check rejected under load (a wall-clock limit beside its
node budget) and then accepted when ``validate`` regenerated it; and cnd_m_001, whose nontriviality
check rejected the package as "fractional flow at the optimum" in ``validate`` though generation
had accepted it (SCIP may report a fractional flow among alternative optima of a design whose flows
the check never uses). Both are generated here twice, in two processes with different hash seeds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.validate import validate
from tests.conftest import REPO

SUBCATEGORIES = ("capacitated_network_design", "flexible_hybrid_flow-shop_scheduling")


def _generate(out: Path, hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    args = [sys.executable, "-m", "benchmark", "generate", "--split", "heldout", "--seed-base", "7",
            "--per-difficulty", "1", "--out", str(out)]  # fmt: skip
    for name in SUBCATEGORIES:
        args += ["--subcategory", name]
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_the_split_packages_that_once_failed_reproduce_and_validate(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _generate(first, "1")
    _generate(second, "2")
    assert _files(first) == _files(second)
    assert (first / "network_optimization/capacitated_network_design/medium/cnd_m_001/meta.json").exists()
    report = validate(first, processes=1)
    assert report.failures == [], report.failures


def test_a_node_budget_alone_decides_a_cross_check_whatever_the_clock_says() -> None:
    """A tiny knapsack MILP with no time at all: the node budget, not the clock, gives the verdict."""
    weights, values = np.array([3.0, 4.0, 5.0]), np.array([4.0, 5.0, 6.0])
    value = proven_optimum(
        -values,
        weights.reshape(1, -1),
        ([-np.inf], [7.0]),
        (np.zeros(3), np.ones(3)),
        np.ones(3, dtype=bool),
        time_limit_s=0.0,
        node_limit=1000,
    )
    assert value == -9.0  # items 1 and 2
