"""``optbench summarize RUN_DIR`` rebuilds a run's reports from its records and manifest: the same
run lines (setting, schedule, dataset, sandbox, scoring) as the summary the session wrote."""

from __future__ import annotations

import pytest

from benchmark.cli import main

pytestmark = pytest.mark.slow


def _run_lines(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("- **")]


def test_summarize_keeps_the_setting_schedule_dataset_and_sandbox_lines(bench) -> None:
    run = bench("--model=oracle", "-k", "mf_e_001")
    assert run.returncode == 0, run.output[-3000:]
    written = (run.run_dir / "summary.md").read_text()
    lines = _run_lines(written)
    for key in ("model", "suite", "setting", "scoring", "schedule", "dataset", "sandbox"):
        assert any(line.startswith(f"- **{key}**: ") for line in lines), (key, lines)
    (run.run_dir / "summary.md").unlink()
    assert main(["summarize", str(run.run_dir)]) == 0
    assert _run_lines((run.run_dir / "summary.md").read_text()) == lines
