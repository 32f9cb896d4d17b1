"""The live status line: on a terminal one line redrawn in place, under CI a plain line each time;
tested in a real session on a pseudo-terminal and on pipes."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

REDRAW = "\r\x1b[K"
SELECT = ("-k", "mf_e_001 or mf_e_002 or mf_e_003", "-n", "0", "-p", "no:cacheprovider")


def _command(run_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "--model=oracle",
        f"--report-dir={run_dir}",
        *SELECT,
    ]


def _env() -> dict[str, str]:
    env = {**os.environ, "OPTBENCH_STATUS_INTERVAL_S": "0", "COLUMNS": "200"}  # a status line per case
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def _on_a_terminal(command: list[str]) -> tuple[int, str]:
    """Run ``command`` with stdout and stderr on a pseudo-terminal; everything it wrote, as text."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        command, cwd=REPO, env=_env(), stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the session ended and closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    os.close(controller)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def _status_draws(output: str) -> list[str]:
    lines = output.replace("\r\n", "\n").replace(REDRAW, "\n").split("\n")  # a terminal's newline is CR LF
    return [part for part in lines if part.startswith("optbench: ") and " done, " in part]


def test_on_a_terminal_the_status_line_is_redrawn_in_place(tmp_path: Path) -> None:
    returncode, output = _on_a_terminal(_command(tmp_path / "run"))
    assert returncode == 0, output[-3000:]
    draws = _status_draws(output)
    # one line: drawn once below pytest's header, then redrawn in place after each case; it is the
    # progress display, so pytest's letters and percentage for the cases are not written beside it
    assert output.count("\noptbench: 1/3 done") == 1 and output.count(REDRAW) == 2, output[-3000:]
    assert [d.split(" done")[0] for d in draws] == ["optbench: 1/3", "optbench: 2/3", "optbench: 3/3"]
    assert draws[-1].startswith("optbench: 3/3 done, pass 100.0% of 3 scored, 0 in flight")
    assert draws[-1].endswith("requests (0 failed, 0 retries), $0.0000 spent")
    assert "[100%]" not in output and "3 passed" in output


def test_off_a_terminal_each_status_line_is_a_line_of_its_own(tmp_path: Path) -> None:
    done = subprocess.run(
        _command(tmp_path / "run"), cwd=REPO, env=_env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "\r" not in done.stdout and "\x1b[K" not in done.stdout
    lines = [line for line in done.stdout.splitlines() if line.startswith("optbench: ") and " done, " in line]
    assert [line.split(" done")[0] for line in lines] == ["optbench: 1/3", "optbench: 2/3", "optbench: 3/3"]
    assert lines[-1].endswith("0 requests (0 failed, 0 retries), $0.0000 spent")


def test_beside_other_tests_the_status_line_is_a_plain_line_and_pytest_keeps_its_progress(
    tmp_path: Path,
) -> None:
    """A redrawn line would share its line with the other tests' letters and pytest's percentage."""
    command = [
        *_command(tmp_path / "run")[: -len(SELECT)],
        "cases",
        "tests/test_jsonl.py",
        *("-k", "mf_e_001 or mf_e_002 or hidden_ones_left_out", "-n", "0", "-p", "no:cacheprovider"),
    ]
    returncode, output = _on_a_terminal(command)
    assert returncode == 0, output[-3000:]
    assert REDRAW not in output, output[-3000:]
    assert [d.split(" done")[0] for d in _status_draws(output)] == ["optbench: 1/2", "optbench: 2/2"]
    assert "[100%]" in output and "3 passed" in output
