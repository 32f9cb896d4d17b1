"""``--shard I/N``: N machines each run a disjoint, balanced share of one run's cases.

Collection order is deterministic (dataset order × setting × sample), so dealing the collected
cases out round-robin gives every shard the same share on every machine (sizes differ by at most
one) and mixes families and difficulties evenly across shards. ``python -m benchmark merge``
combines the shard run folders back into one run (:mod:`benchmark.reporting.merge`).

``--shard auto`` reads I and N from the engine that started the process, so one command line serves
every task of a Kubernetes Indexed Job or a Slurm job array (:func:`shard_from_environment`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

AUTO = "auto"

#: Set by Kubernetes in each pod of an Indexed Job (0-based).
K8S_INDEX = "JOB_COMPLETION_INDEX"
#: Kubernetes does not pass ``spec.completions`` to the pod (the downward API cannot read it), so the
#: Job's manifest sets this to the same number (docs/scale.md).
K8S_COUNT = "JOB_COMPLETIONS"
SLURM_ID, SLURM_COUNT = "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"
SLURM_MIN, SLURM_MAX, SLURM_STEP = "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based, as people count machines in a CI matrix."""
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def take(self, items: Sequence[T]) -> list[T]:
        return [item for position, item in enumerate(items) if position % self.count == self.index - 1]


def parse_shard(text: str, environ: Mapping[str, str] | None = None) -> Shard:
    """``I/N``, or ``auto``: the shard the engine's environment names (``environ``, default the
    process's)."""
    if text.strip() == AUTO:
        return shard_from_environment(os.environ if environ is None else environ)
    match = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"cannot read --shard {text!r}: expected I/N with 1 <= I <= N, e.g. --shard 2/3")
    return Shard(int(match.group(1)), int(match.group(2)))


class ShardEnvironmentError(ValueError):
    """``--shard auto`` outside a Kubernetes Indexed Job or Slurm job array, or with values that do
    not describe one contiguous array."""


def shard_from_environment(environ: Mapping[str, str]) -> Shard:
    """The 1-based shard of a Kubernetes Indexed Job (``JOB_COMPLETION_INDEX`` 0..N-1 with
    ``JOB_COMPLETIONS`` = N) or a Slurm array (``SLURM_ARRAY_TASK_ID`` from ``SLURM_ARRAY_TASK_MIN``
    in steps of 1, ``SLURM_ARRAY_TASK_COUNT`` = N). An array like ``--array=1,3,5`` or
    ``--array=0-8:2`` is refused: its IDs do not deal the cases out as I of N."""
    kubernetes = K8S_INDEX in environ
    slurm = SLURM_ID in environ
    if kubernetes and slurm:
        raise ShardEnvironmentError(
            f"--shard auto: both {K8S_INDEX} (Kubernetes) and {SLURM_ID} (Slurm) are set; give --shard I/N"
        )
    if kubernetes:
        index = _integer(environ, K8S_INDEX)
        count = _integer(environ, K8S_COUNT, hint="set it in the Job's pod template to spec.completions")
        return _checked(index + 1, count, f"{K8S_INDEX}={index}, {K8S_COUNT}={count}")
    if slurm:
        task = _integer(environ, SLURM_ID)
        count = _integer(environ, SLURM_COUNT)
        first = _integer(environ, SLURM_MIN) if SLURM_MIN in environ else 0
        step = _integer(environ, SLURM_STEP) if SLURM_STEP in environ else 1
        last = _integer(environ, SLURM_MAX) if SLURM_MAX in environ else first + count - 1
        where = f"{SLURM_ID}={task}, {SLURM_MIN}={first}, {SLURM_MAX}={last}, {SLURM_COUNT}={count}"
        if step != 1 or last - first + 1 != count:
            raise ShardEnvironmentError(
                f"--shard auto: the Slurm array is not one contiguous range ({where}, step {step}); "
                "submit it as --array=0-(N-1) or give --shard I/N"
            )
        return _checked(task - first + 1, count, where)
    raise ShardEnvironmentError(
        f"--shard auto: neither {K8S_INDEX} (a Kubernetes Indexed Job) nor {SLURM_ID} (a Slurm job "
        "array) is set; give --shard I/N"
    )


def _integer(environ: Mapping[str, str], name: str, hint: str = "") -> int:
    value = environ.get(name)
    if value is None:
        raise ShardEnvironmentError(f"--shard auto: {name} is not set" + (f"; {hint}" if hint else ""))
    try:
        return int(value.strip())
    except ValueError:
        raise ShardEnvironmentError(f"--shard auto: {name}={value!r} is not an integer") from None


def _checked(index: int, count: int, where: str) -> Shard:
    if not 1 <= index <= count:
        raise ShardEnvironmentError(f"--shard auto: {where} is not a shard of 1..{count}")
    return Shard(index, count)
