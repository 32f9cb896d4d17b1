"""Endpoint faults, the cache under concurrency, spend caps and recordings, against a real loopback
HTTP server (``tests/chat_server.py``). Nothing is mocked: the faults are what the server sends.

The first half drives the adapter directly (what is retried, how long it waits, what it raises);
the second runs the benchmark as a user does and checks the records each fault ends in.
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters import AdapterError, CompletionRequest, Decoding
from adapters.cache import CachedAdapter
from adapters.models_file import ModelsFileError, load_models_file
from adapters.openai_chat import OpenAIChatAdapter
from adapters.retry import Fault, RetryPolicy, call_with_retries, retry_after_s
from benchmark.cases import InstanceRef
from benchmark.ledger import LEDGER_FILE
from benchmark.messages import Message
from benchmark.suites.mmopt.package import load_package
from benchmark.suites.mmopt.prompts import oracle_response
from tests.chat_server import ChatServer, Reply, case_id
from tests.conftest import FIXTURES, BenchRun, run_bench

# ---------------------------------------------------------------------------------------------------
# Helpers


def _models_file(tmp_path: Path, server: ChatServer, **fields: object) -> Path:
    settings = {
        "request_timeout_s": 5,
        "max_retries": 2,
        "retry_base_delay_s": 0.05,
        "retry_max_delay_s": 0.2,
        "retry_max_total_s": 30,
        "input_price_per_mtok": 3.0,
        "output_price_per_mtok": 15.0,
        **fields,
    }
    lines = [f'base_url = "{server.base_url}"', 'model = "loopback-model"']
    lines += [f"{name} = {json.dumps(value)}" for name, value in settings.items()]
    path = tmp_path / "models.toml"
    path.write_text("[models.loop]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def _adapter(tmp_path: Path, server: ChatServer, **fields: object) -> OpenAIChatAdapter:
    return OpenAIChatAdapter(load_models_file(_models_file(tmp_path, server, **fields))["loop"])


def _request(case: str = "mmopt/x/mf_e_001/stage1/s0") -> CompletionRequest:
    return CompletionRequest(
        case_key=case, messages=(Message.text("user", "Case ID: mf_e_001\nsolve"),), decoding=Decoding()
    )


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def _serve(*replies: Reply) -> ChatServer:
    """Answers the n-th request with ``replies[n]`` (the last one repeats)."""
    return ChatServer(lambda body, seen: replies[min(seen, len(replies) - 1)])


# ---------------------------------------------------------------------------------------------------
# Retry policy as a pure function


def test_retry_after_reads_seconds_dates_and_milliseconds() -> None:
    now = 1_700_000_000.0
    assert retry_after_s({"Retry-After": "7"}, now) == 7.0
    assert retry_after_s({"retry-after": " 2.5 "}, now) == 2.5
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_s({"Retry-After": date}, now) == pytest.approx(30.0)
    assert retry_after_s({"Retry-After": email.utils.formatdate(now - 30, usegmt=True)}, now) == 0.0
    assert retry_after_s({"retry-after-ms": "250", "Retry-After": "9"}, now) == 0.25
    assert retry_after_s({"Retry-After": "soon"}, now) is None
    assert retry_after_s({}, now) is None


def test_backoff_grows_exponentially_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(1)
    waits = [[policy.backoff_s(k, rng) for k in range(6)] for _ in range(200)]
    for k, cap in enumerate([1, 2, 4, 8, 8, 8]):
        column = [row[k] for row in waits]
        assert all(cap / 2 <= w <= cap for w in column)
        assert max(column) - min(column) > cap / 4  # jittered, not one fixed value


def test_total_retry_time_is_bounded() -> None:
    clock = [0.0]
    calls = []

    def attempt() -> str:
        calls.append(clock[0])
        raise RuntimeError("down")

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    policy = RetryPolicy(max_retries=100, base_delay_s=1.0, max_delay_s=4.0, max_total_s=20.0)
    with pytest.raises(AdapterError, match="retry budget") as err:
        call_with_retries(
            attempt,
            lambda exc: Fault("HTTP 503", retryable=True, status=503),
            policy,
            where="case x",
            sleep=sleep,
            clock=lambda: clock[0],
            rng=random.Random(0),
        )
    assert clock[0] <= 20.0
    assert 4 <= len(calls) < 100
    assert err.value.status == 503


# ---------------------------------------------------------------------------------------------------
# The adapter against scripted faults


def test_429_with_retry_after_waits_what_the_server_says(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(status=429, headers={"Retry-After": "1"}), Reply(text="ok"))
    with server.running():
        started = time.monotonic()
        completion = _adapter(tmp_path, server).complete(_request())
        elapsed = time.monotonic() - started
    assert completion.text == "ok"
    assert len(server.requests) == 2
    assert elapsed >= 0.95  # the backoff alone (0.05-0.2 s) would have been far shorter


def test_429_without_retry_after_backs_off_then_gives_up(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(status=429))
    with server.running(), pytest.raises(AdapterError) as err:
        _adapter(tmp_path, server, max_retries=3).complete(_request())
    assert len(server.requests) == 4  # the first attempt and three retries: the client adds none
    assert err.value.status == 429
    assert err.value.kind == "api_error"
    assert "rate limited" in str(err.value) and "gave up after 4 attempts" in str(err.value)


def test_retry_after_past_the_total_budget_fails_at_once(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(status=429, headers={"Retry-After": "120"}))
    with server.running():
        started = time.monotonic()
        with pytest.raises(AdapterError, match="retry budget"):
            _adapter(tmp_path, server, retry_max_total_s=10).complete(_request())
    assert len(server.requests) == 1
    assert time.monotonic() - started < 60  # the server asked for 120 s; a loaded machine adds seconds


def test_500_is_retried_and_400_is_not(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(status=500), Reply(status=502), Reply(text="recovered"))
    with server.running():
        assert _adapter(tmp_path, server).complete(_request()).text == "recovered"
    assert len(server.requests) == 3
    server = _serve(Reply(status=400))
    with server.running(), pytest.raises(AdapterError, match="not retryable") as err:
        _adapter(tmp_path, server).complete(_request())
    assert len(server.requests) == 1
    assert err.value.status == 400


def test_hang_past_the_timeout_is_retried_then_an_api_error(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(text="too late", delay_s=60.0))
    with server.running():
        started = time.monotonic()
        with pytest.raises(AdapterError, match=r"timed out after 0\.3s") as err:
            _adapter(tmp_path, server, request_timeout_s=0.3, max_retries=1).complete(_request())
        elapsed = time.monotonic() - started
    assert len(server.requests) == 2
    assert elapsed < 30  # two 0.3 s timeouts and a short backoff, never the server's 60 s
    assert err.value.status is None


@pytest.mark.parametrize(
    ("fault", "message"),
    [(Reply(text="x" * 200, truncate_body=True), "malformed reply"), (Reply(choices=False), "no choices")],
    ids=["truncated-json", "empty-choices"],
)
def test_garbled_replies_are_retried(tmp_path: Path, no_proxy: None, fault: Reply, message: str) -> None:
    server = _serve(fault, Reply(text="fine"))
    with server.running():
        assert _adapter(tmp_path, server).complete(_request()).text == "fine"
    assert len(server.requests) == 2
    server = _serve(fault)
    with server.running(), pytest.raises(AdapterError, match=message):
        _adapter(tmp_path, server).complete(_request())
    assert len(server.requests) == 3


def test_cut_off_reply_is_a_truncated_completion(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(text="PYTHON_CODE\ndef solve(", finish_reason="length", usage=(10, 4096)))
    with server.running():
        completion = _adapter(tmp_path, server).complete(_request())
    assert completion.truncated
    assert completion.usage.output_tokens == 4096
    assert completion.cost_usd == pytest.approx((10 * 3.0 + 4096 * 15.0) / 1e6)


def test_waiting_case_gets_the_in_flight_answer(tmp_path: Path, no_proxy: None) -> None:
    """A prefetch in flight holds the key: a second caller waits for it and sends nothing."""
    server = ChatServer(lambda body, seen: Reply(text="slow answer", delay_s=0.5))
    with server.running():
        cache = CachedAdapter(_adapter(tmp_path, server), tmp_path / "cache", session="s1")
        prefetch = threading.Thread(target=cache.prefetch, args=(_request(),))
        prefetch.start()
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline:  # the prefetch holds the key now
            time.sleep(0.01)
        assert server.in_flight == 1  # so the case below must wait for it, whatever the machine's load
        completion = cache.complete(_request())
        prefetch.join()
    assert completion.text == "slow answer"
    assert not completion.cache_hit  # fetched in this session: paid for now
    assert len(server.requests) == 1
    later = CachedAdapter(_adapter(tmp_path, server), tmp_path / "cache", session="s2").complete(_request())
    assert later.cache_hit


# ---------------------------------------------------------------------------------------------------
# The benchmark end to end: what each fault leaves in the records

MF = "network_optimization/maximum_flow/easy"


def _oracle_text(instance_id: str) -> str:
    directory = FIXTURES / MF / instance_id
    ref = InstanceRef(
        suite="mmopt",
        path=tuple(directory.relative_to(FIXTURES).parts),
        labels={},
        location=directory,
    )
    return oracle_response(load_package(ref))


SCRIPT = {
    "mf_e_001": "ok-after-429",  # 429 with Retry-After, then the reference answer: passes
    "mf_e_002": "always-500",  # api_error, resumed later
    "mf_e_003": "cut-off",  # finish_reason length: a model failure, recorded as truncated
    "mf_e_004": "empty-choices",  # api_error
    "mf_e_005": "hang",  # api_error after timeouts
}


def _faulty(body: dict[str, object], seen: int) -> Reply:
    instance = case_id(body) or ""
    plan = SCRIPT.get(instance, "")
    if plan == "ok-after-429":
        return Reply(status=429, headers={"Retry-After": "0"}) if seen == 0 else Reply(_oracle_text(instance))
    if plan == "always-500":
        return Reply(status=500)
    if plan == "cut-off":
        return Reply(
            text="ASSUMPTIONS\nnone\nMATHEMATICAL_MODEL\nmax flow\nPYTHON_CODE\ndef solve(",
            finish_reason="length",
        )
    if plan == "empty-choices":
        return Reply(choices=False)
    if plan == "hang":
        return Reply(text="late", delay_s=2.0)
    return Reply(text="no sections at all")


@pytest.fixture
def faulty_server(no_proxy: None) -> Iterator[ChatServer]:
    server = ChatServer(_faulty)
    with server.running():
        yield server


def _ledger(run: BenchRun) -> list[dict[str, object]]:
    path = run.run_dir / LEDGER_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_faults_end_in_the_right_records_and_resume_and_cache(
    tmp_path: Path, faulty_server: ChatServer
) -> None:
    models = _models_file(tmp_path, faulty_server, request_timeout_s=0.5, max_retries=1)
    select = ("-k", " or ".join(SCRIPT), "-n", "0", f"--models-file={models}", "--exec-timeout=60")
    run = run_bench(tmp_path / "run", "--model=loop", *select, env={"OPTBENCH_STATUS_INTERVAL_S": "0"})
    records = {r["case"].split("/")[4]: r for r in run.records}
    assert set(records) == set(SCRIPT), run.output[-3000:]

    assert records["mf_e_001"]["outcome"] == "passed", records["mf_e_001"]
    assert faulty_server.by_case["mf_e_001"] == 2
    for name, detail in (("mf_e_002", "HTTP 500"), ("mf_e_004", "no choices"), ("mf_e_005", "timed out")):
        record = records[name]
        assert (record["outcome"], record["category"]) == ("error", "api_error"), record
        assert detail in record["detail"]
        assert faulty_server.by_case[name] == 2  # one attempt and one retry, not repeated by the case
    cut = records["mf_e_003"]
    # The cut-off code ("def solve(") is executed and fails as a syntax error; the record says why.
    assert (cut["outcome"], cut["category"], cut["truncated"]) == ("failed", "syntax", True)
    passed = records["mf_e_001"]
    assert (passed["input_tokens"], passed["output_tokens"]) == (1000, 200)
    assert passed["cost_usd"] == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6)
    assert passed["cache_hits"] == 0 and passed["model_time_s"] > 0
    assert run.summary["accounting"]["cost_usd"] == pytest.approx(2 * passed["cost_usd"])
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    # The ledger counts requests (retries included in one), the server counts HTTP attempts.
    assert sum(faulty_server.by_case.values()) == 2 + 2 + 1 + 2 + 2
    session = manifest["sessions"][-1]
    assert (session["requests_sent"], session["requests_failed"]) == (len(_ledger(run)), 3) == (5, 3)
    # every HTTP attempt after a request's first is a retry, in the ledger and on the status line
    assert session["request_retries"] == sum(faulty_server.by_case.values()) - len(_ledger(run)) == 4
    status = [line for line in run.output.splitlines() if line.startswith("optbench: 5/5 done")]
    assert status and "5 requests (3 failed, 4 retries)" in status[-1], run.output[-3000:]
    assert manifest["accounting"]["cost_usd"] == pytest.approx(run.summary["accounting"]["cost_usd"])

    # The endpoint recovers; --resume re-runs exactly the three api_error cases.
    SCRIPT.update({"mf_e_002": "ok-after-429", "mf_e_004": "ok-after-429", "mf_e_005": "ok-after-429"})
    try:
        before = sum(faulty_server.by_case.values())
        resumed = run_bench(tmp_path / "run", "--model=loop", "--resume", *select)
        assert sum(faulty_server.by_case.values()) - before == 3, resumed.output[-3000:]
        latest = {r["case"].split("/")[4]: r for r in resumed.records}
        assert all(latest[n]["outcome"] == "passed" for n in ("mf_e_001", "mf_e_002", "mf_e_004", "mf_e_005"))
        # A fresh run of the same selection is served entirely from the cache.
        before = sum(faulty_server.by_case.values())
        again = run_bench(tmp_path / "again", "--model=loop", *select)
        assert sum(faulty_server.by_case.values()) == before
        assert _ledger(again) == []
        assert all(r["cache_hits"] == r["model_calls"] == 1 for r in again.records)
    finally:
        SCRIPT.update({"mf_e_002": "always-500", "mf_e_004": "empty-choices", "mf_e_005": "hang"})


@pytest.mark.slow
def test_offline_cold_cache_names_the_case(tmp_path: Path, faulty_server: ChatServer) -> None:
    models = _models_file(tmp_path, faulty_server)
    run = run_bench(
        tmp_path / "run", "--model=loop", "-k", "mf_e_001", "--offline", f"--models-file={models}"
    )
    assert run.returncode != 0
    (record,) = run.records
    assert (record["outcome"], record["category"]) == ("error", "api_error")
    assert "mmopt/network_optimization/maximum_flow/easy/mf_e_001/stage1/s0" in record["detail"]
    assert "offline" in record["detail"]
    assert faulty_server.requests == []


@pytest.mark.slow
def test_text_only_model_skips_image_cases_without_a_request(
    tmp_path: Path, faulty_server: ChatServer
) -> None:
    models = _models_file(tmp_path, faulty_server, supports_images=False)
    run = run_bench(tmp_path / "run", "--model=loop", "-k", "mf_e_001 or mf_e_002", f"--models-file={models}")
    assert run.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, run.output[-2000:]  # nothing scored
    assert "no case was scored: all 2 were skipped: [unsupported_input]" in run.output
    assert [r["outcome"] for r in run.records] == ["skipped", "skipped"]
    assert all(
        r["category"] == "unsupported_input" and "does not take images" in r["detail"] for r in run.records
    )
    assert faulty_server.requests == []


@pytest.mark.slow
def test_max_cost_stops_sending_and_the_rest_resume(tmp_path: Path, no_proxy: None) -> None:
    # Each reply costs (1000*3 + 200*15)/1e6 = $0.006, and each request reserves its worst case first
    # (200 output tokens: $0.003, plus its prompt's text and image: about $0.011 in all): under a
    # cap of $0.015 one call fits, and after it ($0.006 spent) a second does not.
    server = ChatServer(lambda body, seen: Reply(text="no sections"))
    with server.running():
        models = _models_file(tmp_path, server, max_output_tokens=200)
        select = ("-k", "mf_e", "-n", "0", "--max-in-flight=1", f"--models-file={models}")
        run = run_bench(tmp_path / "run", "--model=loop", "--max-cost=0.015", *select)
        first = run.records
        assert [r["outcome"] for r in first].count("failed") == len(server.requests) == 1, run.output[-3000:]
        exhausted = [r for r in first if r["outcome"] == "error"]
        assert len(exhausted) == len(first) - 1
        assert all("budget exhausted" in r["detail"] for r in exhausted)
        resumed = run_bench(tmp_path / "run", "--model=loop", "--resume", *select)
        assert [r["outcome"] for r in resumed.records[len(first) :]] == ["failed"] * len(exhausted)
        assert len(server.requests) == len(first)


@pytest.mark.slow
def test_record_file_replays_the_run_exactly(tmp_path: Path, faulty_server: ChatServer) -> None:
    models = _models_file(tmp_path, faulty_server, max_retries=1)
    recording = tmp_path / "recorded.jsonl"
    select = ("-k", "mf_e_001 or mf_e_003 or mf_e_006", "-n", "0", "--exec-timeout=60")
    live = run_bench(
        tmp_path / "live", "--model=loop", f"--record={recording}", f"--models-file={models}", *select
    )
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert [line["case"] for line in lines] == sorted(r["case"] for r in live.records)
    sent = len(faulty_server.requests)
    replayed = run_bench(tmp_path / "replayed", f"--model=replay:{recording}", *select)
    assert len(faulty_server.requests) == sent

    def scores(run: BenchRun) -> dict[str, tuple[object, ...]]:
        fields = ("outcome", "category", "passed", "returned_objective", "truncated")
        return {r["case"]: tuple(r[f] for f in fields) for r in run.records}

    assert scores(replayed) == scores(live)
    assert {v[1] for v in scores(live).values()} == {None, "syntax", "response_contract"}  # pass, 2 fails


@pytest.mark.slow
def test_requests_in_flight_do_not_depend_on_workers(tmp_path: Path, no_proxy: None) -> None:
    """The generation phase keeps --max-in-flight requests in flight at -n 0 and -n 2, each once."""
    for workers in ("0", "2"):
        server = ChatServer(lambda body, seen: Reply(text="no sections"), latency_s=0.4)
        with server.running():
            models = _models_file(tmp_path, server)
            run = run_bench(
                tmp_path / f"run{workers}",
                "--model=loop",
                "-k",
                "maximum_flow",
                "--samples=2",
                "--max-in-flight=8",
                "-n",
                workers,
                f"--models-file={models}",
            )
        cases = len(run.records)
        assert cases >= 40, run.output[-3000:]
        assert len(server.requests) == cases  # every request sent once, prefetched or not
        assert 6 <= server.peak_in_flight <= 8, (workers, server.peak_in_flight)


# ---------------------------------------------------------------------------------------------------
# The models file's extra_body cannot replace what the harness sends and records


@pytest.mark.parametrize("key", ["model", "messages", "n", "stream", "temperature", "max_tokens", "tools"])
def test_extra_body_may_not_set_a_field_the_harness_sends(tmp_path: Path, key: str) -> None:
    path = tmp_path / "models.toml"
    path.write_text(
        '[models.loop]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "loopback-model"\n'
        f'[models.loop.extra_body]\n{key} = "other"\nreasoning_effort = "high"\n',
        encoding="utf-8",
    )
    with pytest.raises(ModelsFileError) as err:
        load_models_file(path)
    message = str(err.value)
    assert f"models file {path}, [models.loop]: field 'extra_body.{key}' is not allowed" in message
    assert "model, messages, n, stream" in message


def test_extra_body_vendor_options_still_reach_the_endpoint(tmp_path: Path, no_proxy: None) -> None:
    server = _serve(Reply(text="ok"))
    with server.running():
        path = _models_file(tmp_path, server)
        path.write_text(path.read_text() + '[models.loop.extra_body]\nreasoning_effort = "high"\n')
        OpenAIChatAdapter(load_models_file(path)["loop"]).complete(_request())
    (body,) = server.requests
    assert (body["reasoning_effort"], body["model"]) == ("high", "loopback-model")
