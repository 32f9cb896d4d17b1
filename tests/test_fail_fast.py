"""A dead endpoint is reported in seconds: a closed loopback port and a server that answers 401,
with the default retry policy, against the real adapter and whole benchmark sessions (``-n 2``).

Nothing is mocked: the port is really closed, the 401 is what a real HTTP server sends. Before this
existed one case against a closed port took 147 s (8 retries of "could not connect") and every other
case of the run did the same.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from adapters import AdapterError, CompletionRequest, Decoding
from adapters.models_file import load_models_file
from adapters.openai_chat import UNREACHABLE_BUDGET_S, OpenAIChatAdapter
from adapters.retry import UNREACHABLE
from benchmark.ledger import LEDGER_FILE
from benchmark.messages import Message
from tests.chat_server import ChatServer, Reply
from tests.conftest import run_bench

#: Ten easy maximum-flow cases.
SELECTION = ("-k", "maximum_flow and easy")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, then closed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _models_file(tmp_path: Path, base_url: str, extra: str = "") -> Path:
    """An alias with the default retry policy (no retry fields), as a new user writes one."""
    path = tmp_path / "models.toml"
    path.write_text(
        f'[models.loop]\nbase_url = "{base_url}"\nmodel = "loopback-model"\n{extra}', encoding="utf-8"
    )
    return path


def _adapter(tmp_path: Path, base_url: str, extra: str = "") -> OpenAIChatAdapter:
    return OpenAIChatAdapter(load_models_file(_models_file(tmp_path, base_url, extra))["loop"])


def _request() -> CompletionRequest:
    return CompletionRequest(
        case_key="mmopt/x/mf_e_001/stage1/s0",
        messages=(Message.text("user", "Case ID: mf_e_001\nsolve"),),
        decoding=Decoding(),
    )


def test_a_closed_port_fails_within_the_short_budget(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    started = time.monotonic()
    with pytest.raises(AdapterError) as err:
        adapter.complete(_request())
    elapsed = time.monotonic() - started
    assert err.value.kind == UNREACHABLE
    assert "could not connect" in str(err.value) and "never answered" in str(err.value)
    assert elapsed <= UNREACHABLE_BUDGET_S + 1.0, elapsed  # default policy: 900 s of retries
    assert 1 <= err.value.retries <= 4  # a few attempts, not one


def test_an_unknown_host_is_unreachable_too(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path, "http://optbench-no-such-host.invalid/v1")
    with pytest.raises(AdapterError) as err:
        adapter.complete(_request())
    assert err.value.kind == UNREACHABLE and "could not connect" in str(err.value)


def test_a_failed_tls_handshake_is_unreachable(tmp_path: Path) -> None:
    """https:// to a server that speaks plain HTTP: the handshake fails, no request is ever made."""
    server = ChatServer(lambda body, seen: Reply(text="ok"))
    with server.running():
        adapter = _adapter(tmp_path, server.base_url.replace("http://", "https://"))
        with pytest.raises(AdapterError) as err:
            adapter.complete(_request())
    assert err.value.kind == UNREACHABLE and "SSL" in str(err.value)
    assert server.requests == []


def test_401_stops_at_the_first_attempt_and_names_the_key_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPTBENCH_TEST_KEY", "sk-wrong")
    server = ChatServer(lambda body, seen: Reply(status=401))
    with server.running():
        adapter = _adapter(tmp_path, server.base_url, 'api_key_env = "OPTBENCH_TEST_KEY"\n')
        with pytest.raises(AdapterError) as err:
            adapter.complete(_request())
    assert err.value.kind == UNREACHABLE and err.value.status == 401
    assert "HTTP 401, the key in $OPTBENCH_TEST_KEY was refused" in str(err.value)
    assert "sk-wrong" not in str(err.value)
    assert len(server.requests) == 1


def test_an_endpoint_that_answered_once_keeps_the_full_policy(tmp_path: Path) -> None:
    """A refused connection after a reply is a restart, not a wrong URL: normal retries, api_error."""
    server = ChatServer(lambda body, seen: Reply(text="ok"))
    retries = "max_retries = 2\nretry_base_delay_s = 0.05\nretry_max_delay_s = 0.1\n"
    with server.running():
        adapter = _adapter(tmp_path, server.base_url, retries)
        assert adapter.complete(_request()).text == "ok"
    with pytest.raises(AdapterError) as err:  # the server is gone: its port refuses now
        adapter.complete(_request())
    assert err.value.kind == "api_error" and err.value.retries == 2
    assert "gave up after 3 attempts" in str(err.value)


def test_503_at_the_start_keeps_its_backoff(tmp_path: Path) -> None:
    server = ChatServer(lambda body, seen: Reply(status=503))
    retries = "max_retries = 3\nretry_base_delay_s = 0.05\nretry_max_delay_s = 0.1\n"
    with server.running():
        adapter = _adapter(tmp_path, server.base_url, retries)
        with pytest.raises(AdapterError) as err:
            adapter.complete(_request())
    assert err.value.kind == "api_error" and len(server.requests) == 4


def _endpoint_down_lines(output: str) -> list[int]:
    lines = output.splitlines()
    return [n for n, line in enumerate(lines) if line.startswith("optbench: the endpoint cannot be used")]


def _check_every_case_recorded_at_once(output: str, run_dir: Path, records: list[dict[str, object]]) -> None:
    assert len(records) == 10, output[-3000:]
    assert {(r["outcome"], r["category"]) for r in records} == {("error", "api_error")}, records[0]
    assert all(str(r["detail"]).startswith(f"{UNREACHABLE}: ") for r in records)
    not_sent = [r for r in records if "not sent: the endpoint cannot be used" in str(r["detail"])]
    assert not_sent, "the cases after the first wave are refused without a request"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["counts"]["scored"] == 0
    told = _endpoint_down_lines(output)
    lines = output.splitlines()
    summary_at = next(n for n, line in enumerate(lines) if "optbench summary" in line)
    assert told and told[0] < summary_at < told[-1], output[-3000:]  # at the top and at the bottom


@pytest.mark.slow
def test_a_run_against_a_closed_port_records_every_case_in_seconds(tmp_path: Path) -> None:
    models = _models_file(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    started = time.monotonic()
    run = run_bench(
        tmp_path / "run", "--model=loop", f"--models-file={models}", "-n", "2", "--max-in-flight=4",
        *SELECTION,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert run.returncode == 1, run.output[-3000:]
    _check_every_case_recorded_at_once(run.output, run.run_dir, run.records)
    ledger = [json.loads(line) for line in (run.run_dir / LEDGER_FILE).read_text().splitlines()]
    assert 1 <= len(ledger) <= 4  # the first wave of --max-in-flight requests, then none
    # Two pytest processes' start-up, collection and sandbox probe included; before, 10 x 147 s.
    assert elapsed < 90, elapsed


@pytest.mark.slow
def test_a_run_against_a_401_server_sends_one_wave_and_records_every_case(tmp_path: Path) -> None:
    server = ChatServer(lambda body, seen: Reply(status=401))
    with server.running():
        models = _models_file(tmp_path, server.base_url)
        run = run_bench(
            tmp_path / "run", "--model=loop", f"--models-file={models}", "-n", "2", "--max-in-flight=4",
            *SELECTION,
        )  # fmt: skip
    assert run.returncode == 1, run.output[-3000:]
    _check_every_case_recorded_at_once(run.output, run.run_dir, run.records)
    assert 1 <= len(server.requests) <= 4
    assert all("HTTP 401, refused without a key (api_key_env)" in str(r["detail"]) for r in run.records)
