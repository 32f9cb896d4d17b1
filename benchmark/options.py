"""Command-line options of the benchmark and the typed settings they become.

Options are registered once here; everything downstream reads :class:`RunOptions`, never
``config.getoption`` directly, so each setting has one name, one type and one docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmark.sandbox.factory import OPTION_CHOICES
from benchmark.schedules import SCHEDULES


@dataclass(frozen=True)
class RunOptions:
    model: str | None
    """Model alias: ``oracle``, ``replay:FILE`` or an alias from the models file. None: no run."""
    suite: str
    """Which suite's cases to collect."""
    setting: str | None
    """Prompt setting (suite-specific; the suite's official one when None)."""
    dataset: Path | None
    """Dataset root; the suite's shipped fixtures when None. ``--dataset SUITE:PATH`` also selects
    the suite (e.g. ``mamo:releases/mamo``)."""
    samples: int
    """Samples per case under the ``single`` schedule."""
    schedule: str
    """``single`` or ``paper`` (five runs: T=0.0 once, T=0.4 four times)."""
    temperature: float
    """Temperature of samples after the first under the ``single`` schedule."""
    exec_timeout: float
    """Wall-clock seconds generated code may run (the paper's grace period is 1800)."""
    memory_mb: int
    """Address-space cap of generated code."""
    max_tokens: int
    """Output-token limit per model call."""
    report_dir: Path | None
    """Where this run writes its records and reports (default ``reports/<model>-<time>``)."""
    gate: str | None
    """Release gate, e.g. ``pass@1>=0.45``; when given it decides the exit status."""
    gate_allow_unscored: str | None
    """How many selected cases may go unscored without failing the gate: ``N`` or ``P%`` (0)."""
    resume: bool
    """Continue the run in ``--report-dir`` (or the newest run of this model), skipping finished cases."""
    objective_only: bool
    """Score the objective alone (paper §3.3) instead of also checking the returned decisions."""
    models_file: Path | None
    """TOML file that maps model aliases to endpoints (default: $OPTBENCH_MODELS_FILE or models.toml)."""
    cache_dir: Path
    """Content-addressed response cache in front of every non-oracle adapter."""
    offline: bool
    """Make a response-cache miss an error instead of a request."""
    cache: str
    """Response-cache mode for real models: ``readwrite``, ``read``, ``write`` or ``off``."""
    sandbox: str
    """``auto`` (bubblewrap when it works), ``bwrap`` or ``subprocess``."""
    record: Path | None = None
    """Write the run's responses here as a replay file (``--model=replay:FILE`` re-scores the run)."""
    max_cost: float | None = None
    """Stop sending requests once this session has spent this many USD (needs the model's prices)."""
    max_in_flight: int = 32
    """Model requests in flight across the whole run, whatever ``-n`` is."""
    gate_baseline: Path | None = None
    """Baseline run folder for relative gate conditions such as ``pass@1>=baseline-0.02``."""
    shard: str | None = None
    """``I/N``: run only the I-th of N disjoint, balanced shares of the selected cases."""

    @classmethod
    def from_config(cls, config: pytest.Config, suites: tuple[str, ...]) -> RunOptions:
        get = config.getoption
        suite, dataset = get("suite") or str(config.getini("optbench_suite")), get("dataset")
        prefix, _, rest = (dataset or "").partition(":")
        if rest and prefix in suites:  # --dataset SUITE:PATH picks the suite and its external format
            suite, dataset = prefix, rest
        return cls(
            model=get("model"),
            suite=suite,
            setting=get("setting"),
            dataset=Path(dataset) if dataset else None,
            samples=get("samples"),
            schedule=get("schedule"),
            temperature=get("temperature"),
            exec_timeout=get("exec_timeout"),
            memory_mb=get("exec_memory_mb"),
            max_tokens=get("max_tokens"),
            report_dir=Path(get("report_dir")) if get("report_dir") else None,
            gate=get("gate"),
            gate_allow_unscored=get("gate_allow_unscored"),
            resume=get("resume"),
            objective_only=get("objective_only"),
            models_file=Path(get("models_file")) if get("models_file") else None,
            cache_dir=Path(get("cache_dir")),
            offline=get("offline"),
            cache=get("cache"),
            sandbox=get("sandbox"),
            record=Path(get("record")) if get("record") else None,
            max_cost=get("max_cost"),
            max_in_flight=get("max_in_flight"),
            gate_baseline=Path(get("gate_baseline")) if get("gate_baseline") else None,
            shard=get("shard"),
        )

    def check(self) -> None:
        """Refuse values no run can use, naming the option, before anything runs: a negative
        timeout or a zero token limit would otherwise fail every case one by one."""
        positive: dict[str, float | None] = {
            "--exec-timeout": self.exec_timeout,
            "--exec-memory-mb": self.memory_mb,
            "--max-tokens": self.max_tokens,
            "--max-cost": self.max_cost,
        }
        for option, value in positive.items():
            if value is not None and not value > 0:
                raise ValueError(f"{option} must be positive, got {value:g}")
        if self.max_in_flight < 1:
            raise ValueError(f"--max-in-flight must be at least 1, got {self.max_in_flight}")
        if not self.temperature >= 0:
            raise ValueError(f"--temperature must be 0 or more, got {self.temperature:g}")


