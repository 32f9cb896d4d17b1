"""Measure model requests in flight and wall time at -n 1, 2 and 4 against a slow loopback endpoint.

The claim under test: with the generation phase (``benchmark/prefetch.py``) the run keeps
``--max-in-flight`` requests in flight whatever ``-n`` is, so the time spent waiting for the model
is about ``cases × latency ÷ max_in_flight`` at every ``-n``. The endpoint is the loopback chat
server of the tests (``tests/chat_server.py``) with a fixed latency per reply; it answers every case
with the same reply, one without a code section, so no case reaches the sandbox and the wall time
is the model side's alone (sandboxed execution is measured by ``scripts/bench_overhead.py``).

Each run starts with a cold cache, so every request is sent. Reported per ``-n``: requests the
server received (must equal the cases: none sent twice), the most it served at once, the span from
its first request to its last reply (the model side), the whole run's wall time (pytest start-up and
collection included), the ideal ``cases × latency ÷ max_in_flight`` and the span of whole waves,
``ceil(cases ÷ max_in_flight) × latency`` (each in-flight slot serves its requests one after
another, so 200 requests on 32 slots need 7 rounds: 3.5 s, not 3.125 s), each with its share of
the measured span in percent (the target is at least 90%).

    .venv/bin/python scripts/bench_concurrency.py [--cases 200] [--latency 0.5] [--max-in-flight 32]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmark.suites.mmopt.package import discover  # noqa: E402
from tests.chat_server import ChatServer, Reply  # noqa: E402

REPLY = "ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nnot given\n"


class _Timed(ChatServer):
    """The loopback server, also noting when the first request came and the last reply left."""

    def __init__(self, latency_s: float) -> None:
        super().__init__(lambda body, seen: Reply(text=REPLY), latency_s=latency_s)
        self.first: float | None = None
        self.last: float | None = None
        self._times = threading.Lock()

    def _begin(self, body: dict[str, object]) -> int:
        with self._times:
            self.first = self.first if self.first is not None else time.perf_counter()
        return super()._begin(body)

    def _end(self) -> None:
        with self._times:
            self.last = time.perf_counter()
        super()._end()


def _base_command(work: Path, models: Path, samples: int, max_in_flight: int) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--model=loop",
            f"--models-file={models}", f"--samples={samples}", f"--max-in-flight={max_in_flight}",
            "--exec-timeout=5"]  # fmt: skip


def _select(command: list[str], cases: int) -> list[str]:
    """``--deselect`` arguments that cut the collection down to the first ``cases`` items."""
    done = subprocess.run([*command, "--collect-only"], cwd=REPO, capture_output=True, text=True, check=False)
    ids = [line for line in done.stdout.splitlines() if line.startswith("cases/")]
    if len(ids) < cases:
        raise SystemExit(f"only {len(ids)} cases collected, {cases} asked for:\n{done.stdout[-2000:]}")
    return [f"--deselect={test_id}" for test_id in ids[cases:]]


def run(workers: int, cases: int, latency_s: float, max_in_flight: int) -> dict[str, float]:
    instances = len(discover(REPO / "fixtures" / "mmopt"))
    samples = math.ceil(cases / instances)
    server = _Timed(latency_s)
    with tempfile.TemporaryDirectory() as tmp, server.running():
        work = Path(tmp)
        models = work / "models.toml"
        models.write_text(
            f'[models.loop]\nbase_url = "{server.base_url}"\nmodel = "loopback"\nsupports_images = true\n',
            encoding="utf-8",
        )
        command = _base_command(work, models, samples, max_in_flight)
        deselect = _select(command, cases)
        full = [*command, *deselect, "-n", str(workers), f"--report-dir={work / 'run'}",
                f"--cache-dir={work / 'cache'}"]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(full, cwd=REPO, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        records = len((work / "run" / "results.jsonl").read_text().splitlines())
    if records != cases:
        raise SystemExit(
            f"-n {workers}: {records} records for {cases} cases:\n{(done.stdout + done.stderr)[-3000:]}"
        )
    span = (server.last or 0.0) - (server.first or 0.0)
    return {
        "requests": len(server.requests),
        "peak_in_flight": server.peak_in_flight,
        "model_span_s": span,
        "wall_s": wall,
        "ideal_s": cases * latency_s / max_in_flight,
        "waves_s": math.ceil(cases / max_in_flight) * latency_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per reply")
    parser.add_argument("--max-in-flight", type=int, default=32)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    print(f"{args.cases} cases, {args.latency:g}s per reply, --max-in-flight={args.max_in_flight}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    header = ("-n", "requests", "peak in flight", "model span", "ideal", "%", "full waves", "%", "run wall")
    widths = (3, 8, 14, 10, 6, 4, 10, 4, 8)
    print("  ".join(f"{name:>{width}}" for name, width in zip(header, widths, strict=True)))
    for workers in args.workers:
        result = run(workers, args.cases, args.latency, args.max_in_flight)
        span = result["model_span_s"] or float("inf")
        ideal, waves = 100 * result["ideal_s"] / span, 100 * result["waves_s"] / span
        print(
            f"{workers:>3}  {result['requests']:>8}  {result['peak_in_flight']:>14}  "
            f"{result['model_span_s']:>9.2f}s  {result['ideal_s']:>5.2f}s  {ideal:>3.0f}%  "
            f"{result['waves_s']:>9.2f}s  {waves:>3.0f}%  {result['wall_s']:>7.2f}s"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
