"""``--max-cost`` against a loopback OpenAI-compatible server: each request reserves its worst case
before it is sent, so requests in flight cannot pass the cap together; the end of the run says
that the cap stopped it, or that a request cost more than its reservation and passed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.budget import BUDGET_FILE
from benchmark.ledger import LEDGER_FILE
from tests.chat_server import ChatServer, Reply
from tests.conftest import BenchRun, run_bench

SIX_CASES = ("-k", "mf_e_001 or mf_e_002 or mf_e_003 or mf_e_004 or mf_e_005 or mf_e_006")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def _models_file(tmp_path: Path, base_url: str, max_output_tokens: int | None = 200) -> Path:
    lines = [f'base_url = "{base_url}"', 'model = "loopback-model"', "max_retries = 0",
             "input_price_per_mtok = 3.0", "output_price_per_mtok = 15.0"]  # fmt: skip
    if max_output_tokens is not None:
        lines.append(f"max_output_tokens = {max_output_tokens}")
    path = tmp_path / "models.toml"
    path.write_text("[models.loop]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def _spent(run: BenchRun) -> float:
    ledger = run.run_dir / LEDGER_FILE
    lines = [json.loads(line) for line in ledger.read_text().splitlines()] if ledger.exists() else []
    return sum(float(line.get("cost_usd") or 0.0) for line in lines)


@pytest.mark.slow
def test_requests_in_flight_cannot_pass_the_cap_together(tmp_path: Path) -> None:
    """Six cases whose requests would all be in flight at once (each costs $0.006 when it answers,
    half a second later): the cap of $0.02 holds, and the run says it stopped the rest."""
    server = ChatServer(lambda body, seen: Reply(text="no sections", usage=(1000, 200)), latency_s=0.5)
    with server.running():
        models = _models_file(tmp_path, server.base_url)
        run = run_bench(tmp_path / "run", "--model=loop", f"--models-file={models}", "--max-cost=0.02",
                        "--max-in-flight=6", "-n", "2", *SIX_CASES)  # fmt: skip
    assert len(run.records) == 6, run.output[-3000:]
    sent = [r for r in run.records if r["outcome"] == "failed"]
    refused = [r for r in run.records if r["outcome"] == "error"]
    assert sent and refused, run.output[-3000:]
    assert len(server.requests) == len(sent)
    assert _spent(run) == pytest.approx(0.006 * len(sent)) and _spent(run) <= 0.02
    assert all("budget exhausted" in r["detail"] and "could cost up to $" in r["detail"] for r in refused)
    assert f"--max-cost $0.02 stopped the run: {len(refused)} request(s) not sent" in run.output
    assert "was passed" not in run.output
    budget = [json.loads(line) for line in (run.run_dir / BUDGET_FILE).read_text().splitlines()]
    reserved = {line["reserve"] for line in budget if "reserve" in line}
    assert reserved == {line["release"] for line in budget if "release" in line}  # all released


@pytest.mark.slow
def test_a_request_that_costs_more_than_its_reservation_is_said_to_pass_the_cap(tmp_path: Path) -> None:
    """The server counts 200,000 prompt tokens for a prompt of a few thousand characters: $0.603."""
    server = ChatServer(lambda body, seen: Reply(text="no sections", usage=(200_000, 200)))
    with server.running():
        models = _models_file(tmp_path, server.base_url)
        run = run_bench(tmp_path / "run", "--model=loop", f"--models-file={models}", "--max-cost=0.05",
                        "--max-in-flight=1", "-n", "0", "-k", "mf_e_001 or mf_e_002")  # fmt: skip
    assert len(server.requests) == 1, run.output[-3000:]
    assert "--max-cost $0.05 was passed: this session spent $0.6030" in run.output
    assert "--max-cost $0.05 stopped the run: 1 request(s) not sent" in run.output


def test_a_cap_below_one_requests_worst_case_is_a_usage_error(tmp_path: Path) -> None:
    models = _models_file(tmp_path, "http://127.0.0.1:9/v1", max_output_tokens=None)
    run = run_bench(tmp_path / "run", "--model=loop", f"--models-file={models}", "--max-cost=0.01",
                    "-k", "mf_e_001")  # fmt: skip
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.output[-3000:]
    expected = "--max-cost $0.01 cannot cover one request of model loop (--model): 16384 output tokens"
    assert expected in run.output
    assert not run.run_dir.exists()
