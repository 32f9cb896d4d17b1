"""Score the answer kinds of every shipped official package with the MM-OptBench release's own
scorer, and write its verdicts to ``tests/data/official_mmopt/official_verdicts.json``.

    .venv/bin/python scripts/official_verdicts.py --scorer PATH/TO/MM-OptBench

``PATH/TO/MM-OptBench`` is a copy of the release (GitHub ``ZhongLIFR/MM-OptBench`` at the commit
the sample is copied from, :data:`RELEASE_COMMIT`); it is read, never copied into this repository.
The script runs the release's entry point for one saved answer, ``evaluate_instance`` of its
``evaluate.py`` (absolute tolerance 1e-6, the subcategory taken from the package's folder, the
answer passed through ``normalize_solution_aliases`` of ``evaluation/diagnosis.py``, then
``compare_solution_to_ground_truth`` of ``evaluation/scoring.py``). Those two functions are
compiled from the release's files alone, with the names they use bound to the release's scorer:
the rest of ``evaluation/`` (prompts, model runners) is not needed to score an answer.

The answers are built by ``tests/official_kinds.py``, the same code the parity test
(``tests/test_official_answer_kinds.py``) scores with ours. Rerun after adding packages to the
sample (each needs its ``mutants.json`` entry); ``--explain`` prints the release's reason for every
verdict.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.official_kinds import SAMPLE, VERDICTS_FILE, answer, kinds, mutants, package_key, packages  # noqa: E402

RELEASE = "ZhongLIFR/MM-OptBench"
RELEASE_COMMIT = "fabdd5a5c0f016093333257b05d211c589759d0f"

Scorer = Callable[[Path, Any], dict[str, Any]]


def _scoring_module(scorer: Path) -> ModuleType:
    """The release's ``evaluation/scoring.py`` (it imports the standard library only)."""
    path = scorer / "evaluation" / "scoring.py"
    spec = importlib.util.spec_from_file_location("mmopt_release_scoring", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the release's scorer from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _functions(path: Path, names: set[str], namespace: dict[str, Any]) -> None:
    """Compile the top-level functions ``names`` of the release's file ``path`` into ``namespace``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[ast.stmt] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    missing = names - {node.name for node in found if isinstance(node, ast.FunctionDef)}
    if missing:
        raise SystemExit(f"{path} has no function {', '.join(sorted(missing))}")
    exec(compile(ast.Module(body=found, type_ignores=[]), str(path), "exec"), namespace)


def release_scorer(scorer: Path) -> Scorer:
    """``evaluate_instance(instance_dir, solution)`` of the release, bound to its scorer."""
    scoring = _scoring_module(scorer)
    namespace: dict[str, Any] = {
        "__builtins__": __builtins__,
        "json": json,
        "Path": Path,
        "Any": Any,
        "compare_solution_to_ground_truth": scoring.compare_solution_to_ground_truth,
        "make_json_safe": scoring.make_json_safe,
    }
    _functions(scorer / "evaluation" / "diagnosis.py", {"normalize_solution_aliases"}, namespace)
    _functions(scorer / "evaluate.py", {"read_json", "evaluate_instance"}, namespace)
    evaluate: Scorer = namespace["evaluate_instance"]
    return evaluate


def verdicts(scorer: Scorer, sample: Path, explain: bool) -> dict[str, dict[str, bool]]:
    """Per package key, per kind: whether the release's scorer marks the answer correct."""
    specs = mutants(sample)
    table: dict[str, dict[str, bool]] = {}
    for package in packages(sample):
        key = package_key(package)
        if key not in specs:
            raise SystemExit(f"{key} has no entry in {sample / 'mutants.json'}")
        row: dict[str, bool] = {}
        for kind in kinds(package):
            result = scorer(package.directory, answer(package, kind, specs))
            row[kind] = result.get("correct") is True
            if explain:
                print(f"{key} {kind}: {row[kind]} ({result.get('reason')})")
        table[key] = row
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scorer", type=Path, required=True, help="a copy of the release (its root)")
    parser.add_argument(
        "--sample", type=Path, default=SAMPLE, help="the packages (default: the shipped sample)"
    )
    parser.add_argument("--explain", action="store_true", help="print the release's reason for every verdict")
    args = parser.parse_args()
    table = verdicts(release_scorer(args.scorer), args.sample, args.explain)
    document = {
        "_about": (
            f"Verdicts of the MM-OptBench release's own scorer ({RELEASE} at {RELEASE_COMMIT}: "
            "evaluate_instance of evaluate.py, tolerance 1e-6) on the answer kinds of "
            "tests/official_kinds.py, per shipped package: true = correct. Data produced by that "
            "scorer, not its code. Regenerate with: .venv/bin/python scripts/official_verdicts.py "
            "--scorer PATH/TO/MM-OptBench"
        ),
        **table,
    }
    out = args.sample / VERDICTS_FILE
    out.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    counted = sum(len(row) for row in table.values())
    correct = sum(sum(row.values()) for row in table.values())
    print(f"{len(table)} packages, {counted} answers, {correct} correct by the release's scorer -> {out}")


if __name__ == "__main__":
    main()
