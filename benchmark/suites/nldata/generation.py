"""Generating or checking the NLData2Opt fixtures (``python -m benchmark.suites.nldata.generation``).

For every domain and index: draw data from a recorded seed (redrawing with the next attempt number
when a draw is rejected) → solve the gold model with glpsol → cross-check the optimum with HiGHS on
glpsol's ``--wlp`` translation (plus the objective's constant term, which the LP file only carries as
a comment) → reject draws that are not optimal, whose optimum is zero (EBC would be degenerate) or
where the two solvers disagree → build the nine settings → check the validity criterion for each
(gold model + data executed give the base optimum; history tables extrapolate to the gold values;
no digit in any description but ``nl``'s) → write one JSONL file per domain and ``manifest.json``.
``--check`` regenerates in memory and compares byte for byte with the shipped files.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmark.suites.nldata.domains import DOMAINS, Domain
from benchmark.suites.nldata.mathprog import BACKEND, DATA_FILE, MODEL_FILE, rewrite, run_local
from benchmark.suites.nldata.records import BaseRecord, data_file
from benchmark.suites.nldata.settings import SETTINGS, SettingTask, build, extrapolate

DATASET = "optbench-nldata"
VERSION = "1"
BASE_SEED = 20260415
PER_DOMAIN = 14
MAX_ATTEMPTS = 50
RELATIVE_AGREEMENT = 1e-7
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "nldata"
_CONSTANT = re.compile(r"constant term = (\S+)")


class ValidityError(ValueError):
    """A transformed task whose gold files do not reproduce the base optimum (or a check failed)."""


def size_and_difficulty(index: int) -> tuple[int, str]:
    size = index * 6 // PER_DOMAIN
    return size, ("easy", "easy", "medium", "medium", "hard", "hard")[size]


def highs_objective(model: str, data: str) -> tuple[str, float | None]:
    """Cross-check: glpsol translates to CPLEX LP (``--check --wlp``), HiGHS solves it."""
    import highspy

    glpsol = shutil.which("glpsol")
    assert glpsol is not None
    with tempfile.TemporaryDirectory(prefix="optbench-nldata-") as tmp:
        work = Path(tmp)
        (work / MODEL_FILE).write_text(rewrite(model).text, encoding="utf-8")
        (work / DATA_FILE).write_text(rewrite(data).text, encoding="utf-8")
        argv = [glpsol, "--check", "--math", MODEL_FILE, "-d", DATA_FILE, "--wlp", "model.lp"]
        subprocess.run(argv, cwd=work, capture_output=True, check=True, timeout=120)
        lp_text = (work / "model.lp").read_text(encoding="utf-8")
        # HiGHS keeps one thread scheduler per process: once any earlier solve in this process has
        # started it with the default thread count, `threads=1` makes run() fail ("Not Set"), so
        # start it afresh for this single-threaded solve
        highspy.Highs.resetGlobalScheduler(True)
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("mip_rel_gap", 0.0)
        highs.setOptionValue("threads", 1)
        highs.readModel(str(work / "model.lp"))
        highs.run()
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            return highs.modelStatusToString(status), None
        constant = _CONSTANT.search(lp_text)
        return "optimal", highs.getInfo().objective_function_value + (
            float(constant.group(1)) if constant else 0.0
        )


def _agree(a: float, b: float) -> bool:
    return abs(a - b) <= RELATIVE_AGREEMENT * max(1.0, abs(a), abs(b))


def check_task(record: BaseRecord, task: SettingTask, objective: float) -> None:
    """The validity criterion for one transformed task; raises :class:`ValidityError`."""
    where = f"{record.instance_id}/{task.setting}"
    run = run_local(task.gold_model, task.gold_data)
    if run.status != "optimal" or run.objective is None or not _agree(run.objective, objective):
        raise ValidityError(
            f"{where}: gold files give {run.status} {run.objective}, base optimum {objective} ({run.error})"
        )
    for prediction in task.predictions:
        table = next(t for t in task.tables if t.name == prediction.table)
        predicted = extrapolate(table, prediction.pattern)
        expected = {
            (key[0] if key else "value"): v for key, v in record.param(prediction.param).values.items()
        }
        if predicted != expected:
            raise ValidityError(
                f"{where}: {table.name} extrapolates to {predicted}, the gold data uses {expected}"
            )
    if task.setting != "nl" and re.search(r"\d", task.description):
        raise ValidityError(f"{where}: the description contains a number")


def _verified(domain: Domain, index: int) -> tuple[BaseRecord, dict[str, SettingTask], list[str]]:
    size, difficulty = size_and_difficulty(index)
    rejected: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        seed = BASE_SEED + 1000 * DOMAINS.index(domain) + 37 * index + attempt
        record = dataclasses.replace(
            domain.build(random.Random(seed), size),
            instance_id=f"{domain.name}_{index + 1:03d}",
            difficulty=difficulty,
            seed=seed,
        )
        gold = run_local(record.model, data_file(record.sets, record.params))
        if gold.status != "optimal" or gold.objective is None:
            rejected.append(f"seed {seed}: {gold.status}")
            continue
        if abs(gold.objective) < 1e-9:
            rejected.append(f"seed {seed}: zero optimum")
            continue
        highs_status, highs_value = highs_objective(record.model, data_file(record.sets, record.params))
        if highs_value is None or not _agree(highs_value, gold.objective):
            rejected.append(f"seed {seed}: HiGHS gives {highs_status} {highs_value}, glpsol {gold.objective}")
            continue
        try:
            tasks = {setting: build(record, setting) for setting in SETTINGS}
            for task in tasks.values():
                check_task(record, task, gold.objective)
        except ValueError as exc:
            rejected.append(f"seed {seed}: {exc}")
            continue
        checks = {"glpsol": gold.objective, "highs": highs_value}
        return dataclasses.replace(record, objective=gold.objective, checks=checks), tasks, rejected
    raise RuntimeError(f"{domain.name} #{index}: no valid draw in {MAX_ATTEMPTS} attempts: {rejected[-3:]}")


def record_json(record: BaseRecord, tasks: dict[str, SettingTask]) -> dict[str, Any]:
    return {
        "id": record.instance_id,
        "domain": record.domain,
        "problem_type": record.problem_type,
        "difficulty": record.difficulty,
        "seed": record.seed,
        "objective": record.objective,
        "backend": BACKEND,
        "cross_check": record.checks,
        "base": {
            "sets": [{"name": s.name, "members": list(s.members), "noun": s.noun} for s in record.sets],
            "params": [p.to_json() for p in record.params],
        },
        "settings": {name: task.to_json() for name, task in tasks.items()},
    }


def generate(per_domain: int = PER_DOMAIN) -> dict[str, str]:
    """File name → content of the whole dataset."""
    files: dict[str, str] = {}
    manifest: dict[str, Any] = {
        "dataset": DATASET,
        "version": VERSION,
        "base_seed": BASE_SEED,
        "backend": BACKEND,
        "settings": list(SETTINGS),
        "files": {},
    }
    for domain in DOMAINS:
        lines, rejected = [], 0
        for index in range(per_domain):
            record, tasks, rejections = _verified(domain, index)
            rejected += len(rejections)
            lines.append(json.dumps(record_json(record, tasks), sort_keys=True))
        name = f"{domain.name}.jsonl"
        files[name] = "\n".join(lines) + "\n"
        manifest["files"][name] = {
            "domain": domain.name,
            "problem_type": domain.problem_type,
            "base_tasks": per_domain,
            "rejected_draws": rejected,
            "sha256": hashlib.sha256(files[name].encode()).hexdigest(),
        }
    manifest["base_tasks"] = per_domain * len(DOMAINS)
    manifest["cases_per_sample"] = manifest["base_tasks"] * len(SETTINGS)
    files["manifest.json"] = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate and compare with the shipped files")
    parser.add_argument("--out", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    files = generate()
    if args.check:
        bad = [
            n
            for n, text in files.items()
            if not (args.out / n).is_file() or (args.out / n).read_text() != text
        ]
        for name in bad:
            print(f"differs from regeneration: {args.out / name}", file=sys.stderr)
        print(f"{len(files) - len(bad)}/{len(files)} files identical")
        return 1 if bad else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
