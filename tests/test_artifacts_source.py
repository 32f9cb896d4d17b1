"""``--artifacts DIR`` is a model source of its own: answer files an external agent wrote are scored
without ``--model``, and the manifest, every record and the run folder name ``artifacts:DIR``.

Real benchmark sessions on the shipped TB-MathModel tasks; the artifact is one we write here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adapters import AdapterError, CompletionRequest, Decoding, resolve_adapter
from benchmark.messages import Message
from tests.conftest import REPO, run_bench

FORECAST = {
    "model": "flat",
    "forecast": [{"month": 37 + k, "units": 330.0} for k in range(3)],
    "forecast_total": 990.0,
}


def test_the_artifacts_source_names_its_folder_and_answers_no_request(tmp_path: Path) -> None:
    source = resolve_adapter(f"artifacts:{tmp_path}", models_file=None, cache_dir=tmp_path / "cache")
    described = source.describe()
    assert (described["adapter"], described["alias"]) == ("artifacts", f"artifacts:{tmp_path}")
    assert described["artifacts_dir"] == str(tmp_path.resolve())
    request = CompletionRequest("tbmath/x/agent/s0/turn0", (Message.text("user", "hi"),), Decoding())
    with pytest.raises(AdapterError, match="calls no model") as err:
        source.complete(request)
    assert err.value.kind == "no_model"


@pytest.mark.slow
def test_artifacts_without_a_model_score_and_the_run_names_the_folder(tmp_path: Path) -> None:
    answers = tmp_path / "agent-out"
    answers.mkdir()
    (answers / "demand_forecast.json").write_text(json.dumps(FORECAST), encoding="utf-8")
    run = run_bench(
        tmp_path / "run", "--suite=tbmath", f"--artifacts={answers}", "-k", "demand_forecast or crop_mix"
    )
    assert "benchmark cases deselected" not in run.output, run.output[-3000:]
    records = {r["case"].split("/")[1]: r for r in run.records}
    assert set(records) == {"demand_forecast", "crop_mix"}, run.output[-3000:]
    source = f"artifacts:{answers}"
    assert all(r["model"] == source and r["model_calls"] == 0 for r in records.values())
    forecast = records["demand_forecast"]
    assert forecast["outcome"] in ("passed", "failed") and "gate" in forecast["extra"]  # it was scored
    assert forecast["extra"]["artifact"] == FORECAST
    assert forecast["extra"]["source"] == f"--artifacts {answers}"
    # no file for crop_mix: scored as a missing artifact (0), the model's failure, not an error
    missing = records["crop_mix"]
    assert (missing["outcome"], missing["scores"]["o_eval"]) == ("failed", 0.0)
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    assert manifest["model"]["alias"] == source and manifest["model"]["adapter"] == "artifacts"
    assert manifest["model"]["artifacts_dir"] == str(answers.resolve())
    assert f"optbench: model {source}, run folder" in run.output


def test_a_suite_without_answer_files_refuses_them() -> None:
    """mmopt's answers are model replies: --artifacts is a usage error there, not silently ignored."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--artifacts=.", "-k", "mf_e_001"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "--artifacts: suite mmopt takes no answer files" in done.stderr


@pytest.mark.slow
def test_mamo_answer_files_are_scored_without_a_model(tmp_path: Path) -> None:
    """An external agent's ``.lp`` file for an LP question and its Python program for an ODE
    question, each at the question's own path; a question without a file fails the contract."""
    from benchmark.suites.mamo import dataset

    refs = {ref.path: ref for ref in dataset.discover(REPO / "fixtures" / "mamo")}
    lp, ode = (
        dataset.load_case(refs[("easy_lp", "1")]),
        dataset.load_case(refs[("first_order_equation", "1")]),
    )
    assert lp.reference and ode.reference and ode.is_ode and not lp.is_ode
    answers = tmp_path / "agent-out"
    (answers / "easy_lp").mkdir(parents=True)
    (answers / "first_order_equation").mkdir()
    (answers / "easy_lp" / "1.lp").write_text(lp.reference, encoding="utf-8")
    (answers / "first_order_equation" / "1.py").write_text(ode.reference, encoding="utf-8")
    run = run_bench(
        tmp_path / "run", "--suite=mamo", f"--artifacts={answers}",
        "-k", "easy_lp/1- or first_order_equation/1- or first_order_equation/2-",
    )  # fmt: skip
    records = {r["case"].removesuffix("/fewshot/s0"): r for r in run.records}
    assert set(records) == {
        "mamo/easy_lp/1", "mamo/first_order_equation/1", "mamo/first_order_equation/2"
    }, run.output[-3000:]  # fmt: skip
    assert all(r["model"] == f"artifacts:{answers}" and r["model_calls"] == 0 for r in records.values())
    assert records["mamo/easy_lp/1"]["outcome"] == "passed", records["mamo/easy_lp/1"]
    assert records["mamo/first_order_equation/1"]["outcome"] == "passed"
    missing = records["mamo/first_order_equation/2"]
    assert (missing["outcome"], missing["category"]) == ("failed", "response_contract")
    assert f"no answer file {answers / 'first_order_equation' / '2.py'}" in missing["detail"]
