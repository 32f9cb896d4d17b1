"""Sampling schedules: how many samples a case gets and at which temperature.

``single`` is the default (``--samples N`` samples, the first at temperature 0 and the rest at
``--temperature``). ``paper`` is MM-OptBench's protocol (App. F.1): five runs, one deterministic at
temperature 0.0 and four stochastic at 0.4; pass@1 is reported as mean ± std over the runs and
pass@4 over the four stochastic runs.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULES = ("single", "paper")
PAPER_STOCHASTIC_TEMPERATURE = 0.4


@dataclass(frozen=True)
class SampleSpec:
    index: int
    temperature: float

    @property
    def stochastic(self) -> bool:
        return self.temperature > 0


def sample_specs(schedule: str, samples: int, temperature: float) -> tuple[SampleSpec, ...]:
    if schedule == "paper":
        return (SampleSpec(0, 0.0), *tuple(SampleSpec(i, PAPER_STOCHASTIC_TEMPERATURE) for i in range(1, 5)))
    if schedule != "single":
        raise ValueError(f"unknown sampling schedule {schedule!r}; choose one of {', '.join(SCHEDULES)}")
    if samples < 1:
        raise ValueError(f"--samples must be at least 1, got {samples}")
    return (SampleSpec(0, 0.0), *tuple(SampleSpec(i, temperature) for i in range(1, samples)))
