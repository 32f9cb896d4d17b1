"""Which program executes the AMPL files: a real AMPL through amplpy, or GNU MathProg (glpsol).

``--nldata-backend auto`` (the default) uses AMPL when amplpy imports *and* can start a licensed
AMPL here (a one-statement probe), otherwise MathProg, and says why in the run manifest
(``dataset.backend`` and ``dataset.backend_reason``) and in every record (``extra.backend``).
``--nldata-backend ampl`` refuses to start when AMPL is unusable instead of falling back.

The AMPL path runs the same rewritten files (commands removed, see ``mathprog.py``; no translation,
AMPL needs none) in the same sandbox with amplpy and the HiGHS solver module. The held-out data's
display and runs (``heldout.py``) use glpsol in either case, after the translation, and the record
says so. No AMPL executable or licence was at hand where this suite was built: the path is tested
end to end with an in-process fake of amplpy's documented API (``tests/test_nldata_ampl.py``); its
error classes (``classify_ampl``) follow AMPL's documented message wording and are unverified.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from benchmark.categories import ExecutionCategory
from benchmark.suites.nldata.categories import NLDataCategory
from benchmark.suites.nldata.mathprog import BACKEND as MATHPROG
from benchmark.suites.nldata.mathprog import RESULT_PREFIX

AMPL = "ampl-amplpy"
CHOICES: tuple[str, ...] = ("auto", "mathprog", "ampl")


@dataclass(frozen=True)
class BackendChoice:
    name: str
    reason: str


_PROBE = """\
from amplpy import AMPL
ampl = AMPL()
ampl.eval("var x >= 1; minimize z: x;")
ampl.solve(solver="highs", verbose=False)
print("PROBE", ampl.solve_result, ampl.get_current_objective().value())
"""


def probe_ampl() -> str | None:
    """None when amplpy can start AMPL and solve a one-variable model, else the reason it cannot.

    The probe runs in a child interpreter: amplpy prints its installation banner straight to the
    process's streams, and a broken AMPL must not take the harness down with it. Without an
    ``ampl`` executable on PATH or amplpy's bundled one (``ampl_module_base``) there is nothing to
    probe, which keeps the common case instant."""
    if importlib.util.find_spec("amplpy") is None:
        return "amplpy is not installed"
    if shutil.which("ampl") is None and importlib.util.find_spec("ampl_module_base") is None:
        return "no ampl executable on PATH and no amplpy.modules installation"
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the AMPL probe could not run ({exc})"
    if "PROBE solved 1" in done.stdout:
        return None
    text = done.stderr + done.stdout
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("*")]
    if any("No module named" in line for line in lines):
        return "amplpy is not installed"
    return "amplpy cannot start AMPL: " + " ".join(lines[-2:])[:300]


def choose(preference: str) -> BackendChoice:
    if preference not in CHOICES:
        raise ValueError(f"--nldata-backend must be one of {', '.join(CHOICES)}, got {preference!r}")
    if preference == "mathprog":
        return BackendChoice(MATHPROG, "chosen with --nldata-backend=mathprog")
    problem = probe_ampl()
    if problem is None:
        return BackendChoice(AMPL, "amplpy started a licensed AMPL")
    if preference == "ampl":
        raise ValueError(f"--nldata-backend=ampl: {problem}")
    return BackendChoice(MATHPROG, f"no usable AMPL ({problem}); GNU MathProg runs the files")


#: The AMPL run, with amplpy's documented API only: ``read``, ``read_data``, ``solve``,
#: ``solve_result`` and ``get_objectives`` (an iterable of (name, objective) pairs).
AMPL_SCRIPT = f"""\
import json

from amplpy import AMPL

result = {{}}
ampl = AMPL()
try:
    ampl.read("model.mod")
    ampl.read_data("model.dat")
except Exception as exc:
    result = {{"read": False, "error": str(exc)}}
else:
    output = ampl.solve(solver="highs", verbose=False, return_output=True)
    status = ampl.solve_result
    objectives = list(ampl.get_objectives())
    value = objectives[0][1].value() if status == "solved" and objectives else None
    result = {{"read": True, "status": status, "objective": value, "log": str(output)[-5000:]}}
print({RESULT_PREFIX!r} + json.dumps(result))
"""

_AMPL_CLASSES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"is not a (param|set)|not declared|no such (param|set)", re.IGNORECASE),
        NLDataCategory.UNDECLARED_DATA_PARAMETER,
    ),
    (re.compile(r"is not defined|undefined", re.IGNORECASE), NLDataCategory.UNDEFINED_ENTITY),
    (re.compile(r"no (data|value) for", re.IGNORECASE), NLDataCategory.MISSING_DATA),
)


def classify_ampl(error: str) -> str:
    """The suite category of an error AMPL gave while reading the files (unverified wording)."""
    return next(
        (category for pattern, category in _AMPL_CLASSES if pattern.search(error)), ExecutionCategory.SYNTAX
    )
