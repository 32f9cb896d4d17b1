"""Generating or checking the NLData2Opt fixtures (``python -m benchmark.suites.nldata.generation``).

For every domain and index: draw data from a recorded seed (redrawing with the next attempt number
when a draw is rejected) → solve the gold model with glpsol → cross-check the optimum with HiGHS on
glpsol's ``--wlp`` translation (plus the objective's constant term, which the LP file only carries as
a comment) → reject draws that are not optimal, whose optimum is zero (EBC would be degenerate) or
where the two solvers disagree → build the nine settings → check the validity criterion for each
(gold model + data executed give the base optimum; history tables extrapolate to the gold values;
no digit in any description but ``nl``'s) → draw the task's *unseen* data instances (same domain,
other sizes, own seeds; each verified the same way, its optimum different from the shown one and
from each other, and both gold models, plain and derived, reproducing it) → write one JSONL file per
domain and ``manifest.json``. The unseen instances are never shown to a model: the harness runs the
model a candidate wrote on them to check that it follows its data (``heldout.py``).
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
from benchmark.suites.nldata.records import BaseRecord, Param, data_file
from benchmark.suites.nldata.settings import (
    PAPER_SETTINGS,
    SETTINGS,
    NLDataSetting,
    SettingTask,
    build,
    derived_model,
    distractor_pool,
    extrapolate,
    identify,
)

DATASET = "optbench-nldata"
VERSION = "2"
BASE_SEED = 20260415
PER_DOMAIN = 14
MAX_ATTEMPTS = 50
#: Held-out data instances per base task (issue 25): same schema, other sizes and values.
UNSEEN_PER_TASK = 2
SIZES = 6
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
        expected = {
            (key[0] if key else "value"): v for key, v in record.param(prediction.param).values.items()
        }
        if table.columns[-1][0] != "note":  # unnamed: the pattern must be found by fitting, uniquely
            if identify(table) != (prediction.pattern, expected):
                raise ValidityError(f"{where}: {table.name} does not identify one prediction, the truth")
            continue
        predicted = extrapolate(table, prediction.pattern)
        if predicted != expected:
            raise ValidityError(
                f"{where}: {table.name} extrapolates to {predicted}, the gold data uses {expected}"
            )
    if task.setting != NLDataSetting.NL and re.search(r"\d", task.description):
        raise ValidityError(f"{where}: the description contains a number")


def _verified_optimum(record: BaseRecord) -> tuple[float, dict[str, float]] | str:
    """(optimum, cross-check) of a record's gold model on its own data, or why the draw is rejected."""
    gold = run_local(record.model, data_file(record.sets, record.params))
    if gold.status != "optimal" or gold.objective is None:
        return str(gold.status)
    if abs(gold.objective) < 1e-9:
        return "zero optimum"
    highs_status, highs_value = highs_objective(record.model, data_file(record.sets, record.params))
    if highs_value is None or not _agree(highs_value, gold.objective):
        return f"HiGHS gives {highs_status} {highs_value}, glpsol {gold.objective}"
    return gold.objective, {"glpsol": gold.objective, "highs": highs_value}


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
        verified = _verified_optimum(record)
        if isinstance(verified, str):
            rejected.append(f"seed {seed}: {verified}")
            continue
        objective, checks = verified
        try:
            tasks = {setting: build(record, setting) for setting in SETTINGS}
            for task in tasks.values():
                check_task(record, task, objective)
        except ValueError as exc:
            rejected.append(f"seed {seed}: {exc}")
            continue
        return dataclasses.replace(record, objective=objective, checks=checks), tasks, rejected
    raise RuntimeError(f"{domain.name} #{index}: no valid draw in {MAX_ATTEMPTS} attempts: {rejected[-3:]}")


