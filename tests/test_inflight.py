"""The run's in-flight bound shared by its processes (benchmark/inflight.py): never more holders
than permits across processes, all permits usable by one process, and a dead holder's permits
given back by the kernel. Real processes and real locks; counts are asserted, never times."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmark.inflight import RunPermits

REPO = Path(__file__).resolve().parents[1]

#: A process with THREADS threads, each taking a permit ROUNDS times and holding it HOLD_S,
#: writing (enter, exit) times of every hold to OUT as JSON.
_HOLDER = """
import json, sys, threading, time
from pathlib import Path
from benchmark.inflight import RunPermits
folder, count, threads, rounds, hold, out = sys.argv[1:]
permits = RunPermits(Path(folder), int(count))
spans, lock = [], threading.Lock()
def work():
    for _ in range(int(rounds)):
        with permits:
            start = time.monotonic()
            time.sleep(float(hold))
            end = time.monotonic()
        with lock:
            spans.append((start, end))
workers = [threading.Thread(target=work) for _ in range(int(threads))]
for w in workers: w.start()
for w in workers: w.join()
Path(out).write_text(json.dumps(spans))
"""


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    """The largest number of spans open at one moment (an exit sorts before an enter at a tie)."""
    events = sorted([(end, -1) for _, end in spans] + [(start, 1) for start, _ in spans])
    most = current = 0
    for _, step in events:
        current += step
        most = max(most, current)
    return most


def _holders(tmp_path: Path, processes: int, count: int, threads: int) -> list[tuple[float, float]]:
    folder = tmp_path / "permits"
    outs = [tmp_path / f"spans{index}.json" for index in range(processes)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    running = [
        subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(folder), str(count), str(threads), "3", "0.15", str(out)],
            env=env,
        )
        for out in outs
    ]
    assert [process.wait(timeout=120) for process in running] == [0] * processes
    return [tuple(span) for out in outs for span in json.loads(out.read_text())]


def test_processes_together_never_hold_more_than_the_permits(tmp_path: Path) -> None:
    spans = _holders(tmp_path, processes=3, count=4, threads=4)
    assert len(spans) == 3 * 4 * 3  # every hold happened
    assert _most_at_once(spans) <= 4


def test_one_process_may_hold_every_permit(tmp_path: Path) -> None:
    """The point of a run-wide bound: a worker up before the others is not held to a share."""
    spans = _holders(tmp_path, processes=1, count=5, threads=5)
    assert _most_at_once(spans) == 5


def test_a_killed_holder_gives_its_permits_back(tmp_path: Path) -> None:
    folder = tmp_path / "permits"
    hog = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from benchmark.inflight import RunPermits\n"
            "p = RunPermits(Path(sys.argv[1]), 2); p.__enter__(); p.__enter__(); print('held', flush=True)\n"
            "time.sleep(600)",
            str(folder),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert hog.stdout is not None and hog.stdout.readline().strip() == "held"
        permits = RunPermits(folder, 2)
        taken = threading.Event()

        def take_both() -> None:
            with permits, permits:
                taken.set()

        waiter = threading.Thread(target=take_both, daemon=True)
        waiter.start()
        assert not taken.wait(0.3)  # both held by the other process
        hog.send_signal(signal.SIGKILL)
        hog.wait(timeout=30)
        assert taken.wait(30)
    finally:
        hog.kill()
        hog.wait(timeout=30)


def test_a_thread_may_nest_permits_and_gives_back_the_inner_first(tmp_path: Path) -> None:
    permits = RunPermits(tmp_path / "permits", 3)
    with permits:
        with permits:
            assert permits.held_here() == 2
        assert permits.held_here() == 1
    assert permits.held_here() == 0
    permits.close()


def test_no_permit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one permit"):
        RunPermits(tmp_path, 0)


def test_a_waiter_gets_a_permit_given_back_in_its_own_process_without_polling(tmp_path: Path) -> None:
    """A release in the process wakes a waiter at once: with a poll period of an hour, only that
    wake-up can let the second thread in."""
    permits = RunPermits(tmp_path / "permits", 1, poll_s=3600.0)
    order: list[str] = []
    with permits:
        second = threading.Thread(target=lambda: permits.__enter__() or order.append("second in"))
        second.start()
        time.sleep(0.1)
        order.append("first out")
    second.join(timeout=30)
    assert order == ["first out", "second in"]
