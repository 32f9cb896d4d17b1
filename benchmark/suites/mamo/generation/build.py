"""Building the shipped dataset: every case from a recorded seed, verified, written as JSONL.

Cases are spread round-robin over each type's constructs and drawn from a seed derived from
(base seed, type, index, attempt); a draw that fails a check (the methods disagree, the answer is
too small to carry the stated decimals, a solver finds no optimum) moves on to the next attempt.
Files are in the public Mamo release format plus our fields, one per type, and a manifest records
counts, domains and each file's hash. Same base seed, same bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
import hashlib
import io
import json
import math
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from benchmark.suites.mamo.comparison import answers_match
from benchmark.suites.mamo.dataset import MANIFEST, TYPES
from benchmark.suites.mamo.execution import last_number
from benchmark.suites.mamo.generation import consistency, ode, optimization
from benchmark.suites.mamo.generation.linear_model import LinearModel, NotOptimal, optimum_or_none, relaxation
from benchmark.suites.mamo.generation.linear_model import solve as solve_model
from benchmark.suites.mamo.generation.lp_problem import OptProblem
from benchmark.suites.mamo.generation.sizes import construct_table
from benchmark.suites.mamo.generation.text import agree, answer_string, precision_sentence

DATASET = "optbench-mamo"
VERSION = "2.1.0"
BASE_SEED = 20240503
#: Cases per type: at least 200 ODE and 300 optimization cases, in roughly the paper's proportions.
COUNTS: dict[str, int] = {
    "first_order_equation": 100,
    "second_order_equation": 70,
    "system_equation": 40,
    "easy_lp": 200,
    "complex_lp": 176,
}
_ATTEMPTS = 200
DEFAULT_OUT = Path(__file__).resolve().parents[4] / "fixtures" / "mamo"


class GenerationError(RuntimeError):
    """No acceptable draw within the attempt budget: a construct's parameter ranges are wrong."""


