"""The real-server test tells a dead server from a live one (run with ``make test``, without the
optional llama.cpp install): a server that crashed on a request is reported with its signal and the
tail of its log, not as the "could not connect" its refused requests would otherwise show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_real_server import LlamaServer


def _server(tmp_path: Path, code: str) -> LlamaServer:
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-c", code], stdout=sink, stderr=subprocess.STDOUT)
    return LlamaServer(base_url="http://127.0.0.1:9/v1", log=log, process=process)


def test_a_crashed_server_is_reported_with_its_signal_and_log(tmp_path: Path) -> None:
    crash = "import os, signal; print('ggml: loading', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"
    server = _server(tmp_path, crash)
    server.process.wait(timeout=30)
    with pytest.raises(pytest.fail.Exception) as failed:
        server.assert_alive("ERROR ...: [api_error] could not connect")
    message = str(failed.value)
    assert "the llama.cpp server process died (signal SIGSEGV)" in message
    assert "ggml: loading" in message and "could not connect" in message


def test_a_running_server_passes_and_says_it_is_running(tmp_path: Path) -> None:
    server = _server(tmp_path, "import time; print('listening', flush=True); time.sleep(60)")
    try:
        server.assert_alive("")
        assert server.state().startswith(f"the llama.cpp server is still running (pid {server.process.pid})")
    finally:
        server.process.kill()
        server.process.wait()
