"""``python -m benchmark contamination``: a model that memorized the public set, caught on a split.

The recipe of ``docs/contamination.md`` on a small scale, every step real: ``generate --split`` draws
a held-out split of two subcategories, a loopback OpenAI-compatible endpoint plays a model that
recalls the public reference answer of whatever instance id it is asked about (so it passes the
public instances and answers the split's instances, which share ids but not data, with the public
ones' solutions), both runs go through the OpenAI adapter, and the report pairs them.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmark.cases import InstanceRef
from benchmark.reporting.contamination import GAP, NO_EVIDENCE, verdict
from benchmark.reporting.intervals import paired_difference
from benchmark.suites.mmopt.package import load_package
from benchmark.suites.mmopt.prompts import oracle_response
from tests.chat_server import ChatServer, Reply, case_id
from tests.conftest import FIXTURES, REPO, BenchRun, run_bench

SUBCATEGORIES = ("bipartite_assignment", "set_packing")
MARKERS = " or ".join(SUBCATEGORIES)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmark", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def _public_answers() -> dict[str, str]:
    """The public reference answer of every instance id of the two subcategories."""
    answers = {}
    for name in SUBCATEGORIES:
        for directory in sorted(FIXTURES.glob(f"*/{name}/*/*")):
            ref = InstanceRef(
                suite="mmopt",
                path=tuple(directory.relative_to(FIXTURES).parts),
                labels={},
                location=directory,
            )
            answers[directory.name] = oracle_response(load_package(ref))
    return answers


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("contamination")
    split = root / "heldout"
    generated = _cli(
        "generate", "--split", "heldout", "--seed-base", "7", "--per-difficulty", "2",
        *(f"--subcategory={name}" for name in SUBCATEGORIES), "--out", str(split),
    )  # fmt: skip
    assert generated.returncode == 0, generated.stdout[-2000:] + generated.stderr[-2000:]
    answers = _public_answers()
    server = ChatServer(lambda body, seen: Reply(text=answers.get(case_id(body) or "", "no idea")))
    with server.running():
        models = root / "models.toml"
        models.write_text(
            f'[models.recaller]\nbase_url = "{server.base_url}"\nmodel = "recaller-1"\n', encoding="utf-8"
        )
        common = ("--model=recaller", f"--models-file={models}", "-m", MARKERS, "-n", "2")
        public = run_bench(root / "public", *common, "-k", "_001 or _002")
        fresh = run_bench(root / "fresh", *common, f"--dataset={split}")
    assert len(public.records) == len(fresh.records) == 12, public.output[-2000:] + fresh.output[-2000:]
    return {"root": root, "public": public, "fresh": fresh}


def _exact_mcnemar(b: int, c: int) -> float:
    """Restated here: two-sided exact binomial test on the discordant pairs."""
    n, k = b + c, min(b, c)
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def _instance(key: str) -> str:
    return key.rsplit("/", 1)[0]


@pytest.mark.slow
def test_the_recalling_model_shows_a_gap_per_subcategory_and_overall(runs: dict[str, Any]) -> None:
    public: BenchRun = runs["public"]
    fresh: BenchRun = runs["fresh"]
    out = runs["root"] / "report"
    done = _cli("contamination", str(public.run_dir), str(fresh.run_dir), "--out", str(out))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads((out / "contamination.json").read_text())
    assert report["grouped_by"] == "subcategory"
    assert report["fresh_dataset_version"] == report["public_dataset_version"] + "+split.heldout.7"
    pub = {_instance(r["case"]): r for r in public.records}
    new = {_instance(r["case"]): r for r in fresh.records}
    assert set(pub) == set(new)  # the split numbers its instances as the public set does
    assert all(r["passed"] for r in pub.values()), "the recalled answers pass the public instances"
    rows = {row["group"]: row for row in report["groups"]}
    assert set(rows) == set(SUBCATEGORIES)
    for name in (*SUBCATEGORIES, "all"):
        keys = [k for k in pub if name == "all" or pub[k]["subcategory"] == name]
        only_public = sum(pub[k]["passed"] and not new[k]["passed"] for k in keys)
        only_fresh = sum(new[k]["passed"] and not pub[k]["passed"] for k in keys)
        row = report["overall"] if name == "all" else rows[name]
        paired = row["paired"]
        assert row["pairs"] == len(keys) == (12 if name == "all" else 6)
        assert paired["difference"] == pytest.approx((only_public - only_fresh) / len(keys))
        assert paired["p_value"] == pytest.approx(_exact_mcnemar(only_public, only_fresh))
        beyond = paired["low"] > 0 and paired["p_value"] < 0.05
        assert row["verdict"] == (GAP if beyond else NO_EVIDENCE)
    # The public answers solve other data: every split instance fails, a gap beyond noise in each
    # subcategory (6 pairs, p = 2/64) and overall (12 pairs), as docs/contamination.md says.
    assert not any(r["passed"] for r in new.values())
    assert [row["verdict"] for row in (*rows.values(), report["overall"])] == [GAP] * 3, report
    markdown = (out / "contamination.md").read_text()
    assert done.stdout.strip() == markdown.strip()
    assert f"verdict overall: {GAP}" in markdown and "| bipartite_assignment | 6 |" in markdown
    page = (out / "contamination.html").read_text()
    assert "<table>" in page and not re.search(r"(src|href)=['\"]?(https?:)?//", page)


@pytest.mark.slow
def test_runs_that_cannot_answer_the_question_are_refused(runs: dict[str, Any], tmp_path: Path) -> None:
    public, fresh = str(runs["public"].run_dir), str(runs["fresh"].run_dir)
    itself = _cli("contamination", public, public)
    assert itself.returncode == 2 and "did not run a split of the public dataset" in itself.stderr
    swapped = _cli("contamination", fresh, public)
    assert swapped.returncode == 2 and "ran a held-out split" in swapped.stderr
    other = tmp_path / "other-model"
    shutil.copytree(fresh, other)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["model"]["model_id"] = "recaller-2"
    manifest["decoding"]["temperature"] = 0.9
    (other / "manifest.json").write_text(json.dumps(manifest))
    differs = _cli("contamination", public, str(other))
    assert differs.returncode == 2, differs.stdout
    assert "model.model_id differs: 'recaller-1'" in differs.stderr and "decoding differs" in differs.stderr
    missing = _cli("contamination", public, str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "no results file" in missing.stderr


def test_a_few_pairs_are_no_evidence_even_when_the_interval_excludes_zero() -> None:
    three = paired_difference([(0.0, 1.0)] * 3, binary=True)  # fresh failed, public passed, 3 times
    assert three is not None and 0 < three.low < 1 and three.high == 1.0  # Newcombe: has a width
    assert three.p_value == pytest.approx(0.25) and verdict(three) == NO_EVIDENCE
    six = paired_difference([(0.0, 1.0)] * 6, binary=True)
    assert six is not None and six.p_value == pytest.approx(2 / 64) and verdict(six) == GAP
    # the figures docs/contamination.md quotes
    assert (round(100 * three.low, 1), round(100 * six.low, 1)) == (20.6, 44.8)
    mixed = paired_difference([(0.0, 1.0), (1.0, 0.0)] * 5, binary=True)
    assert mixed is not None and mixed.low < 0 < mixed.high and verdict(mixed) == NO_EVIDENCE
    assert verdict(None) == NO_EVIDENCE