def _unseen(domain: Domain, record: BaseRecord, size: int) -> tuple[list[tuple[str, BaseRecord]], list[str]]:
    """The held-out instances of one base task: sizes ``size + 1`` and ``size + 3`` (mod 6), seeds
    ``"<base seed>:unseen:<j>:<attempt>"``. A draw is kept when it is verified like a base record, its
    optimum differs from the shown one and from the earlier unseen ones (so no constant objective can
    pass two of them), and the derivation's gold model and data give the same optimum."""
    found: list[tuple[str, BaseRecord]] = []
    rejected: list[str] = []
    for j in range(UNSEEN_PER_TASK):
        unseen_size = (size + 1 + 2 * j) % SIZES
        for attempt in range(MAX_ATTEMPTS):
            seed = f"{record.seed}:unseen:{j}:{attempt}"
            draw = dataclasses.replace(
                domain.build(random.Random(seed), unseen_size), instance_id=f"{record.instance_id}/u{j + 1}"
            )
            verified = _verified_optimum(draw)
            if isinstance(verified, str):
                rejected.append(f"seed {seed}: {verified}")
                continue
            objective, checks = verified
            earlier = [o for o in (record.objective, *(u.objective for _, u in found)) if o is not None]
            if any(_agree(objective, o) for o in earlier):
                rejected.append(f"seed {seed}: optimum {objective} equals an earlier instance's")
                continue
            model, params = derived_model(draw)
            derived = run_local(model, data_file(draw.sets, params))
            if derived.objective is None or not _agree(derived.objective, objective):
                rejected.append(f"seed {seed}: the derived gold model gives {derived.objective}")
                continue
            found.append((seed, dataclasses.replace(draw, objective=objective, checks=checks)))
            break
        else:
            raise RuntimeError(f"{record.instance_id}: no unseen instance {j + 1} in {MAX_ATTEMPTS} attempts")
    return found, rejected


def _instance_json(record: BaseRecord) -> dict[str, Any]:
    """The data of one instance as the harness reads it back: sets, parameters and every other value
    some setting shows (the derivation's components, the distractor columns)."""
    params = {p.name: p for p in record.params}
    extra: list[Param] = [
        p for p in (*record.derivation.components, *distractor_pool(record)) if p.name not in params
    ]
    return {
        "sets": [{"name": s.name, "members": list(s.members), "noun": s.noun} for s in record.sets],
        "params": [p.to_json() for p in record.params],
        "other_params": [p.to_json() for p in extra],
    }


def record_json(
    record: BaseRecord, tasks: dict[str, SettingTask], unseen: list[tuple[str, BaseRecord]]
) -> dict[str, Any]:
    return {
        "id": record.instance_id,
        "domain": record.domain,
        "problem_type": record.problem_type,
        "difficulty": record.difficulty,
        "seed": record.seed,
        "objective": record.objective,
        "backend": BACKEND,
        "cross_check": record.checks,
        "base": _instance_json(record),
        "settings": {name: task.to_json() for name, task in tasks.items()},
        "unseen": [
            {"seed": seed, "objective": u.objective, "cross_check": u.checks, **_instance_json(u)}
            for seed, u in unseen
        ],
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
        lines, rejected, rejected_unseen = [], 0, 0
        for index in range(per_domain):
            record, tasks, rejections = _verified(domain, index)
            unseen, unseen_rejections = _unseen(domain, record, size_and_difficulty(index)[0])
            rejected += len(rejections)
            rejected_unseen += len(unseen_rejections)
            lines.append(json.dumps(record_json(record, tasks, unseen), sort_keys=True))
        name = f"{domain.name}.jsonl"
        files[name] = "\n".join(lines) + "\n"
        manifest["files"][name] = {
            "domain": domain.name,
            "problem_type": domain.problem_type,
            "base_tasks": per_domain,
            "rejected_draws": rejected,
            "rejected_unseen_draws": rejected_unseen,
            "unseen_instances": per_domain * UNSEEN_PER_TASK,
            "sha256": hashlib.sha256(files[name].encode()).hexdigest(),
        }
    manifest["base_tasks"] = per_domain * len(DOMAINS)
    manifest["cases_per_sample"] = manifest["base_tasks"] * len(PAPER_SETTINGS)
    manifest["settings_run_by_name"] = [s for s in SETTINGS if s not in PAPER_SETTINGS]
    manifest["unseen_per_task"] = UNSEEN_PER_TASK
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
