"""The per-construct size table of a Mamo dataset folder: how many cases, how large their models are,
how long their questions are (``python -m benchmark.suites.mamo.generation --stats``).

Variable and constraint counts are read back from each reference ``.lp`` file by HiGHS, so they are
the sizes of the model a correct answer writes, not the generator's own bookkeeping.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import highspy

#: The initial values in a reference program: ``state = [...]`` or ``solve_ivp(rhs, (a, b), [...], ...)``.
_INITIAL = re.compile(r"(?:state = |\), )(\[[^\]]*\])")


def lp_size(text: str) -> tuple[int, int]:
    """(variables, constraints) of ``.lp`` text, as HiGHS reads it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.lp"
        path.write_text(text, encoding="utf-8")
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.readModel(str(path))
        lp = highs.getLp()
        return int(lp.num_col_), int(lp.num_row_)


def ode_states(reference: str) -> int:
    """How many states an ODE reference program integrates: the length of its initial-value list."""
    match = _INITIAL.search(reference)
    if match is None:
        raise ValueError("no initial-value list in the reference program")
    return len(json.loads(match.group(1)))


def construct_table(folder: Path, kind: str) -> str:
    """A Markdown table, one row per construct of ``kind``: count, median sizes and text length.

    For optimization the sizes are variables and constraints; for ODEs, the number of states.
    """
    path = folder / f"{kind}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["construct"]].append(row)
    optimization = rows[0]["Category"] == "optimization"
    sizes = "median variables | median constraints" if optimization else "median states | -"
    lines = [f"| construct | cases | {sizes} | median characters | needs |", "|---|---:|---:|---:|---:|---|"]
    for construct, group in groups.items():
        if optimization:
            counted = [lp_size(r["reference"]) for r in group]
            first = f"{statistics.median(c[0] for c in counted):g}"
            second = f"{statistics.median(c[1] for c in counted):g}"
        else:
            first, second = f"{statistics.median(ode_states(r['reference']) for r in group):g}", "-"
        length = statistics.median(len(r["Question"]) for r in group)
        needs = ", ".join(sorted({n for r in group for n in r.get("needs", [])})) or "direct"
        lines.append(f"| {construct} | {len(group)} | {first} | {second} | {length:g} | {needs} |")
    overall = statistics.median(len(r["Question"]) for r in rows)
    lines.append(f"| all | {len(rows)} | | | {overall:g} | |")
    return "\n".join(lines)
