"""The exact MILP cross-check gives one verdict whatever the process solved before.

Through ``scipy.optimize.milp``, the flow-shop cross-check of ``fhfss_h_006`` returned HiGHS status 16
("Solution limit reached") when it was the first solve of a fresh process and "optimal" after other
solves, so the dataset validated on one machine and failed in CI. These tests run a real shipped
package whose cross-check is that HiGHS model in a fresh interpreter and after an unrelated
multi-threaded solve. Since generator 2.0.0 (the release's scale) every medium and hard package is
certified by the one-machine bound met by a list schedule, so the package is ``fhfss_e_010``, the
shipped one whose HiGHS search is the longest; the expected optimum is CP-SAT's reference.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.protocol import Rejected
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling import generator
from tests.mmopt_support import instance_and_reference, shipped_package

#: fhfss_e_010: a cross-check through HiGHS (fhfss_h_006 of generator 1.0.0 failed in CI)
PACKAGE = ("scheduling_sequencing", "flexible_hybrid_flow-shop_scheduling", "fhfss", "easy", 10)


def _reference_objective(package: Path) -> float:
    return float(instance_and_reference(package)[1]["objective_value"])


def test_the_cross_check_proves_the_reference_optimum_in_a_fresh_process() -> None:
    package = shipped_package(*PACKAGE)
    script = (
        "import json, sys\n"
        "from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling import generator\n"
        "instance = json.loads(open(sys.argv[1]).read())\n"
        "print(json.dumps(generator.cross_check(instance)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(package / "ground_truth/instance_data.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    method, value = json.loads(done.stdout.strip().splitlines()[-1])
    assert "HiGHS" in method
    assert value == _reference_objective(package)


def test_the_cross_check_agrees_after_another_multithreaded_solve() -> None:
    package = shipped_package(*PACKAGE)
    milp(c=[-1.0, -1.0], constraints=[LinearConstraint([[1.0, 2.0]], ub=3.0)], integrality=[1, 1])
    instance, _ = instance_and_reference(package)
    # the one-machine bound is below the optimum: the verdict is HiGHS's search, not the bound's
    assert generator.makespan_lower_bound(instance) < _reference_objective(package)
    assert generator.cross_check(instance)[1] == _reference_objective(package)


def test_an_unproven_model_is_rejected_with_the_status() -> None:
    """x + y ≥ 3 with x, y binary is infeasible: not optimal, so the candidate is rejected."""
    with pytest.raises(Rejected, match="Infeasible"):
        proven_optimum(
            [1.0, 1.0],
            np.array([[1.0, 1.0]]),
            ([3.0], [np.inf]),
            ([0.0, 0.0], [1.0, 1.0]),
            [True, True],
            time_limit_s=10.0,
        )


def test_an_integral_optimum_is_snapped_and_returned() -> None:
    """max 5x + 4y s.t. 6x + 4y ≤ 24, x + 2y ≤ 6, x and y integer, as a minimization: −20."""
    value = proven_optimum(
        [-5.0, -4.0],
        np.array([[6.0, 4.0], [1.0, 2.0]]),
        ([-np.inf, -np.inf], [24.0, 6.0]),
        ([0.0, 0.0], [10.0, 10.0]),
        [True, True],
        time_limit_s=10.0,
    )
    reference = milp(
        c=[-5.0, -4.0],
        constraints=[LinearConstraint([[6.0, 4.0], [1.0, 2.0]], ub=[24.0, 6.0])],
        integrality=[1, 1],
        bounds=Bounds([0, 0], [10, 10]),
    )
    assert value == round(reference.fun) == -20.0
