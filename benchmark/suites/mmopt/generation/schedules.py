"""Reading and checking returned schedules, shared by the scheduling validators.

Models write a schedule in several shapes: the official list of operation records
(``[{"job": "J1", "operation": "O1", "machine": "M2", "start": 0, "finish": 4}, …]``), a nested
dict ``{"J1": {"O1": 0, …}}`` of start times, or a flat dict keyed ``"J1-O1"`` / ``"J1_O1"``.
:func:`read_starts` turns any of them into one ``(job, operation) → start`` map and reports what it
could not read; :func:`machine_overlaps` is the non-overlap check every machine model shares.
Tolerances are absolute (:data:`TOLERANCE`): start times are continuous in the official models.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.decisions import first_present, number
from benchmark.suites.mmopt.generation.flows import fmt

TOLERANCE = 1e-6
SCHEDULE_KEYS = ("schedule", "operations", "start_times", "starts", "start")
_JOB_KEYS = ("job", "job_id", "j")
_OPERATION_KEYS = ("operation", "op", "operation_id", "o")
_START_KEYS = ("start", "start_time", "s", "begin")
_PAIR = re.compile(
    r"^\s*\(?\s*['\"]?(?P<job>[A-Za-z]*\d+)['\"]?\s*(?:-|_|,|/|:)\s*['\"]?(?P<op>[A-Za-z]*\d+)"
)

OperationKey = tuple[str, str]


class _Names:
    """Resolves a returned job/operation label to the instance's spelling (``"j1"``, ``1`` → ``"J1"``)."""

    def __init__(self, names: Sequence[str], prefix: str) -> None:
        self.lookup = {name.lower(): name for name in names}
        self.prefix = prefix

    def __call__(self, raw: Any) -> str | None:
        if isinstance(raw, bool) or raw is None:
            return None
        text = str(raw).strip()
        if isinstance(raw, int) or text.isdigit():
            text = f"{self.prefix}{int(text)}"
        return self.lookup.get(text.lower())


def read_starts(
    solution: Mapping[str, Any],
    operations: Mapping[str, Sequence[str]],
    *,
    job_prefix: str = "J",
    operation_prefix: str = "O",
) -> tuple[dict[OperationKey, float], dict[OperationKey, dict[str, Any]], list[str]]:
    """(start per operation, the returned record per operation when records were given, problems).

    ``operations`` maps each job to its operation names. An operation given twice, an unknown
    label or a non-numeric start is a problem; a missing operation is one too (the caller's checks
    then skip it rather than guessing).
    """
    raw = first_present(solution, SCHEDULE_KEYS)
    if raw is None:
        return {}, {}, ["no schedule returned (looked for " + ", ".join(SCHEDULE_KEYS) + ")"]
    job_name = _Names(list(operations), job_prefix)
    op_names = {job: _Names(ops, operation_prefix) for job, ops in operations.items()}
    starts: dict[OperationKey, float] = {}
    records: dict[OperationKey, dict[str, Any]] = {}
    problems: list[str] = []

    def put(raw_job: Any, raw_op: Any, raw_start: Any, entry: Mapping[str, Any] | None) -> None:
        job = job_name(raw_job)
        op = op_names[job](raw_op) if job is not None else None
        if job is None or op is None:
            problems.append(f"unknown operation {raw_job!r}/{raw_op!r}")
            return
        start = number(raw_start)
        if start is None:
            problems.append(f"operation {job}-{op}: start {raw_start!r} is not a number")
            return
        if (job, op) in starts:
            problems.append(f"operation {job}-{op} is scheduled twice")
            return
        starts[job, op] = start
        if entry is not None:
            records[job, op] = dict(entry)

    if isinstance(raw, list | tuple):
        for item in raw:
            if not isinstance(item, Mapping):
                problems.append(f"schedule entry {item!r} is not a record")
                continue
            raw_job, raw_op = first_present(item, _JOB_KEYS), first_present(item, _OPERATION_KEYS)
            put(raw_job, raw_op, first_present(item, _START_KEYS), item)
    elif isinstance(raw, Mapping):
        for key, value in raw.items():
            if isinstance(value, Mapping):
                if first_present(value, _START_KEYS) is not None:  # {"J1-O1": {"start": 0, ...}}
                    pair = _PAIR.match(str(key))
                    if pair is None:
                        problems.append(f"schedule key {key!r} names no job and operation")
                        continue
                    put(pair["job"], pair["op"], first_present(value, _START_KEYS), value)
                else:  # {"J1": {"O1": 0, ...}}
                    for op, start in value.items():
                        put(key, op, start, None)
                continue
            pair = _PAIR.match(str(key))
            if pair is None:
                problems.append(f"schedule key {key!r} names no job and operation")
                continue
            put(pair["job"], pair["op"], value, None)
    else:
        return {}, {}, ["schedule is neither a list of records nor a dict of start times"]
    for job, ops in operations.items():
        for op in ops:
            if (job, op) not in starts:
                problems.append(f"operation {job}-{op} has no start time")
    return starts, records, problems