def add_options(parser: pytest.Parser) -> None:
    parser.addini("optbench_suite", "the suite run when --suite is not given", default="")
    group = parser.getgroup("optbench", "optimization-modeling benchmark")
    group.addoption(
        "--model", default=None, help="model alias: oracle, replay:FILE, or an alias from the models file"
    )
    group.addoption("--suite", default=None, help="suite to run (default: optbench_suite in pytest.ini)")
    group.addoption(
        "--artifacts",
        default=None,
        help="score the answer files an external agent wrote in DIR, asking no model (the README gives "
        "each suite's layout of DIR); without --model the model is artifacts:DIR",
    )
    group.addoption("--setting", default=None, help="prompt setting (default: the suite's official one)")
    group.addoption(
        "--dataset", default=None, help="dataset root, or SUITE:PATH (default: the suite's shipped fixtures)"
    )
    group.addoption("--samples", type=int, default=1, help="samples per case (default 1, at temperature 0)")
    group.addoption(
        "--schedule", choices=SCHEDULES, default="single", help="sampling schedule; 'paper' = 5 runs"
    )
    group.addoption("--temperature", type=float, default=0.4, help="temperature of samples after the first")
    group.addoption(
        "--exec-timeout", type=float, default=1800.0, help="seconds generated code may run (1800)"
    )
    group.addoption("--exec-memory-mb", type=int, default=8192, help="memory cap of generated code in MiB")
    group.addoption("--max-tokens", type=int, default=16384, help="output-token limit per model call")
    group.addoption("--report-dir", default=None, help="run folder (default: reports/<model>-<timestamp>)")
    group.addoption("--gate", default=None, help="release gate deciding the exit status, e.g. pass@1>=0.45")
    group.addoption(
        "--gate-allow-unscored",
        default=None,
        help="unscored cases (errors, missing records) the gate accepts: N or P%% (default 0)",
    )
    group.addoption(
        "--gate-baseline",
        default=None,
        help="baseline run folder for relative gates, e.g. --gate 'pass@1>=baseline-0.02'",
    )
    group.addoption(
        "--shard",
        default=None,
        help="run the I-th of N disjoint, balanced shares: I/N, or auto (a Kubernetes or Slurm array task)",
    )
    group.addoption("--resume", action="store_true", help="continue a run, skipping cases already scored")
    group.addoption(
        "--objective-only", action="store_true", help="score the objective alone, not the decisions"
    )
    group.addoption(
        "--models-file", default=None, help="TOML models file (default $OPTBENCH_MODELS_FILE, models.toml)"
    )
    group.addoption("--cache-dir", default=".bench-cache/responses", help="response cache directory")
    group.addoption("--offline", action="store_true", help="a response-cache miss is an error")
    group.addoption(
        "--cache",
        choices=("readwrite", "read", "write", "off"),
        default="readwrite",
        help="response cache of real models: readwrite (default), read (store nothing), "
        "write (ignore earlier entries), off",
    )
    group.addoption(
        "--sandbox",
        choices=OPTION_CHOICES,
        default="auto",
        help="sandbox: auto (warm when bwrap works), warm (forking pool), cold (bwrap per case), subprocess",
    )
    group.addoption("--record", default=None, help="write the run's responses to FILE as a replay file")
    group.addoption(
        "--max-cost", type=float, default=None, help="stop sending requests once this session spent USD"
    )
    group.addoption(
        "--max-in-flight", type=int, default=32, help="model requests in flight across all workers (32)"
    )