def case_seed(kind: str, index: int, attempt: int, base_seed: int = BASE_SEED) -> int:
    digest = hashlib.sha256(f"{base_seed}/{kind}/{index}/{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _stable(values: dict[str, float]) -> dict[str, float]:
    """Cross-check values to 10 significant digits, so the bytes do not depend on the last bits."""
    return {name: float(f"{value:.10g}") for name, value in values.items()}


def _ode_decimals(value: float, rng: random.Random) -> int | None:
    magnitude = abs(value)
    if magnitude >= 1000:
        return 2
    if magnitude >= 1:
        return rng.choice((2, 3))
    return 4 if magnitude >= 0.01 else None


def _run_reference(program: str) -> float | None:
    """What the reference program prints, run in-process (our own code, not model output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(program, "<reference>", "exec"), {"__name__": "__main__"})
    return last_number(out.getvalue())


def _consistent(item: dict[str, Any], kind: str, index: int) -> dict[str, Any]:
    """The dataset item, after every consistency check passed; a finding is a generator bug."""
    found = consistency.problems(item)
    if found:
        raise GenerationError(f"{kind} #{index + 1} ({item['construct']}): " + "; ".join(found))
    return item


def ode_case(kind: str, index: int, base_seed: int = BASE_SEED) -> dict[str, Any]:
    constructs = ode.CONSTRUCTS[kind]
    construct = constructs[index % len(constructs)]
    for attempt in range(_ATTEMPTS):
        seed = case_seed(kind, index, attempt, base_seed)
        rng = random.Random(seed)
        try:
            problem = construct(rng)
            value, checks = ode.solve(problem)
        except ode.Rejected:
            continue
        decimals = _ode_decimals(value, rng)
        if decimals is None:
            continue
        answer = answer_string(value, decimals)
        program = ode.reference_program(problem)
        printed = _run_reference(program)
        if printed is None or not answers_match(printed, answer):
            raise GenerationError(f"{kind} #{index}: reference program printed {printed}, answer {answer}")
        question = agree(problem.question)
        record = {
            "Question": f"{question} {precision_sentence(decimals, rng)}",
            "Answer": answer,
            "Category": TYPES[kind],
            "Type": kind,
            "construct": problem.construct,
            "domain": problem.domain,
            "method": problem.method,
            "checks": _stable(checks),
            "parameters": problem.parameters,
            "seed": seed,
            "reference": program,
            "unit": consistency.asked_unit(question),
            "needs": list(problem.needs),
            "distractors": list(problem.distractors),
        }
        return _consistent(record, kind, index)
    raise GenerationError(
        f"{kind} #{index} ({construct.__name__}): no acceptable draw in {_ATTEMPTS} attempts"
    )


def _naive_answers(problem: OptProblem, kind: str) -> dict[str, float | None]:
    """What each naive reading answers (None: that model has no optimum); complex cases with integer
    variables always include the LP relaxation."""
    naive: dict[str, LinearModel | float] = dict(problem.naive)
    if kind == "complex_lp" and problem.model.is_mip:
        naive.setdefault("lp_relaxation", relaxation(problem.model))
    values = {
        name: optimum_or_none(item) if isinstance(item, LinearModel) else float(item)
        for name, item in naive.items()
    }
    return {name: v if v is not None and math.isfinite(v) else None for name, v in values.items()}


def optimization_case(kind: str, index: int, base_seed: int = BASE_SEED) -> dict[str, Any]:
    constructs = optimization.CONSTRUCTS[kind]
    construct = constructs[index % len(constructs)]
    for attempt in range(_ATTEMPTS):
        seed = case_seed(kind, index, attempt, base_seed)
        rng = random.Random(seed)
        problem = construct(rng)
        try:
            text, value, checks = solve_model(problem.model)
        except NotOptimal:
            continue
        if abs(value) < 1:
            continue
        # A whole number only where the decisions are whole: a continuous optimum keeps two decimals.
        decimals = 0 if problem.model.is_mip and abs(value - round(value)) < 1e-6 else 2
        naive = _naive_answers(problem, kind)
        if any(v is not None and answers_match(v, answer_string(value, decimals)) for v in naive.values()):
            continue  # a naive model would get this draw right: not a test of modelling
        question = agree(problem.question)
        record = {
            "Question": f"{question} {precision_sentence(decimals, rng)}",
            "Answer": answer_string(value, decimals),
            "Category": TYPES[kind],
            "Type": kind,
            "construct": problem.construct,
            "domain": problem.domain,
            "method": "MILP" if problem.model.is_mip else "LP",
            "checks": _stable(checks),
            "parameters": problem.parameters,
            "seed": seed,
            "reference": text,
            "unit": consistency.asked_unit(question),
            "needs": list(problem.needs),
            "nontriviality": {name: None if v is None else float(f"{v:.10g}") for name, v in naive.items()},
        }
        return _consistent(record, kind, index)
    raise GenerationError(
        f"{kind} #{index} ({construct.__name__}): no acceptable draw in {_ATTEMPTS} attempts"
    )


def generate(out: Path, counts: dict[str, int] = COUNTS, base_seed: int = BASE_SEED) -> dict[str, Any]:
    """Write one JSONL file per type and the manifest into ``out``; returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Any] = {}
    for kind, count in counts.items():
        make = ode_case if TYPES[kind] == "ordinary_differential_equation" else optimization_case
        records = [{"id": index + 1, **make(kind, index, base_seed)} for index in range(count)]
        data = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        path = out / f"{kind}.jsonl"
        path.write_text(data, encoding="utf-8")
        files[path.name] = {
            "type": kind,
            "category": TYPES[kind],
            "cases": count,
            "sha256": hashlib.sha256(data.encode()).hexdigest(),
            "domains": dict(sorted(Counter(r["domain"] for r in records).items())),
            "constructs": dict(sorted(Counter(r["construct"] for r in records).items())),
            "methods": dict(sorted(Counter(r["method"] for r in records).items())),
        }
    manifest = {"dataset": DATASET, "version": VERSION, "base_seed": base_seed, "files": files}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def check(out: Path) -> list[str]:
    """Regenerate into a temporary folder and list the files that differ from ``out``."""
    shipped = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    counts = {info["type"]: info["cases"] for info in shipped["files"].values()}
    with tempfile.TemporaryDirectory() as folder:
        manifest = generate(Path(folder), counts=counts, base_seed=shipped["base_seed"])
        names = [MANIFEST, *manifest["files"]]
        return [name for name in names if not filecmp.cmp(Path(folder) / name, out / name, shallow=False)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmark.suites.mamo.generation", description=__doc__)
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="dataset folder (default fixtures/mamo)"
    )
    parser.add_argument("--check", action="store_true", help="regenerate and compare instead of writing")
    parser.add_argument("--stats", action="store_true", help="print the per-construct size tables instead")
    args = parser.parse_args(argv)
    if args.stats:
        for kind in COUNTS:
            print(f"\n{kind}\n\n{construct_table(args.out, kind)}")
        return 0
    if args.check:
        differing = check(args.out)
        print("identical" if not differing else f"differs: {', '.join(differing)}")
        return 1 if differing else 0
    manifest = generate(args.out)
    for name, info in manifest["files"].items():
        print(f"{name}: {info['cases']} cases, domains {info['domains']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