def record_problems(
    records: Mapping[OperationKey, Mapping[str, Any]],
    duration: Mapping[OperationKey, float],
    allowed_machines: Mapping[OperationKey, Sequence[str]] | None = None,
) -> list[str]:
    """Consistency of the optional fields of returned records: ``finish`` = start + duration,
    ``duration`` as the instance says, ``machine`` among the allowed ones."""
    problems = []
    for key, entry in records.items():
        label = f"operation {key[0]}-{key[1]}"
        start = number(first_present(entry, _START_KEYS))
        finish = number(first_present(entry, ("finish", "end", "finish_time", "end_time", "completion")))
        returned_duration = number(entry.get("duration"))
        if start is not None and finish is not None and abs(finish - start - duration[key]) > TOLERANCE:
            problems.append(
                f"{label}: finish {fmt(finish)} is not start {fmt(start)} + duration {fmt(duration[key])}"
            )
        if returned_duration is not None and abs(returned_duration - duration[key]) > TOLERANCE:
            problems.append(f"{label}: duration {fmt(returned_duration)}, instance says {fmt(duration[key])}")
        if allowed_machines is not None and "machine" in entry:
            machine = str(entry["machine"]).strip()
            options = {m.lower(): m for m in allowed_machines[key]}
            if machine.isdigit():
                machine = f"M{int(machine)}"
            if machine.lower() not in options:
                problems.append(
                    f"{label}: machine {entry['machine']!r}, must be one of {list(allowed_machines[key])}"
                )
    return problems


def machine_overlaps(
    intervals: Mapping[str, Sequence[tuple[float, float, str]]],
) -> list[str]:
    """Pairs of intervals ``(start, finish, label)`` that overlap on one machine (touching is fine)."""
    problems = []
    for machine, items in intervals.items():
        ordered = sorted(items)
        for (s1, f1, a), (s2, _f2, b) in itertools.pairwise(ordered):
            if s2 < f1 - TOLERANCE:
                problems.append(
                    f"machine {machine}: {a} [{fmt(s1)}, {fmt(f1)}) overlaps {b} starting at {fmt(s2)}"
                )
    return problems


def precedence_problems(
    starts: Mapping[OperationKey, float],
    duration: Mapping[OperationKey, float],
    chains: Mapping[str, Sequence[str]],
) -> list[str]:
    """Each job's operations in their listed order: an operation starts after its predecessor ends."""
    problems = []
    for job, ops in chains.items():
        for before, after in itertools.pairwise(ops):
            if (job, before) not in starts or (job, after) not in starts:
                continue
            ready = starts[job, before] + duration[job, before]
            if starts[job, after] < ready - TOLERANCE:
                begins = fmt(starts[job, after])
                problems.append(
                    f"job {job}: {after} starts at {begins}, before {before} ends at {fmt(ready)}"
                )
    return problems


def negative_starts(starts: Mapping[OperationKey, float]) -> list[str]:
    return [f"operation {j}-{o} starts at {fmt(s)} < 0" for (j, o), s in starts.items() if s < -TOLERANCE]
